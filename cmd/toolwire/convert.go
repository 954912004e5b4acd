package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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

Anything the target cannot express is reported on standard error as a
warning, never dropped silently; so are the body's other fields (model,
temperature, ...), which are not converted. If the converted body breaks a
rule of the target dialect, convert says so; toolwire check --fix repairs it.

--from defaults to auto: the dialect is guessed from the body's shape.
Exit codes: 0 converted; 2 the input or the command line is unusable.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageError("--to is required: openai-chat, openai-responses, anthropic or gemini")
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
			if source == "" {
				var why string
				if source, why, err = sniff(data); err != nil {
					return inputError(name, err)
				}
				fmt.Fprintf(e.stderr, "%s: from %s (detected: %s)\n", displayName(name), source, why)
			}
			src, err := decodeBody(data, source)
			if err != nil {
				return inputError(name, fmt.Errorf("as %s: %w", source, err))
			}
			var out []byte
			var warns []transcript.Warning
			if source == target {
				out, warns, err = src.encode()
			} else {
				req := conversation(src)
				fields, lost := src.extras()
				if len(fields) > 0 {
					fmt.Fprintf(e.stderr, "warning: not converted (set them for %s yourself): %s\n", target, strings.Join(fields, ", "))
				}
				for _, w := range lost {
					fmt.Fprintf(e.stderr, "warning: %s: lost in conversion: %s\n", orDash(w.Path), w.Message)
				}
				for _, v := range src.wire() {
					fmt.Fprintf(e.stderr, "warning: %s: %s in the source (%s) is not carried over\n", orDash(v.Path), v.Rule, v.Message)
				}
				if req.Thinking {
					fmt.Fprintf(e.stderr, "warning: extended thinking was on in the source; %s has its own setting for it\n", target)
					req.Thinking = false
				}
				out, warns, err = newBody(target, req, src.bare()).encode()
			}
			if err != nil {
				return &exitError{code: exitInternal, err: fmt.Errorf("encode as %s: %v", target, err)}
			}
			for _, w := range warns {
				fmt.Fprintf(e.stderr, "warning: %s\n", w)
			}
			fmt.Fprintf(e.stdout, "%s\n", out)
			if back, err := decodeBody(out, target); err == nil {
				if vs := checkBody(back, target); !transcript.Accepted(vs) {
					n := 0
					for _, v := range vs {
						if !v.Warning {
							n++
						}
					}
					fmt.Fprintf(e.stderr, "note: the converted body breaks %d rule(s) of %s; run toolwire check --fix --dialect %s to repair it:\n", n, target, target)
					printViolations(e.stderr, vs)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the target dialect: openai-chat, openai-responses, anthropic or gemini")
	cmd.Flags().StringVar(&from, "from", "auto", "the source dialect, or auto to detect it")
	return cmd
}
