package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// commandOrder is the order of the root help's command list: running
// agents first, then the transcript tools. A command not named here is
// listed after these.
var commandOrder = []string{"run", "resume", "sessions", "serve", "gateway", "worker", "approve", "check", "convert", "shape", "lint", "render", "version"}

// setRootHelp makes root's help its description, then every command —
// subcommands too, as "sessions show" — on one line with what it does,
// then how to use them. Each command's help stays cobra's.
func setRootHelp(root *cobra.Command) {
	cobraHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c != root {
			cobraHelp(c, args)
			return
		}
		w := c.OutOrStdout()
		fmt.Fprintf(w, "%s\n\nCommands:\n%s\n", strings.TrimSpace(c.Long), commandList(root))
		fmt.Fprintf(w, "Usage:\n  toolwire COMMAND [flags] [arguments]\n\nRun 'toolwire COMMAND --help' for a command's flags, arguments and examples.\n")
	})
}

// commandList is one line per command of root, in commandOrder.
func commandList(root *cobra.Command) string {
	type entry struct{ name, short string }
	var list []entry
	var walk func(prefix string, cs []*cobra.Command)
	walk = func(prefix string, cs []*cobra.Command) {
		for _, c := range cs {
			if c.Hidden || c.Name() == "help" {
				continue
			}
			name := strings.TrimSpace(prefix + " " + c.Name())
			if c.HasSubCommands() {
				walk(name, c.Commands())
				continue
			}
			list = append(list, entry{name, c.Short})
		}
	}
	walk("", root.Commands())
	rank := func(name string) int {
		top, _, _ := strings.Cut(name, " ")
		if i := slices.Index(commandOrder, top); i >= 0 {
			return i
		}
		return len(commandOrder)
	}
	slices.SortStableFunc(list, func(a, b entry) int { return rank(a.name) - rank(b.name) })
	width := 0
	for _, e := range list {
		width = max(width, len(e.name))
	}
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, e.name, e.short)
	}
	return b.String()
}
