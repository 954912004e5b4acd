package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

func newConvertCmd(e *env) *cobra.Command {
	var to, from string
	cmd := &cobra.Command{
		Use:   "convert --to DIALECT [--from DIALECT] [FILE|-]",
		Short: "Convert a request body from one provider's dialect to another's",
		Long: `convert reads a provider request body (or a bare message array) and writes
the same conversation, tool definitions included, in another dialect:
openai-chat, openai-responses, anthropic or gemini. Ids are rewritten where
the target refuses them (on both the call and its result), tool messages are
regrouped, arguments strings become objects and back.

Generation options are carried under the target's names (max_tokens,
temperature, top_p, top_k, stop sequences, seed, penalties, reasoning
effort, stream; Gemini's are in generationConfig). Anything the target
cannot express — an option it lacks, unmodeled data — is reported on
standard error as a warning, never dropped silently; so are the body's
other fields (model, tool_choice, ...), which are not converted. If the converted body breaks a
rule of the target dialect, convert says so; toolwire check --fix repairs it.

--from defaults to auto: the dialect is found from the body's shape, and
convert says what decided; a body whose shape fits several dialects needs
--from.
Exit codes: 0 converted; 2 the input or the command line is unusable.`,
		Args: nArgs(0, 1, "at most one FILE (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return exitcode.Usagef("--to is required: openai-chat, openai-responses, anthropic or gemini")
			}
			target, err := dialectFlag("to", to, false)
			if err != nil {
				return err
			}
			source, err := dialectFlag("from", from, true)
			if err != nil {
				return err
			}
			data, name, err := readInput(e, args)
			if err != nil {
				return err
			}
			boundMemory(len(data))
			c, err := wire.Convert(data, source, target)
			if err != nil {
				return checkError(name, err, "--from")
			}
			if c.Detected != "" {
				fmt.Fprintf(e.stderr, "%s: from %s (detected: %s)\n", displayName(name), c.From, c.Detected)
			}
			for _, w := range c.Warnings {
				fmt.Fprintf(e.stderr, "warning: %s\n", w)
			}
			writeBody(e.stdout, c.Body)
			if !transcript.Accepted(c.Violations) {
				n := 0
				for _, v := range c.Violations {
					if !v.Warning {
						n++
					}
				}
				if transcript.Accepted(c.Left) {
					fmt.Fprintf(e.stderr, "note: the converted body breaks %d rule(s) of %s; run toolwire check --fix --dialect %s to repair it:\n", n, target, target)
				} else {
					fmt.Fprintf(e.stderr, "note: the converted body breaks %d rule(s) of %s, and toolwire check --fix --dialect %s cannot repair all of them:\n", n, target, target)
				}
				printViolations(e.stderr, c.Violations)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the target dialect: openai-chat, openai-responses, anthropic or gemini")
	cmd.Flags().StringVar(&from, "from", "auto", "the source dialect, or auto to detect it")
	return cmd
}
