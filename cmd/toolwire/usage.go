package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/tool"
)

// flagError is what a user reads for a flag the command line gets wrong:
// the flag, the value, what it wants and where the flags are listed,
// instead of the parser's Go wording (strconv.ParseInt: ...).
func flagError(cmd *cobra.Command, err error) error {
	help := fmt.Sprintf("%s --help lists the flags", cmd.CommandPath())
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		f := iv.GetFlag()
		return exitcode.Usagef("--%s %q: want %s; %s", f.Name, iv.GetValue(), flagWant(f), help)
	}
	var vr *pflag.ValueRequiredError
	if errors.As(err, &vr) {
		f := vr.GetFlag()
		return exitcode.Usagef("--%s needs a value: %s; %s", f.Name, flagWant(f), help)
	}
	return exitcode.Usagef("%s; %s", err, help) // an unknown flag: pflag's words say it
}

// flagWant says what value the flag f takes, with an example.
func flagWant(f *pflag.Flag) string {
	example := ""
	if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "0s" && f.DefValue != "[]" {
		example = fmt.Sprintf(", e.g. --%s %s", f.Name, f.DefValue)
	}
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64":
		return "a whole number" + example
	case "float64", "float32":
		return "a number" + example
	case "duration":
		return "a duration with its unit, e.g. 90s, 5m or 1h30m"
	case "bool":
		return "true or false"
	}
	return "a value (" + f.Usage + ")"
}

// commandError is what a user reads for an error of the command parser
// itself, an unknown command: the command, and where the commands are
// listed, with cobra's suggestion when it has one.
func commandError(err error) string {
	msg := err.Error()
	if !strings.HasPrefix(msg, "unknown command ") {
		return msg + "; toolwire help lists the commands"
	}
	head, suggestions, _ := strings.Cut(msg, "\n\nDid you mean this?\n")
	name := strings.TrimPrefix(head, "unknown command ")
	if i := strings.Index(name, ` for "`); i >= 0 {
		name = name[:i]
	}
	out := "unknown command " + name
	if s := strings.Fields(suggestions); len(s) > 0 {
		out += ": did you mean " + strings.Join(s, " or ") + "?"
	}
	return out + "; toolwire help lists the commands"
}

// nArgs accepts from min to max arguments (max < 0: any number), and
// otherwise says what the command takes, e.g. "one FILE, or - for
// standard input", with its usage line.
func nArgs(min, max int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= min && (max < 0 || len(args) <= max) {
			return nil
		}
		got := "none"
		if len(args) > 0 {
			got = fmt.Sprintf("%d (%s)", len(args), strings.Join(quoteAll(args), " "))
		}
		return exitcode.Usagef("%s takes %s, got %s; usage: %s", cmd.CommandPath(), what, got, cmd.UseLine())
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// userText is err as a user reads it: the library's package context
// ("tool: parse specs: ", "toolresult: parse envelope: ") replaced by what
// the input is not, a file error without Go's "open" operation, the rest
// as the library words it.
func userText(err error) string {
	var pe *tool.ParseError
	if errors.As(err, &pe) {
		switch {
		case pe.Line > 0:
			return fmt.Sprintf("not a tools file: line %d, column %d: %v", pe.Line, pe.Column, pe.Err)
		case pe.Path != "":
			return fmt.Sprintf("not a tools file: %s: %v", pe.Path, pe.Err)
		}
		return fmt.Sprintf("not a tools file: %v", pe.Err)
	}
	var fe *fs.PathError
	if errors.As(err, &fe) {
		return fmt.Sprintf("%s: %v", fe.Path, fe.Err)
	}
	msg := err.Error()
	for _, p := range []struct{ lib, user string }{
		{"toolresult: parse envelope: ", "not an observation envelope (docs/tool-message-protocol.md): "},
		{"toolresult: invalid envelope: ", "not a valid observation envelope (docs/tool-message-protocol.md): "},
	} {
		if rest, ok := strings.CutPrefix(msg, p.lib); ok {
			return p.user + rest
		}
	}
	return msg
}
