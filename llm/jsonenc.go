package llm

import "unicode/utf8"

// AppendJSONString appends s to dst as a JSON string the way a model should
// read it: <, > and & are not escaped, non-ASCII text is kept as is, and
// invalid UTF-8 is replaced by U+FFFD. It reports whether any replacement was
// made.
func AppendJSONString(dst []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return appendInvalidString(dst, s), true
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plain[c] {
			continue
		}
		if c >= utf8.RuneSelf {
			// U+2028 and U+2029 are valid JSON but end a JavaScript string
			// literal; escape them as encoding/json does.
			if c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				dst = append(dst, s[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0xf])
				i += 2
				start = i + 1
			}
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), false
}

const hexDigits = "0123456789abcdef"

// plain marks the bytes that need no escaping; bytes of multi-byte UTF-8
// sequences are not plain only so that U+2028 and U+2029 are seen.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\' && c != 0xE2
	}
	return t
}()

func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// appendInvalidString is the slow path of AppendJSONString for strings with
// invalid UTF-8.
func appendInvalidString(dst []byte, s string) []byte {
	var valid []byte
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size == 1 {
			valid = append(valid, "\uFFFD"...)
		} else {
			valid = append(valid, s[:size]...)
		}
		s = s[size:]
	}
	dst, _ = AppendJSONString(dst, string(valid))
	return dst
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
	if !utf8.Valid(b) {
		return false
	}
	r := jsonReader{b: b}
	_, err := r.value(0)
	return err == nil && r.i == len(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
