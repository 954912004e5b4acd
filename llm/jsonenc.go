package llm

import "github.com/go-json-experiment/json/jsontext"

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst, _ = jsontext.AppendQuote(dst, s)
	return dst
}

// isVerbatimJSON reports whether b can be embedded in a JSON document as is
// and read back byte for byte: one strictly valid JSON value (the decoder's
// rules: no duplicate names, valid UTF-8) without surrounding white space,
// which a JSON reader would drop.
func isVerbatimJSON(b []byte) bool {
	return len(b) > 0 && !isSpace(b[0]) && !isSpace(b[len(b)-1]) &&
		jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
