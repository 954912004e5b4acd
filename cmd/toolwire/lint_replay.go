package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/internal/docfile"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/names"
	"github.com/toolwire/toolwire/provider/replay"
	"github.com/toolwire/toolwire/tool"
)

// isReplayFile reports whether data is a replay file (provider/replay)
// rather than tool definitions: a YAML or JSON mapping with a top-level
// "conversations" or "turns", which no tool definition format has.
func isReplayFile(data []byte) bool {
	root, err := docfile.Parse("", data)
	return err == nil && root.Get("tools") == nil && (root.Get("conversations") != nil || root.Get("turns") != nil)
}

// A replayFinding is one problem of a replay file, at a dotted path.
type replayFinding struct {
	Path, Rule, Message string
}

// agentTools are the tools a replay is checked against: those of the
// agent files that replay it, by name, with where they came from.
type agentTools struct {
	from  []string
	specs map[string]tool.Spec
}

// replayAgents returns the tools of the agent file given with --agent,
// or else of the agent files beside the replay file that name it (as
// replay: or model: replay:FILE); nil when there are none.
func replayAgents(e *env, file, agentFlag string) (*agentTools, error) {
	var defs []*agentfile.Definition
	if agentFlag != "" {
		def, err := agentfile.Load(agentFlag)
		if err != nil {
			return nil, exitcode.Usagef("--agent %s", strings.TrimPrefix(err.Error(), "agent file: "))
		}
		defs = append(defs, def)
	} else {
		dir := filepath.Dir(file)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			ext := filepath.Ext(e.Name())
			if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") || realPath(filepath.Join(dir, e.Name())) == realPath(file) {
				continue
			}
			def, err := agentfile.Load(filepath.Join(dir, e.Name()))
			if err != nil {
				continue // not an agent file
			}
			if slices.ContainsFunc(def.Files, func(f agentfile.FileRef) bool { return f.What == "replay" && realPath(f.Path) == realPath(file) }) {
				defs = append(defs, def)
			}
		}
	}
	if len(defs) == 0 {
		return nil, nil
	}
	at := &agentTools{specs: map[string]tool.Spec{}}
	for _, def := range defs {
		specs, err := agentSpecs(e, def)
		if err != nil {
			return nil, err
		}
		for _, s := range specs {
			at.specs[s.Name] = s
		}
		name := def.File
		if agentFlag == "" {
			name = filepath.Base(def.File)
		}
		at.from = append(at.from, name)
	}
	// Every agent has read_result, for the results it offloads.
	at.specs[tool.ReadResultName] = tool.Spec{Name: tool.ReadResultName}
	return at, nil
}

// lintReplay checks the replay file data, named file, against the tools
// of the agents that replay it (none: names and arguments unchecked).
func lintReplay(file string, data []byte, tools *agentTools) ([]replayFinding, *replay.File, error) {
	m, err := replay.Parse(file, data)
	if err != nil {
		return nil, nil, exitcode.Usagef("%s", strings.TrimPrefix(err.Error(), "replay: "))
	}
	f := m.Contents()
	var out []replayFinding
	add := func(path, rule, format string, args ...any) {
		out = append(out, replayFinding{path, rule, fmt.Sprintf(format, args...)})
	}
	seen := map[string]string{} // question → where
	schemas := map[string]*jsonschema.Schema{}
	for ci, c := range f.Conversations {
		at := fmt.Sprintf("conversations.%d", ci)
		if c.Question == "" && len(f.Conversations) == 1 {
			at = "" // a file of turns: no conversations key
		}
		if c.Question != "" {
			q := strings.ToLower(strings.Join(strings.Fields(c.Question), " "))
			if first, dup := seen[q]; dup {
				add(at, "REPLAY-QUESTION", "the question %q is recorded in %s already; this conversation is never replayed", c.Question, first)
			} else {
				seen[q] = at
			}
		}
		ids := map[string]string{} // call id → where
		for ti, t := range c.Turns {
			turnAt := strings.TrimPrefix(fmt.Sprintf("%s.turns.%d", at, ti), ".")
			for k, call := range t.Calls {
				callAt := fmt.Sprintf("%s.calls.%d", turnAt, k)
				if call.ID != "" {
					if first, dup := ids[call.ID]; dup {
						add(callAt, "REPLAY-CALL-ID", "the call id %s is used by %s too; each call needs its own id, for its result to answer it", call.ID, first)
					} else {
						ids[call.ID] = callAt
					}
				}
				if tools == nil {
					continue
				}
				spec, ok := tools.specs[call.Name]
				if !ok {
					msg := fmt.Sprintf("%s is not a tool of the agent", call.Name)
					known := make([]string, 0, len(tools.specs))
					for n := range tools.specs {
						known = append(known, n)
					}
					slices.Sort(known)
					if near := names.Closest(call.Name, known, 1); len(near) > 0 {
						msg += "; did you mean " + near[0] + "?"
					} else {
						msg += " (its tools: " + strings.Join(known, ", ") + ")"
					}
					add(callAt, "REPLAY-UNKNOWN-TOOL", "%s", msg)
					continue
				}
				if problem := argsProblem(schemas, spec, call.Args); problem != "" {
					add(callAt, "REPLAY-ARGS", "the arguments do not fit %s's schema: %s", call.Name, problem)
				}
			}
		}
		if last := c.Turns[len(c.Turns)-1]; len(last.Calls) > 0 {
			add(strings.TrimPrefix(fmt.Sprintf("%s.turns.%d", at, len(c.Turns)-1), "."), "REPLAY-PAIR",
				"the last turn makes calls, and no recorded turn answers after their results: a replayed run stops with an error there; add the model's answer as a turn")
		}
	}
	return out, f, nil
}

// argsProblem says why args do not fit the spec's parameter schema, ""
// when they do or when it has none.
func argsProblem(cache map[string]*jsonschema.Schema, spec tool.Spec, args []byte) string {
	if len(spec.Parameters) == 0 {
		return ""
	}
	s, ok := cache[spec.Name]
	if !ok {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.Parameters))
		if err == nil {
			err = c.AddResource("tool.json", doc)
		}
		if err == nil {
			s, err = c.Compile("tool.json")
		}
		if err != nil {
			s = nil // a tool whose schema does not compile is lint's other job
		}
		cache[spec.Name] = s
	}
	if s == nil {
		return ""
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "not JSON"
	}
	if err := s.Validate(v); err != nil {
		msg := err.Error()
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			var leaves []string
			for _, c := range ve.Causes {
				leaves = append(leaves, strings.TrimPrefix(c.Error(), "at '': "))
			}
			if len(leaves) > 0 {
				msg = strings.Join(leaves, "; ")
			}
		}
		return strings.Join(strings.Fields(strings.ReplaceAll(msg, "jsonschema validation failed with 'file:///tool.json#'", "")), " ")
	}
	return ""
}

// writeReplayText prints the findings of the replay file name.
func writeReplayText(w io.Writer, name string, f *replay.File, tools *agentTools, findings []replayFinding) {
	against := "tool names and arguments not checked: no agent file beside it names it; pass --agent FILE"
	if tools != nil {
		against = "checked against the tools of " + strings.Join(tools.from, ", ")
	}
	n := len(f.Conversations)
	qs := fmt.Sprintf("%d questions", n)
	if n == 1 {
		qs = "1 question"
	}
	fmt.Fprintf(w, "%s (replay file, %s, %s)\n", displayName(name), qs, against)
	for _, fd := range findings {
		fmt.Fprintf(w, "  %s  %s  %s\n", orName(fd.Path, "(top)"), fd.Rule, fd.Message)
	}
	if len(findings) == 0 {
		fmt.Fprintln(w, "  no problems")
	}
	fmt.Fprintln(w)
}

// realPath is the absolute path p names, its links followed when it
// exists.
func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
