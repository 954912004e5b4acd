package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

func newCheckCmd(e *env) *cobra.Command {
	var dialect, model, duplicates string
	var asJSON, fix bool
	cmd := &cobra.Command{
		Use:   "check [--dialect openai-chat|openai-responses|anthropic|gemini|auto] [--model MODEL] [--json] [--fix [--duplicates report|first|last]] [FILE...|-]",
		Short: "Report what a provider would reject in a request body, and fix it",
		Long: `check reads a provider request body (or a bare message array) and reports
every rule of docs/provider-rules.md it breaks: tool calls without results,
results without calls, messages wedged between a call and its result,
duplicates, ids and tool names the provider refuses, empty text, misplaced
system and thinking blocks, strict-mode schemas. It warns of a top-level
field the dialect's API does not document (naming the field meant) and of
an option outside its documented range (max_tokens below 1, temperature
outside 0-2, ...). Each violation names its rule, its path in the body and,
where known, the provider's own error text.
A rejected body's report ends by saying whether check --fix repairs it, and
if not, what it cannot repair.

Some rules depend on the model (a Gemini 3 model wants its thought
signatures back, GEM-THOUGHT-SIG). A Gemini body does not name its model
(its URL does): without --model such a rule only warns.

--dialect auto (the default) finds the dialect from the body's shape and
says what decided. A body whose shape fits several dialects (a bare array
of user and assistant messages with string content is valid Chat
Completions, Responses input and Anthropic messages) is ambiguous: check
judges it in each dialect that reads it, and accepts it only if every one
does; give --dialect to judge it in one.

--json prints the report as JSON: {"accepted", "dialect", "violations",
...}; for an ambiguous body "dialect" is "", "violations" holds every
candidate's (each with its "dialect"), and "candidates" the verdict in each.
When nothing could be checked (unusable input or command line), it is
still one document, with accepted false and an "error" saying why.

--fix prints the repaired body, in the same dialect and with its other
fields kept, on standard output, and the list of repairs on standard
error. It also writes what the provider rejects in the body's own shape in
the form it accepts: an Anthropic body's role "system" messages go into its
top-level system field (a bare array has none: they stay, and the body
stays rejected). A repair depends on the dialect: an ambiguous body needs
--dialect. --duplicates says what to do with a call that has two different
results: report (the default) leaves both and reports the conflict; first
or last keeps that one and turns the other into a user note. A placeholder
result (interrupted, cancelled, aborted) beside a real one always gives
way to it.

Several files are checked one after the other (toolwire check DIR/*, for
the dumps of a run): a report for each, and with --json a JSON array of
them, each with its "file" (and an "error" for a file that could not be
checked). --fix takes one file.

Exit codes: 0 the provider would accept it (with --fix: the repaired body;
for an ambiguous body: every candidate would; for several files: each);
1 it would reject it (one of them); 2 the input or the command line is
unusable (for one of the files).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := check(e, args, dialect, model, duplicates, asJSON, fix)
			var ee *exitcode.Error
			if asJSON && errors.As(err, &ee) && ee.Code >= exitcode.Usage && ee.Err != nil {
				// Nothing could be checked: the report says why, so that
				// --json always prints one document (where --fix prints
				// its report, on standard error).
				w := e.stdout
				if fix {
					w = e.stderr
				}
				fmt.Fprintln(e.stderr, printable("toolwire: "+ee.Err.Error()))
				writeJSON(w, report{Error: ee.Err.Error(), Violations: []violationJSON{}})
				return &exitcode.Error{Code: ee.Code}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&dialect, "dialect", "auto", "the body's dialect: openai-chat, openai-responses, anthropic, gemini or auto")
	cmd.Flags().StringVar(&model, "model", "", "the `MODEL` the body is for, when the body does not name it (a Gemini body: its URL does); the rules that depend on it then apply, not only warn")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&fix, "fix", false, "print the repaired body on stdout and the repairs on stderr")
	cmd.Flags().StringVar(&duplicates, "duplicates", "report", "with --fix, for a call with two different results: report, first or last")
	return cmd
}

// check runs toolwire check on the named files (standard input for none).
func check(e *env, args []string, dialect, model, duplicates string, asJSON, fix bool) error {
	d, err := dialectFlag("dialect", dialect, true)
	if err != nil {
		return err
	}
	pol, err := duplicatesFlag(duplicates)
	if err != nil {
		return err
	}
	if duplicates != "report" && !fix {
		return exitcode.Usagef("--duplicates goes with --fix")
	}
	if len(args) > 1 {
		if fix {
			return exitcode.Usagef("--fix repairs one body at a time: give one FILE (got %d)", len(args))
		}
		return checkFiles(e, args, d, model, asJSON)
	}
	data, name, err := readInput(e, args)
	if err != nil {
		return err
	}
	boundMemory(len(data))
	if fix {
		f, err := wire.FixFor(data, d, pol, model)
		if err != nil {
			return checkError(name, err, "--dialect")
		}
		return printFix(e, name, f, asJSON)
	}
	rep, err := wire.CheckFor(data, d, model)
	if err != nil {
		return checkError(name, err, "--dialect")
	}
	if asJSON {
		writeJSON(e.stdout, jsonReport(rep))
	} else {
		printReport(e.stdout, name, rep)
	}
	if !rep.Accepted() {
		return rejected()
	}
	return nil
}

// checkFiles checks each of names, printing a report for each (a JSON
// array of them with asJSON), and exits with the worst outcome: 2 when a
// file could not be checked, else 1 when one would be rejected.
func checkFiles(e *env, names []string, d transcript.Dialect, model string, asJSON bool) error {
	code := exitcode.OK
	var reports []report
	for _, name := range names {
		rep, err := checkFile(e, name, d, model)
		if err != nil {
			var ee *exitcode.Error
			if !errors.As(err, &ee) {
				ee = &exitcode.Error{Code: exitcode.Usage, Err: err}
			}
			code = max(code, ee.Code)
			if asJSON {
				reports = append(reports, report{File: name, Error: ee.Error(), Violations: []violationJSON{}})
			} else {
				fmt.Fprintln(e.stderr, printable("toolwire: "+ee.Error()))
			}
			continue
		}
		if !rep.Accepted() {
			code = max(code, exitcode.Rejected)
		}
		if asJSON {
			r := jsonReport(rep)
			r.File = name
			reports = append(reports, r)
		} else {
			printReport(e.stdout, name, rep)
		}
	}
	if asJSON {
		writeJSON(e.stdout, reports)
	}
	if code != exitcode.OK {
		return &exitcode.Error{Code: code}
	}
	return nil
}

// checkFile reads and checks one file.
func checkFile(e *env, name string, d transcript.Dialect, model string) (*wire.Report, error) {
	data, _, err := readLimited(e, name, "")
	if err != nil {
		return nil, err
	}
	rep, err := wire.CheckFor(data, d, model)
	if err != nil {
		return nil, checkError(name, err, "--dialect")
	}
	return rep, nil
}

// duplicatesFlag parses --duplicates into the repair policy.
func duplicatesFlag(v string) (*transcript.Policy, error) {
	switch v {
	case "report":
		return nil, nil
	case "first":
		return &transcript.Policy{Duplicates: transcript.KeepFirst}, nil
	case "last":
		return &transcript.Policy{Duplicates: transcript.KeepLast}, nil
	}
	return nil, exitcode.Usagef("--duplicates %q: want report, first or last", v)
}

// checkError reports a body that cannot be judged: unreadable, ambiguous
// where one dialect is needed (flag names it), or a defect.
func checkError(name string, err error, flag string) error {
	if errors.Is(err, wire.ErrInternal) {
		return &exitcode.Error{Code: exitcode.Internal, Err: err}
	}
	var amb *wire.AmbiguousError
	if errors.As(err, &amb) {
		var names []string
		for _, c := range amb.Detection.Candidates {
			names = append(names, string(c))
		}
		return exitcode.Usagef("%s: the dialect is ambiguous: %s; give %s %s", displayName(name), amb.Detection.Reason, flag, strings.Join(names, " or "))
	}
	return inputError(name, err)
}

// printFix prints the repaired body on stdout and the repairs on stderr.
func printFix(e *env, name string, f *wire.Fixed, asJSON bool) error {
	writeBody(e.stdout, f.Body)
	accepted := f.Accepted()
	if asJSON {
		writeJSON(e.stderr, report{Accepted: accepted, Dialect: f.Dialect, Detected: f.Detected, Changes: jsonChanges(f.Changes), Warnings: jsonWarnings(f.Warnings), Violations: jsonViolations(f.Violations, "")})
	} else {
		w := e.stderr
		if f.Detected != "" {
			fmt.Fprintf(w, "%s: %s (detected: %s)\n", displayName(name), f.Dialect, f.Detected)
		}
		if len(f.Changes) == 0 {
			fmt.Fprintf(w, "no repairs made (%d violation(s) before)\n", len(f.Found))
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
			fmt.Fprintf(w, "the repaired body is accepted by %s\n", f.Dialect)
		} else {
			fmt.Fprintf(w, "the repaired body is still rejected by %s:\n", f.Dialect)
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
func printReport(w io.Writer, name string, rep *wire.Report) {
	src := displayName(name)
	if rep.Candidates == nil {
		if rep.Detected != "" {
			fmt.Fprintf(w, "%s: %s (detected: %s)\n", src, rep.Dialect, rep.Detected)
		} else {
			fmt.Fprintf(w, "%s: %s\n", src, rep.Dialect)
		}
		printVerdict(w, &rep.Verdict, "", "")
		return
	}
	fmt.Fprintf(w, "%s: ambiguous: %s; judged as each (give --dialect to judge it as one)\n", src, rep.Detected)
	var rejecting []string
	for i := range rep.Candidates {
		c := &rep.Candidates[i]
		fmt.Fprintf(w, "as %s:\n", c.Dialect)
		printVerdict(w, c, "  ", " --dialect "+string(c.Dialect))
		if !c.Accepted() {
			rejecting = append(rejecting, string(c.Dialect))
		}
	}
	if len(rejecting) == 0 {
		fmt.Fprintf(w, "accepted: every dialect it could be would accept it\n")
		return
	}
	fmt.Fprintf(w, "rejected: %s would reject it\n", strings.Join(rejecting, " and "))
}

// printVerdict writes the violations of v and its conclusion, indented;
// flag is what check --fix needs to repair it.
func printVerdict(w io.Writer, v *wire.Verdict, indent, flag string) {
	printViolationsIndent(w, v.Violations, indent)
	rejects, warns := 0, 0
	for _, x := range v.Violations {
		if x.Warning {
			warns++
		} else {
			rejects++
		}
	}
	if rejects == 0 {
		fmt.Fprintf(w, "%saccepted: %s would accept it (%d warning(s))\n", indent, v.Dialect, warns)
		return
	}
	fmt.Fprintf(w, "%srejected: %d violation(s) %s would reject, %d warning(s); ", indent, rejects, v.Dialect, warns)
	if v.Fixable() {
		fmt.Fprintf(w, "toolwire check --fix%s repairs them\n", flag)
		return
	}
	var left []transcript.Violation
	for _, x := range v.Left {
		if !x.Warning {
			left = append(left, x)
		}
	}
	fmt.Fprintf(w, "toolwire check --fix%s cannot repair all of them; the repaired body would still break:\n", flag)
	printViolationsIndent(w, left, indent)
	if v.Unrepaired != nil {
		fmt.Fprintf(w, "%s%s\n", indent, strings.ReplaceAll(v.Unrepaired.Error(), "\n", "\n"+indent))
	}
}

func printViolations(w io.Writer, vs []transcript.Violation) { printViolationsIndent(w, vs, "") }

func printViolationsIndent(w io.Writer, vs []transcript.Violation, indent string) {
	for _, v := range vs {
		kind := ""
		if v.Warning {
			kind = " (warning)"
		}
		fmt.Fprintf(w, "%s  %s  %s%s\n%s      %s\n", indent, orDash(v.Path), v.Rule, kind, indent, v.Message)
		if v.ProviderError != "" {
			fmt.Fprintf(w, "%s      provider error: %s\n", indent, v.ProviderError)
		}
	}
}

// The JSON report; the first three fields are the documented contract.
type report struct {
	// File and Error are set when several files are checked: which file,
	// and why it could not be.
	File       string              `json:"file,omitempty"`
	Error      string              `json:"error,omitempty"`
	Accepted   bool                `json:"accepted"`
	Dialect    transcript.Dialect  `json:"dialect"`
	Violations []violationJSON     `json:"violations"`
	Fixable    *bool               `json:"fixable,omitempty"`
	Detected   string              `json:"detected,omitempty"`
	Candidates []candidateJSON     `json:"candidates,omitempty"`
	Changes    []changeJSON        `json:"changes,omitempty"`
	Warnings   []conversionWarning `json:"warnings,omitempty"`
}

// candidateJSON is the verdict on an ambiguous body in one dialect.
type candidateJSON struct {
	Dialect    transcript.Dialect `json:"dialect"`
	Accepted   bool               `json:"accepted"`
	Violations []violationJSON    `json:"violations"`
	Fixable    *bool              `json:"fixable,omitempty"`
}

type violationJSON struct {
	Rule          string             `json:"rule"`
	Path          string             `json:"path"`
	Message       string             `json:"message"`
	ProviderError string             `json:"provider_error"`
	Warning       bool               `json:"warning"`
	Dialect       transcript.Dialect `json:"dialect,omitempty"`
}

// jsonReport is the JSON form of rep. fixable is set for a rejected body:
// whether check --fix repairs it.
func jsonReport(rep *wire.Report) report {
	out := report{Accepted: rep.Accepted(), Dialect: rep.Dialect, Detected: rep.Detected, Violations: jsonViolations(rep.Violations, "")}
	if !out.Accepted {
		out.Fixable = fixable(rep.Fixable())
	}
	if rep.Candidates == nil {
		return out
	}
	out.Violations = []violationJSON{}
	for i := range rep.Candidates {
		c := &rep.Candidates[i]
		cj := candidateJSON{Dialect: c.Dialect, Accepted: c.Accepted(), Violations: jsonViolations(c.Violations, "")}
		if !cj.Accepted {
			cj.Fixable = fixable(c.Fixable())
		}
		out.Candidates = append(out.Candidates, cj)
		out.Violations = append(out.Violations, jsonViolations(c.Violations, c.Dialect)...)
	}
	return out
}

func fixable(b bool) *bool { return &b }

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

// jsonViolations is the JSON form of vs; d is set for the violations of
// one candidate of an ambiguous body.
func jsonViolations(vs []transcript.Violation, d transcript.Dialect) []violationJSON {
	out := make([]violationJSON, len(vs))
	for i, v := range vs {
		out[i] = violationJSON{Rule: string(v.Rule), Path: v.Path, Message: v.Message, ProviderError: v.ProviderError, Warning: v.Warning, Dialect: d}
	}
	return out
}

func jsonChanges(cs []transcript.Change) []changeJSON {
	out := make([]changeJSON, len(cs))
	for i, c := range cs {
		out[i] = changeJSON{Rule: string(c.Rule), Path: c.Path, Action: string(c.Action), Reason: c.Reason}
	}
	return out
}

func jsonWarnings(ws []provider.Warning) []conversionWarning {
	var out []conversionWarning
	for _, w := range ws {
		out = append(out, conversionWarning{Path: w.Path, Message: w.Message})
	}
	return out
}

// writeJSON writes v as one line of JSON, without HTML escaping.
func writeJSON(w io.Writer, v any) {
	b, _ := jsonx.Marshal(v) // the report types always encode
	_, _ = w.Write(append(b, '\n'))
}
