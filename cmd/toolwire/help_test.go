package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The root help lists every command, subcommands included, once, on one
// line each with what it does, and says what toolwire is for beyond the
// older commands.
func TestRootHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}} {
		stdout, stderr, code := runCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("toolwire %q: exit %d: %s", args, code, stderr)
		}
		_, block, ok := strings.Cut(stdout, "\nCommands:\n")
		if !ok {
			t.Fatalf("toolwire %q has no Commands block:\n%s", args, stdout)
		}
		block, _, _ = strings.Cut(block, "\n\n")
		root := newRootCmd(nil, nil, nil)
		e := &env{}
		root.AddCommand(newRunCmd(e), newResumeCmd(e), newSessionsCmd(e))
		var walk func(prefix string, cs []*cobra.Command)
		walk = func(prefix string, cs []*cobra.Command) {
			for _, c := range cs {
				name := strings.TrimSpace(prefix + " " + c.Name())
				if c.HasSubCommands() {
					walk(name, c.Commands())
					continue
				}
				line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + `  +\S`)
				if n := len(line.FindAllString(block, -1)); n != 1 {
					t.Errorf("toolwire %q lists %q %d times, want once on a line of its own:\n%s", args, name, n, block)
				}
			}
		}
		walk("", root.Commands())
		if strings.Contains(stdout, "Available Commands") {
			t.Errorf("toolwire %q lists the commands twice:\n%s", args, stdout)
		}
		if !strings.Contains(stdout, "runs agents") {
			t.Errorf("toolwire %q does not say it runs agents:\n%s", args, stdout)
		}
	}
}
