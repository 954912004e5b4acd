package main

import (
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/toolresult"
)

func newRenderCmd(e *env) *cobra.Command {
	var example bool
	cmd := &cobra.Command{
		Use:   "render [--example] [FILE|-]",
		Short: "Render an observation envelope as the content of a tool message",
		Long: `render reads an observation envelope (docs/tool-message-protocol.md) as JSON,
checks it against the protocol, and prints the exact tool-message content a
model would read: compact, deterministic, with non-ASCII text kept as is.
--example renders a built-in example instead.`,
		Args: nArgs(0, 1, "at most one FILE (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var env toolresult.Envelope
			if example {
				if len(args) > 0 {
					return exitcode.Usagef("give --example or a FILE, not both")
				}
				env = exampleEnvelope()
			} else {
				data, name, err := readInput(e, args)
				if err != nil {
					return err
				}
				if env, err = toolresult.Parse(data); err != nil {
					return inputError(name, err)
				}
			}
			out, err := env.MarshalJSON()
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			fmt.Fprintln(e.stdout, string(out))
			return nil
		},
	}
	cmd.Flags().BoolVar(&example, "example", false, "render a built-in example envelope")
	return cmd
}

func exampleEnvelope() toolresult.Envelope {
	env := toolresult.Partial("search_flights(from=PAR, to=PEK, date=2026-12-01): 2 of 3 airlines answered; China Eastern timed out",
		jsontext.Value(`[{"flight":"AF128","depart":"10:35","price_eur":612},{"flight":"CA934","depart":"13:50","price_eur":577}]`))
	env.Suggestion = toolresult.Options("retry China Eastern alone in a few seconds", "present these two flights")
	env.Meta = toolresult.Meta{Source: "flights-api", Duration: 1840 * time.Millisecond}
	return env
}
