package main

import (
	"github.com/toolwire/toolwire/transcript"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// dialectFlag parses a --dialect, --to or --from value; "auto" (when
// allowed) returns "".
func dialectFlag(flag, v string, auto bool) (transcript.Dialect, error) {
	if auto && v == "auto" {
		return "", nil
	}
	d, err := transcript.ParseDialect(v)
	if err != nil {
		want := "openai-chat, openai-responses, anthropic or gemini"
		if auto {
			want += " (or auto)"
		}
		return "", exitcode.Usagef("--%s %q: unknown dialect; want %s", flag, v, want)
	}
	return d, nil
}
