package llm

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonReader is a small strict JSON reader for the persistence format.
// encoding/json matches object keys case-insensitively and lets a duplicate
// key overwrite an earlier one; a strict, lossless format can do neither, and
// reading tokens directly also gives every error its exact path.
type jsonReader struct {
	b []byte
	i int
}

// maxDepth bounds nesting, as encoding/json does, so that hostile input
// cannot exhaust the stack.
const maxDepth = 10000

// errSyntax is wrapped by every syntax error.
var errSyntax = errors.New("invalid JSON")

func (r *jsonReader) syntaxf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errSyntax, fmt.Sprintf(format, args...))
}

func (r *jsonReader) ws() {
	for r.i < len(r.b) && isSpace(r.b[r.i]) {
		r.i++
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (r *jsonReader) peek() byte {
	r.ws()
	if r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

func (r *jsonReader) describe() string {
	if r.i >= len(r.b) {
		return "end of input"
	}
	return strconv.QuoteRune(rune(r.b[r.i]))
}

func (r *jsonReader) expect(c byte) error {
	if r.peek() != c {
		return r.syntaxf("want %q, found %s", c, r.describe())
	}
	r.i++
	return nil
}

// enter consumes the opening delimiter of an object ('{') or array ('[').
func (r *jsonReader) enter(open byte) error {
	if r.peek() != open {
		want := "an object"
		if open == '[' {
			want = "an array"
		}
		return &kindError{want: want, found: r.kind()}
	}
	r.i++
	return nil
}

// more reports whether another member or element follows before the
// closing delimiter, consuming the separator. first is true before the first
// one.
func (r *jsonReader) more(close byte, first bool) (bool, error) {
	c := r.peek()
	if c == close {
		r.i++
		return false, nil
	}
	if !first {
		if c != ',' {
			return false, r.syntaxf("want ',' or %q, found %s", close, r.describe())
		}
		r.i++
	}
	return true, nil
}

// key reads an object key and its colon. The bytes are valid only until the
// next read; they alias the input when the key has no escapes.
func (r *jsonReader) key() ([]byte, error) {
	if r.peek() != '"' {
		return nil, r.syntaxf("want an object key, found %s", r.describe())
	}
	k, err := r.strBytes()
	if err != nil {
		return nil, err
	}
	return k, r.expect(':')
}

// strBytes reads a string like str, but returns a slice of the input when
// the string has no escapes and is valid UTF-8, without allocating.
func (r *jsonReader) strBytes() ([]byte, error) {
	if r.peek() != '"' {
		return nil, &kindError{want: "a string", found: r.kind()}
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		c := r.b[j]
		if c == '"' {
			if s := r.b[start:j]; utf8.Valid(s) {
				r.i = j + 1
				return s, nil
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	s, err := r.str()
	return []byte(s), err
}

// str reads a string. Invalid UTF-8 is replaced by U+FFFD, as encoding/json
// does.
func (r *jsonReader) str() (string, error) {
	if r.peek() != '"' {
		return "", &kindError{want: "a string", found: r.kind()}
	}
	r.i++
	start := r.i
	// Fast path: no escapes, valid UTF-8.
	for r.i < len(r.b) {
		c := r.b[r.i]
		if c == '"' {
			s := r.b[start:r.i]
			r.i++
			if utf8.Valid(s) {
				return string(s), nil
			}
			return string([]rune(string(s))), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", r.syntaxf("control character %#02x in string", c)
		}
		r.i++
	}
	buf := append([]byte(nil), r.b[start:r.i]...)
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			if !utf8.Valid(buf) {
				return string([]rune(string(buf))), nil
			}
			return string(buf), nil
		case c < 0x20:
			return "", r.syntaxf("control character %#02x in string", c)
		case c != '\\':
			buf = append(buf, c)
			r.i++
			continue
		}
		r.i++
		if r.i >= len(r.b) {
			break
		}
		e := r.b[r.i]
		r.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r1, ok := r.hex4()
			if !ok {
				return "", r.syntaxf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r1) {
				save := r.i
				if r.i+1 < len(r.b) && r.b[r.i] == '\\' && r.b[r.i+1] == 'u' {
					r.i += 2
					if r2, ok := r.hex4(); ok {
						if dec := utf16.DecodeRune(r1, r2); dec != utf8.RuneError {
							buf = utf8.AppendRune(buf, dec)
							continue
						}
					}
				}
				r.i = save
				r1 = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r1)
		default:
			return "", r.syntaxf("invalid escape \\%c", e)
		}
	}
	return "", r.syntaxf("unterminated string")
}

func (r *jsonReader) hex4() (rune, bool) {
	if r.i+4 > len(r.b) {
		r.i = len(r.b) // cut off by the end of input
		return 0, false
	}
	var v rune
	for _, c := range r.b[r.i : r.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | rune(c)
	}
	r.i += 4
	return v, true
}

// kind names the JSON kind of the next value, for error messages.
func (r *jsonReader) kind() string {
	switch r.peek() {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case 0:
		return "end of input"
	}
	return "a number"
}

// int reads a JSON integer.
func (r *jsonReader) int() (int, error) {
	r.ws()
	start := r.i
	raw, err := r.value(0)
	if err != nil {
		return 0, err
	}
	n, convErr := strconv.Atoi(string(raw))
	if convErr != nil {
		r.i = start
		return 0, &kindError{want: "an integer", found: r.kind()}
	}
	return n, nil
}

// value reads any JSON value, validating it, and returns its bytes.
func (r *jsonReader) value(depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, r.syntaxf("nesting deeper than %d", maxDepth)
	}
	c := r.peek()
	start := r.i
	var err error
	switch {
	case c == '{' || c == '[':
		err = r.container(depth)
	case c == '"':
		err = r.skipString()
	case c == '-' || '0' <= c && c <= '9':
		err = r.number()
	case c == 't':
		err = r.literal("true")
	case c == 'f':
		err = r.literal("false")
	case c == 'n':
		err = r.literal("null")
	default:
		err = r.syntaxf("want a value, found %s", r.describe())
	}
	if err != nil {
		return nil, err
	}
	return r.b[start:r.i], nil
}

// container reads an object or array and everything in it.
func (r *jsonReader) container(depth int) error {
	open := r.b[r.i]
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	r.i++
	for first := true; ; first = false {
		more, err := r.more(close, first)
		if err != nil || !more {
			return err
		}
		if open == '{' {
			if r.peek() != '"' {
				return r.syntaxf("want an object key, found %s", r.describe())
			}
			if err := r.skipString(); err != nil {
				return err
			}
			if err := r.expect(':'); err != nil {
				return err
			}
		}
		if _, err := r.value(depth + 1); err != nil {
			return err
		}
	}
}

func (r *jsonReader) skipString() error {
	r.i++
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			return nil
		case c == '\\':
			r.i++
			if r.i >= len(r.b) {
				return r.syntaxf("unterminated string")
			}
			switch r.b[r.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i++
			case 'u':
				r.i++
				if _, ok := r.hex4(); !ok {
					return r.syntaxf("invalid \\u escape")
				}
			default:
				return r.syntaxf("invalid escape \\%c", r.b[r.i])
			}
		case c < 0x20:
			return r.syntaxf("control character %#02x in string", c)
		default:
			r.i++
		}
	}
	return r.syntaxf("unterminated string")
}

func (r *jsonReader) number() error {
	digits := func() int {
		n := 0
		for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	if r.b[r.i] == '-' {
		r.i++
	}
	if r.i < len(r.b) && r.b[r.i] == '0' {
		r.i++
	} else if digits() == 0 {
		return r.syntaxf("invalid number")
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if digits() == 0 {
			return r.syntaxf("invalid number")
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			return r.syntaxf("invalid number")
		}
	}
	return nil
}

func (r *jsonReader) literal(lit string) error {
	if rest := r.b[r.i:]; len(rest) < len(lit) && string(rest) == lit[:len(rest)] {
		r.i = len(r.b) // cut off by the end of input
		return r.syntaxf("unexpected end of input")
	}
	if len(r.b)-r.i < len(lit) || string(r.b[r.i:r.i+len(lit)]) != lit {
		return r.syntaxf("want a value, found %s", r.describe())
	}
	r.i += len(lit)
	return nil
}

// kindError reports a value of the wrong JSON kind.
type kindError struct {
	want, found string
}

func (e *kindError) Error() string { return fmt.Sprintf("want %s, found %s", e.want, e.found) }
