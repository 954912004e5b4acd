package llm

import "github.com/go-json-experiment/json/jsontext"

// AppendJSONString appends s to dst as a JSON string the way a model should
// read it: <, > and & are not escaped, non-ASCII text is kept as is, and
// invalid UTF-8 is replaced by U+FFFD. It reports whether any replacement was
// made.
//
// JSON writing is not the domain package's business: inside the module,
// use internal/jsonx.AppendString. Only the provider codecs still call
// this, until they move onto jsonx (issue 8); then it goes.
func AppendJSONString(dst []byte, s string) ([]byte, bool) {
	dst, err := jsontext.AppendQuote(dst, s)
	return dst, err != nil
}

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
