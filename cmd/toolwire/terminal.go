package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether w is a terminal, where output may be
// redrawn in place; a pipe, a file or a buffer is not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// printable returns s safe to write to a terminal: every character a
// terminal could act on is shown as a \uXXXX escape instead — the C0
// controls other than newline and tab (ESC starts the sequences that
// retitle a terminal or erase a line, CR returns over what was printed),
// DEL, the C1 controls and the bidi overrides and isolates that show text
// reversed. CR LF becomes a newline, and bytes that are not UTF-8 become
// U+FFFD. Text a model, a tool or a database row wrote goes through it on
// its way to a person; the escapes are JSON's, as in the tool arguments
// printed beside it.
func printable(s string) string {
	safe := true
	for _, r := range s {
		if unsafeRune(r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// The newline that follows is written next.
		case r == utf8.RuneError:
			b.WriteRune(utf8.RuneError)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports whether printable replaces r.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi overrides and isolates
		return true
	}
	return r == utf8.RuneError // a byte that is not UTF-8, kept as U+FFFD
}

// printableWriter writes through printable: for output that is all
// plain text for a person, such as toolwire sessions.
type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, printable(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
