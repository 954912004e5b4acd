package llm

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// AppendJSONString appends s to dst as a JSON string the way a model should
// read it: <, > and & are not escaped, non-ASCII text is kept as is, and
// invalid UTF-8 is replaced by U+FFFD. It reports whether any replacement was
// made.
func AppendJSONString(dst []byte, s string) ([]byte, bool) {
	const hex = "0123456789abcdef"
	replaced := false
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			replaced = true
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript string
		// literals; escape them as encoding/json does.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), replaced
}

// appendString is [AppendJSONString] without the report.
func appendString(dst []byte, s string) []byte {
	dst, _ = AppendJSONString(dst, s)
	return dst
}

// isVerbatimJSON reports whether b can be embedded in a JSON document as is
// and read back byte for byte: valid UTF-8, valid JSON, and no surrounding
// white space (which a JSON reader would drop).
func isVerbatimJSON(b []byte) bool {
	if len(b) == 0 || isSpace(b[0]) || isSpace(b[len(b)-1]) {
		return false
	}
	return utf8.Valid(b) && json.Valid(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimSpace trims JSON white space.
func trimSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }
