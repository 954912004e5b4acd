package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

func newCheckCmd(e *env) *cobra.Command {
	var dialect string
	var asJSON, fix bool
	cmd := &cobra.Command{
		Use:   "check [--dialect openai-chat|openai-responses|anthropic|gemini|auto] [--json] [--fix] [FILE|-]",
		Short: "Report what a provider would reject in a request body, and fix it",
		Long: `check reads a provider request body (or a bare message array) and reports
every rule of docs/provider-rules.md it breaks: tool calls without results,
results without calls, messages wedged between a call and its result,
duplicates, ids and tool names the provider refuses, empty text, misplaced
system and thinking blocks, strict-mode schemas. Each violation names its
rule, its path in the body and, where known, the provider's own error text.

--dialect auto (the default) guesses the dialect from the body's shape and
says which it chose. --json prints the report as JSON. --fix prints the
repaired body, in the same dialect and with its other fields kept, on
standard output, and the list of repairs on standard error. It also writes
what the provider rejects in the body's own shape in the form it accepts:
an Anthropic body's role "system" messages go into its top-level system
field (a bare array has none: they stay, and the body stays rejected).

Exit codes: 0 the provider would accept it (with --fix: the repaired body);
1 it would reject it; 2 the input is unreadable.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			auto, err := dialectFlag("dialect", dialect, true)
			if err != nil {
				return err
			}
			data, name, err := readInput(e, args)
			if err != nil {
				return err
			}
			d, why := auto, ""
			if d == "" {
				det, err := wire.Detect(data)
				if err != nil {
					return inputError(name, err)
				}
				d, why = det.Dialect, det.Reason
			}
			b, err := wire.Decode(data, d)
			if err != nil {
				return inputError(name, fmt.Errorf("as %s: %w", d, err))
			}
			if fix {
				return fixBody(e, name, b, why, asJSON)
			}
			vs := b.Check()
			if asJSON {
				writeJSON(e.stdout, report{Accepted: transcript.Accepted(vs), Dialect: d, Detected: why, Violations: jsonViolations(vs)})
			} else {
				printReport(e.stdout, name, d, why, vs)
			}
			if !transcript.Accepted(vs) {
				return rejected()
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dialect, "dialect", "auto", "the body's dialect: openai-chat, openai-responses, anthropic, gemini or auto")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&fix, "fix", false, "print the repaired body on stdout and the repairs on stderr")
	return cmd
}

// fixBody repairs b, prints it on stdout and the repairs on stderr.
func fixBody(e *env, name string, b *wire.Body, why string, asJSON bool) error {
	before := b.Check()
	f, err := b.Fix(nil)
	if err != nil {
		return &exitError{code: exitInternal, err: err}
	}
	d := b.Dialect()
	fmt.Fprintf(e.stdout, "%s\n", f.Body)
	accepted := f.Accepted()
	if asJSON {
		writeJSON(e.stderr, fixReport{Accepted: accepted, Dialect: d, Detected: why, Changes: jsonChanges(f.Changes), Warnings: jsonWarnings(f.Warnings), Violations: jsonViolations(f.Violations)})
	} else {
		w := e.stderr
		if why != "" {
			fmt.Fprintf(w, "%s: %s (detected: %s)\n", displayName(name), d, why)
		}
		if len(f.Changes) == 0 {
			fmt.Fprintf(w, "no repairs made (%d violation(s) before)\n", len(before))
		} else {
			fmt.Fprintf(w, "%d repair(s):\n", len(f.Changes))
		}
		for _, c := range f.Changes {
			fmt.Fprintf(w, "  %s  %s  %s\n      %s\n", orDash(c.Path), c.Rule, c.Action, c.Reason)
		}
		for _, wn := range f.Warnings {
			fmt.Fprintf(w, "warning: %s\n", wn)
		}
		if f.Unrepaired != nil {
			fmt.Fprintf(w, "%v\n", f.Unrepaired)
		}
		if accepted {
			fmt.Fprintf(w, "the repaired body is accepted by %s\n", d)
		} else {
			fmt.Fprintf(w, "the repaired body is still rejected by %s:\n", d)
			printViolations(w, f.Violations)
		}
	}
	if !accepted {
		return rejected()
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printReport writes the human report of a check.
func printReport(w io.Writer, name string, d transcript.Dialect, why string, vs []transcript.Violation) {
	src := displayName(name)
	if why != "" {
		fmt.Fprintf(w, "%s: %s (detected: %s)\n", src, d, why)
	} else {
		fmt.Fprintf(w, "%s: %s\n", src, d)
	}
	printViolations(w, vs)
	rejects, warns := 0, 0
	for _, v := range vs {
		if v.Warning {
			warns++
		} else {
			rejects++
		}
	}
	if rejects == 0 {
		fmt.Fprintf(w, "accepted: %s would accept it (%d warning(s))\n", d, warns)
		return
	}
	fmt.Fprintf(w, "rejected: %d violation(s) %s would reject, %d warning(s); toolwire check --fix repairs them\n", rejects, d, warns)
}

func printViolations(w io.Writer, vs []transcript.Violation) {
	for _, v := range vs {
		kind := ""
		if v.Warning {
			kind = " (warning)"
		}
		fmt.Fprintf(w, "  %s  %s%s\n      %s\n", orDash(v.Path), v.Rule, kind, v.Message)
		if v.ProviderError != "" {
			fmt.Fprintf(w, "      provider error: %s\n", v.ProviderError)
		}
	}
}

// The JSON report; the first three fields are the documented contract.
type report struct {
	Accepted   bool                `json:"accepted"`
	Dialect    transcript.Dialect  `json:"dialect"`
	Violations []violationJSON     `json:"violations"`
	Detected   string              `json:"detected,omitempty"`
	Changes    []changeJSON        `json:"changes,omitempty"`
	Warnings   []conversionWarning `json:"warnings,omitempty"`
}

type fixReport = report

type violationJSON struct {
	Rule          string `json:"rule"`
	Path          string `json:"path"`
	Message       string `json:"message"`
	ProviderError string `json:"provider_error"`
	Warning       bool   `json:"warning"`
}

type changeJSON struct {
	Rule   string `json:"rule"`
	Path   string `json:"path"`
	Action string `json:"action"`
	Reason string `json:"reason"`
}

type conversionWarning struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func jsonViolations(vs []transcript.Violation) []violationJSON {
	out := make([]violationJSON, len(vs))
	for i, v := range vs {
		out[i] = violationJSON{Rule: v.Rule, Path: v.Path, Message: v.Message, ProviderError: v.ProviderError, Warning: v.Warning}
	}
	return out
}

func jsonChanges(cs []transcript.Change) []changeJSON {
	out := make([]changeJSON, len(cs))
	for i, c := range cs {
		out[i] = changeJSON{Rule: c.Rule, Path: c.Path, Action: string(c.Action), Reason: c.Reason}
	}
	return out
}

func jsonWarnings(ws []transcript.Warning) []conversionWarning {
	var out []conversionWarning
	for _, w := range ws {
		out = append(out, conversionWarning{Path: w.Path, Message: w.Message})
	}
	return out
}

// writeJSON writes v as one line of JSON, without HTML escaping.
func writeJSON(w io.Writer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the report types always encode
	_, _ = w.Write(buf.Bytes())
}
