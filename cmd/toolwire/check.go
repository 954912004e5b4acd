package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

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
				if d, why, err = sniff(data); err != nil {
					return inputError(name, err)
				}
			}
			b, err := decodeBody(data, d)
			if err != nil {
				return inputError(name, fmt.Errorf("as %s: %w", d, err))
			}
			vs := checkBody(b, d)
			if fix {
				return fixBody(e, name, b, d, why, vs, asJSON)
			}
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

// checkBody returns the codec's wire violations and the transcript's, in
// wire order, with paths into the body.
func checkBody(b body, d transcript.Dialect) []transcript.Violation {
	vs := append([]transcript.Violation(nil), b.wire()...)
	for _, v := range transcript.CheckRequest(b.request(), d) {
		vs = append(vs, inBody(b, v))
	}
	transcript.SortViolations(vs)
	return vs
}

// inBody returns v, found on b's llm form, with its path and the paths its
// texts name translated into paths of the body b was decoded from.
func inBody(b body, v transcript.Violation) transcript.Violation {
	v.Path = b.bodyPath(v.Path)
	v.Message = bodyText(v.Message, b.bodyPath)
	v.ProviderError = bodyText(v.ProviderError, b.bodyPath)
	return v
}

// pathInText finds what reads as a path into a body's message array in the
// text of a violation or a change: "messages.3", "input.2.content.1", or the
// index form of provider errors, "messages[3]".
var pathInText = regexp.MustCompile(`\b(messages|input|contents)(?:\.\d+(?:\.(?:content|output|parts|tool_calls)\.\d+)?|\[(\d+)\])`)

// bodyText rewrites the paths text names with bodyPath.
func bodyText(text string, bodyPath func(string) string) string {
	ms := pathInText.FindAllStringSubmatchIndex(text, -1)
	if ms == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m[0]])
		last = m[1]
		tok := text[m[0]:m[1]]
		if m[4] < 0 {
			b.WriteString(bodyPath(tok))
			continue
		}
		// messages[3]: translate messages.3, and write the index back.
		name := text[m[2]:m[3]]
		idx, ok := strings.CutPrefix(bodyPath(name+"."+text[m[4]:m[5]]), name+".")
		if !ok || strings.Contains(idx, ".") {
			b.WriteString(tok)
			continue
		}
		b.WriteString(name + "[" + idx + "]")
	}
	b.WriteString(text[last:])
	return b.String()
}

// fixBody repairs b, prints it and the repairs, and re-checks the printed
// body.
func fixBody(e *env, name string, b body, d transcript.Dialect, why string, before []transcript.Violation, asJSON bool) error {
	repaired, changes, rerr := transcript.RepairRequest(b.request(), d, nil)
	// Repair names places in the transcript as it was decoded: translate
	// them into the input body's paths.
	for i, c := range changes {
		c.Path = b.bodyPath(c.Path)
		c.Reason = bodyText(c.Reason, b.bodyPath)
		changes[i] = c
	}
	var re *transcript.RepairError
	if errors.As(rerr, &re) {
		for i, v := range re.Problems {
			re.Problems[i] = inBody(b, v)
		}
	}
	b.set(repaired)
	b.fixWire()
	out, warns, err := b.encode()
	if err != nil {
		return &exitError{code: exitInternal, err: fmt.Errorf("encode the repaired body: %v", err)}
	}
	// What the printed body still breaks, as read back.
	var after []transcript.Violation
	if again, err := decodeBody(out, d); err != nil {
		return &exitError{code: exitInternal, err: fmt.Errorf("the repaired body does not decode: %v", err)}
	} else {
		after = checkBody(again, d)
	}
	// Wire violations vanish by re-encoding; say how.
	for _, v := range b.wire() {
		if !hasViolation(after, v) {
			changes = append(changes, wireChange(v))
		}
	}
	fmt.Fprintf(e.stdout, "%s\n", out)
	accepted := transcript.Accepted(after)
	if asJSON {
		writeJSON(e.stderr, fixReport{Accepted: accepted, Dialect: d, Detected: why, Changes: jsonChanges(changes), Warnings: jsonWarnings(warns), Violations: jsonViolations(after)})
	} else {
		w := e.stderr
		if why != "" {
			fmt.Fprintf(w, "%s: %s (detected: %s)\n", displayName(name), d, why)
		}
		if len(changes) == 0 {
			fmt.Fprintf(w, "no repairs made (%d violation(s) before)\n", len(before))
		} else {
			fmt.Fprintf(w, "%d repair(s):\n", len(changes))
		}
		for _, c := range changes {
			fmt.Fprintf(w, "  %s  %s  %s\n      %s\n", orDash(c.Path), c.Rule, c.Action, c.Reason)
		}
		for _, wn := range warns {
			fmt.Fprintf(w, "warning: %s\n", wn)
		}
		if rerr != nil {
			fmt.Fprintf(w, "%v\n", rerr)
		}
		if accepted {
			fmt.Fprintf(w, "the repaired body is accepted by %s\n", d)
		} else {
			fmt.Fprintf(w, "the repaired body is still rejected by %s:\n", d)
			printViolations(w, after)
		}
	}
	if !accepted {
		return rejected()
	}
	return nil
}

// actionReencode is the action of a change that re-encoding made: a Wire
// violation of the codec written in the form the provider accepts.
const actionReencode transcript.Action = "re-encode"

// wireChange describes how re-encoding with fixWire cleared v, one of the
// violations a codec found while decoding.
func wireChange(v transcript.Violation) transcript.Change {
	c := transcript.Change{Rule: v.Rule, Path: v.Path, Action: actionReencode, Reason: "written back in a form the provider accepts: " + v.Message}
	switch v.Rule {
	case "ANT-SYSTEM-ROLE":
		c.Action = transcript.ActionMerge
		c.Reason = `moved the text of this role "system" message into the top-level system field, in order after the system text before it`
	case "GEM-PARTS-NONEMPTY":
		c.Action = transcript.ActionDrop
		c.Reason = "left out this part, which has no data field (and its content, had it no other part)"
	case "GEM-RESPONSE-OBJECT":
		c.Reason = `wrapped the response, which is not an object, as {"output": <the response>}`
	case "OAI-CC-EMPTY-TOOLCALLS":
		c.Action = transcript.ActionDrop
		c.Reason = "left out the empty tool_calls array"
	}
	return c
}

func hasViolation(vs []transcript.Violation, v transcript.Violation) bool {
	for _, x := range vs {
		if x.Rule == v.Rule && x.Path == v.Path {
			return true
		}
	}
	return false
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
