package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/lint"
	"github.com/toolwire/toolwire/tool"
)

// lintOutput is the --json output of toolwire lint. Its shape is part of
// the CLI's contract (docs/lint.md): fields are only ever added.
type lintOutput struct {
	// MinScore is the --min-score the tools were held to.
	MinScore int `json:"min_score"`
	// Passed is false when some tool scored below MinScore.
	Passed bool       `json:"passed"`
	Tools  []lintTool `json:"tools"`
}

type lintTool struct {
	File     string        `json:"file"`   // as named on the command line; "-" is standard input
	Format   string        `json:"format"` // openai-chat, openai-responses, anthropic, mcp, toolwire
	Tool     string        `json:"tool"`
	Score    int           `json:"score"`
	Findings []lintFinding `json:"findings"` // never null
}

type lintFinding struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Points  int    `json:"points"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

func newLintCmd(e *env) *cobra.Command {
	var asJSON bool
	var minScore int
	var agentFlag string
	cmd := &cobra.Command{
		Use:   "lint [--json] [--min-score N] FILE...",
		Short: "Score tool definitions 0-100 and explain every deduction",
		Long: `lint reads tool definitions (an OpenAI or Anthropic tools array, a request
body holding one, an MCP tools/list result, a toolwire spec file, or an
agent file, whose tools are those its model would see, its MCP servers'
included; "-" is standard input) and scores each tool from 0 to 100. Every deduction names
its rule, the path inside the definition, the points and a concrete fix.
The rules and their weights are in docs/lint.md.

A replay file (provider/replay: recorded model turns, as toolwire run
--record writes them) is recognised by its shape, a top-level
"conversations" or "turns" key, and checked instead: tool names the agent
does not have, arguments its tool's schema refuses, a call id used twice,
a question recorded twice, and a last turn that makes calls (no recorded
answer follows their results). It is checked against the tools of --agent
FILE, or else of the agent files beside it that name it.

Exit codes: 0 every tool scored at least --min-score (and no replay file
has a problem); 1 some tool scored below it, or a replay file has a
problem; 2 a file could not be read or parsed (nothing is scored then).`,
		Example: `  toolwire lint examples/tools/bad.json
  toolwire lint --min-score 80 tools/*.json      # gate CI
  toolwire lint --json tools.json | jq '.tools[] | {tool, score}'
  toolwire lint examples/agent/replay.yaml        # a replay file`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitcode.Usagef("lint needs at least one FILE (or - for standard input)")
			}
			if minScore < 0 || minScore > 100 {
				return exitcode.Usagef("--min-score %d is out of range; want 0 to 100", minScore)
			}
			args, replayErr := lintReplays(e, args, agentFlag, asJSON)
			var ee *exitcode.Error
			if replayErr != nil && !(errors.As(replayErr, &ee) && ee.Code == exitcode.Rejected) {
				return replayErr // a replay file cannot be used
			}
			if len(args) == 0 {
				return replayErr // only replay files
			}
			out, err := lintFiles(e, args, minScore)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeLintJSON(e.stdout, out); err != nil {
					return &exitcode.Error{Code: exitcode.Internal, Err: err}
				}
			} else {
				writeLintText(e.stdout, out)
			}
			if !out.Passed {
				var below []string
				for _, t := range out.Tools {
					if t.Score < minScore {
						below = append(below, fmt.Sprintf("%s (%d)", t.Tool, t.Score))
					}
				}
				return &exitcode.Error{Code: exitcode.Rejected, Err: fmt.Errorf("%d of %d tools scored below --min-score %d: %s",
					len(below), len(out.Tools), minScore, strings.Join(below, ", "))}
			}
			return replayErr
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reports as JSON (shape in docs/lint.md)")
	cmd.Flags().IntVar(&minScore, "min-score", 0, "exit 1 if any tool scores below `N` (0-100)")
	cmd.Flags().StringVar(&agentFlag, "agent", "", "check replay files against the tools of the agent `FILE` (default: the agent files beside each that name it)")
	return cmd
}

// lintReplays lints the replay files among names, printing what it finds,
// and returns the other names. Its error exits 1 when a replay file has
// a problem, 2 when one cannot be used. Standard input is never taken
// for a replay file.
func lintReplays(e *env, names []string, agentFlag string, asJSON bool) ([]string, error) {
	var rest []string
	problems, files := 0, 0
	for _, name := range names {
		if name == "-" {
			rest = append(rest, name)
			continue
		}
		data, _, err := readInput(e, []string{name})
		if err != nil || !isReplayFile(data) {
			rest = append(rest, name) // lintFiles reports it
			continue
		}
		if asJSON {
			return nil, exitcode.Usagef("%s is a replay file; --json covers tool definitions only: lint it without --json", name)
		}
		tools, err := replayAgents(e, name, agentFlag)
		if err != nil {
			return nil, err
		}
		findings, f, err := lintReplay(name, data, tools)
		if err != nil {
			return nil, err
		}
		writeReplayText(e.stdout, name, f, tools, findings)
		problems += len(findings)
		files++
	}
	if problems > 0 {
		return rest, &exitcode.Error{Code: exitcode.Rejected, Err: fmt.Errorf("%d problem(s) in %d replay file(s)", problems, files)}
	}
	return rest, nil
}

// lintFiles reads every file first, so that unreadable input scores
// nothing, then lints each file's tools as one set.
func lintFiles(e *env, names []string, minScore int) (lintOutput, error) {
	type file struct {
		name   string
		specs  []tool.Spec
		format tool.Format
	}
	var files []file
	failed := false
	for _, name := range names {
		data, _, err := readInput(e, []string{name})
		if err == nil {
			var specs []tool.Spec
			var format tool.Format
			if specs, format, err = tool.ParseSpecs(data); err == nil {
				files = append(files, file{name, specs, format})
				continue
			}
			if def, ok := agentFile(name, data); ok {
				// An agent file: the tools its model would see, MCP
				// servers' included.
				if specs, err = agentSpecs(e, def); err == nil {
					files = append(files, file{name, specs, "agent"})
					continue
				}
				return lintOutput{}, err
			}
			err = inputError(name, err)
		}
		fmt.Fprintf(e.stderr, "toolwire: %v\n", err)
		failed = true
	}
	if failed {
		return lintOutput{}, &exitcode.Error{Code: exitcode.Usage}
	}
	out := lintOutput{MinScore: minScore, Passed: true, Tools: []lintTool{}}
	for _, f := range files {
		for _, r := range lint.Tools(f.specs) {
			t := lintTool{File: f.name, Format: string(f.format), Tool: r.Tool, Score: r.Score, Findings: make([]lintFinding, len(r.Findings))}
			for i, fd := range r.Findings {
				t.Findings[i] = lintFinding{Rule: string(fd.Rule), Path: fd.Path, Points: fd.Points, Message: fd.Message, Fix: fd.Fix}
			}
			if r.Score < minScore {
				out.Passed = false
			}
			out.Tools = append(out.Tools, t)
		}
	}
	return out, nil
}

func writeLintJSON(w io.Writer, out lintOutput) error {
	b, err := jsonx.MarshalIndent(out, "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeLintText prints, per tool, its score and each deduction with its
// fix, then a one-line summary.
func writeLintText(w io.Writer, out lintOutput) {
	lastFile := ""
	for _, t := range out.Tools {
		if t.File != lastFile {
			fmt.Fprintf(w, "%s (%s)\n\n", displayName(t.File), t.Format)
			lastFile = t.File
		}
		mark := ""
		if t.Score < out.MinScore {
			mark = fmt.Sprintf("  below --min-score %d", out.MinScore)
		}
		fmt.Fprintf(w, "  %s  %d/100%s\n", t.Tool, t.Score, mark)
		if len(t.Findings) == 0 {
			fmt.Fprintln(w, "    nothing to improve")
		}
		for _, f := range t.Findings {
			rule := f.Rule
			if f.Points == 0 {
				rule += "; rule cap reached"
			}
			fmt.Fprintf(w, "    %3s  %s  [%s]\n", fmt.Sprintf("-%d", f.Points), f.Path, rule)
			fmt.Fprintf(w, "         %s\n", f.Message)
			fmt.Fprintf(w, "         fix: %s\n", f.Fix)
		}
		fmt.Fprintln(w)
	}
	if len(out.Tools) == 0 {
		return
	}
	lowest := out.Tools[0]
	sum := 0
	below := 0
	for _, t := range out.Tools {
		sum += t.Score
		if t.Score < lowest.Score {
			lowest = t
		}
		if t.Score < out.MinScore {
			below++
		}
	}
	summary := fmt.Sprintf("%d tools, average score %d, lowest %d (%s)", len(out.Tools), sum/len(out.Tools), lowest.Score, lowest.Tool)
	if len(out.Tools) == 1 {
		summary = fmt.Sprintf("1 tool, score %d", lowest.Score)
	}
	if out.MinScore > 0 {
		summary += fmt.Sprintf("; %d below --min-score %d", below, out.MinScore)
	}
	fmt.Fprintln(w, summary)
}
