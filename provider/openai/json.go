package openai

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolwire/toolwire/llm"
)

// A DecodeError says where a request body could not be decoded and why.
type DecodeError struct {
	// Path is the dotted path of the offending value ("messages.3.content"),
	// "" for the body itself.
	Path string
	// Offset is the byte offset in the body where the problem was found.
	Offset int
	// Err says what is wrong.
	Err error
}

// Error returns "openai: PATH: what is wrong".
func (e *DecodeError) Error() string {
	if e.Path == "" {
		return "openai: " + e.Err.Error()
	}
	return "openai: " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrSyntax is wrapped by every [DecodeError] caused by input that is not
// valid JSON.
var ErrSyntax = errors.New("invalid JSON")

// maxDepth bounds nesting, as encoding/json does, so that hostile input
// cannot exhaust the stack.
const maxDepth = 10000

// seg is one step of a path: a key, or an index when key is "".
type seg struct {
	key string
	idx int
}

// reader is a strict JSON reader that knows where it is. encoding/json
// matches keys case-insensitively, lets a duplicate key overwrite an earlier
// one and reports type errors without the path of the value; a lossless
// codec can do none of that.
type reader struct {
	b     []byte
	i     int
	depth int
	path  []seg
	keys  [][]byte // keys of the objects being read, for duplicate detection
	sbuf  []byte   // scratch for keys with escapes
}

func (r *reader) push(key string) { r.path = append(r.path, seg{key: key}) }
func (r *reader) pushIdx(i int)   { r.path = append(r.path, seg{idx: i}) }
func (r *reader) pop()            { r.path = r.path[:len(r.path)-1] }

// pathString renders the current path.
func (r *reader) pathString() string { return renderPath(r.path) }

func renderPath(path []seg) string {
	var sb strings.Builder
	for i, s := range path {
		if i > 0 {
			sb.WriteByte('.')
		}
		if s.key != "" {
			sb.WriteString(s.key)
		} else {
			sb.WriteString(strconv.Itoa(s.idx))
		}
	}
	return sb.String()
}

// errorf returns a DecodeError at the current path and offset.
func (r *reader) errorf(format string, args ...any) error {
	return &DecodeError{Path: r.pathString(), Offset: r.i, Err: fmt.Errorf(format, args...)}
}

// syntaxf returns a DecodeError for invalid JSON, with line and column.
func (r *reader) syntaxf(format string, args ...any) error {
	line, col := 1, 1
	for _, c := range r.b[:min(r.i, len(r.b))] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &DecodeError{Path: r.pathString(), Offset: r.i,
		Err: fmt.Errorf("%w at line %d, column %d (byte %d): %s", ErrSyntax, line, col, r.i, fmt.Sprintf(format, args...))}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (r *reader) ws() {
	for r.i < len(r.b) && isSpace(r.b[r.i]) {
		r.i++
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (r *reader) peek() byte {
	r.ws()
	if r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// found describes the next byte for a syntax error.
func (r *reader) found() string {
	if r.i >= len(r.b) {
		return "end of input"
	}
	c := r.b[r.i]
	if c < utf8.RuneSelf && c >= 0x20 {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// kindName names the kind of the value that starts with c, for messages
// such as "want a string, got an object".
func kindName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "a number"
	case 0:
		return "nothing"
	}
	return "invalid JSON"
}

// want returns the error for a value of the wrong kind. If the value is not
// even valid JSON, the syntax error wins.
func (r *reader) want(what string) error {
	c := r.peek()
	if kindName(c) == "invalid JSON" || c == 0 {
		return r.syntaxf("want a value, found %s", r.found())
	}
	return r.errorf("want %s, got %s", what, kindName(c))
}

func (r *reader) expect(c byte) error {
	if r.peek() != c {
		return r.syntaxf("want %q, found %s", c, r.found())
	}
	r.i++
	return nil
}

// null consumes a null and reports whether there was one.
func (r *reader) null() bool {
	if r.peek() == 'n' && bytes.HasPrefix(r.b[r.i:], []byte("null")) {
		r.i += 4
		return true
	}
	return false
}

func (r *reader) enter() error {
	r.depth++
	if r.depth > maxDepth {
		return r.syntaxf("nesting deeper than %d", maxDepth)
	}
	return nil
}

// object reads an object, calling field for each key with the reader at the
// value; field must consume the value. The key slice is valid only during
// the call. A duplicate key is an error.
func (r *reader) object(field func(key []byte) error) error {
	if r.peek() != '{' {
		return r.want("an object")
	}
	if err := r.enter(); err != nil {
		return err
	}
	r.i++
	base := len(r.keys)
	defer func() { r.keys = r.keys[:base]; r.depth-- }()
	if r.peek() == '}' {
		r.i++
		return nil
	}
	for {
		if r.peek() != '"' {
			return r.syntaxf("want an object key, found %s", r.found())
		}
		keyAt := r.i
		key, err := r.keyBytes()
		if err != nil {
			return err
		}
		for _, k := range r.keys[base:] {
			if bytes.Equal(k, key) {
				r.i = keyAt
				return r.errorf("duplicate key %q", key)
			}
		}
		r.keys = append(r.keys, key)
		if err := r.expect(':'); err != nil {
			return err
		}
		r.ws()
		if err := field(key); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return nil
		default:
			return r.syntaxf("want ',' or '}' after an object value, found %s", r.found())
		}
	}
}

// array reads an array, calling elem for each element with the reader at
// the element; elem must consume it.
func (r *reader) array(elem func(i int) error) error {
	if r.peek() != '[' {
		return r.want("an array")
	}
	if err := r.enter(); err != nil {
		return err
	}
	defer func() { r.depth-- }()
	r.i++
	if r.peek() == ']' {
		r.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := elem(n); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return nil
		default:
			return r.syntaxf("want ',' or ']' after an array element, found %s", r.found())
		}
	}
}

// keyBytes reads a string and returns its bytes, a sub-slice of the input
// when it has no escapes; else a fresh copy.
func (r *reader) keyBytes() ([]byte, error) {
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		c := r.b[j]
		if c == '"' {
			r.i = j + 1
			return r.b[start:j], nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	s, err := r.str()
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// str reads a string value. Invalid UTF-8 is kept as is; a lone surrogate
// escape becomes U+FFFD, as in encoding/json.
func (r *reader) str() (string, error) {
	if r.peek() != '"' {
		return "", r.want("a string")
	}
	start := r.i + 1
	j := start
	for ; j < len(r.b); j++ {
		c := r.b[j]
		if c == '"' {
			r.i = j + 1
			return string(r.b[start:j]), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	buf := append(r.sbuf[:0], r.b[start:j]...)
	for j < len(r.b) {
		c := r.b[j]
		switch {
		case c == '"':
			r.i = j + 1
			r.sbuf = buf
			return string(buf), nil
		case c < 0x20:
			r.i = j
			return "", r.syntaxf("control character %s in a string (escape it)", r.found())
		case c != '\\':
			buf = append(buf, c)
			j++
			continue
		}
		j++
		if j >= len(r.b) {
			break
		}
		switch e := r.b[j]; e {
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
			r1, ok := hex4(r.b[j+1:])
			if !ok {
				r.i = j - 1
				return "", r.syntaxf("invalid \\u escape in a string")
			}
			j += 4
			if utf16.IsSurrogate(r1) {
				if r2, ok := hex4After(r.b[j+1:]); ok {
					if dec := utf16.DecodeRune(r1, r2); dec != utf8.RuneError {
						r1 = dec
						j += 6
					} else {
						r1 = utf8.RuneError
					}
				} else {
					r1 = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r1)
		default:
			r.i = j
			return "", r.syntaxf("invalid escape \\%c in a string", e)
		}
		j++
	}
	r.i = len(r.b)
	return "", r.syntaxf("unterminated string")
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var v rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// hex4After reads a `\uXXXX` escape at the start of b.
func hex4After(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return hex4(b[2:])
}

// boolean reads true or false.
func (r *reader) boolean() (bool, error) {
	switch r.peek() {
	case 't':
		if bytes.HasPrefix(r.b[r.i:], []byte("true")) {
			r.i += 4
			return true, nil
		}
	case 'f':
		if bytes.HasPrefix(r.b[r.i:], []byte("false")) {
			r.i += 5
			return false, nil
		}
	}
	return false, r.want("a boolean")
}

// number checks the JSON number grammar and returns the number's bytes.
func (r *reader) number() ([]byte, error) {
	start := r.i
	j := r.i
	if j < len(r.b) && r.b[j] == '-' {
		j++
	}
	switch {
	case j < len(r.b) && r.b[j] == '0':
		j++
	case j < len(r.b) && r.b[j] >= '1' && r.b[j] <= '9':
		for j < len(r.b) && r.b[j] >= '0' && r.b[j] <= '9' {
			j++
		}
	default:
		r.i = j
		return nil, r.syntaxf("invalid number")
	}
	if j < len(r.b) && r.b[j] == '.' {
		j++
		d := j
		for j < len(r.b) && r.b[j] >= '0' && r.b[j] <= '9' {
			j++
		}
		if j == d {
			r.i = j
			return nil, r.syntaxf("invalid number: no digits after the decimal point")
		}
	}
	if j < len(r.b) && (r.b[j] == 'e' || r.b[j] == 'E') {
		j++
		if j < len(r.b) && (r.b[j] == '+' || r.b[j] == '-') {
			j++
		}
		d := j
		for j < len(r.b) && r.b[j] >= '0' && r.b[j] <= '9' {
			j++
		}
		if j == d {
			r.i = j
			return nil, r.syntaxf("invalid number: no digits in the exponent")
		}
	}
	r.i = j
	return r.b[start:j], nil
}

// compact reads any value and appends its canonical compact form to dst:
// no white space, strings re-encoded as [llm.AppendJSONString] writes them
// (so <, > and & stay unescaped and invalid UTF-8 becomes U+FFFD), numbers
// and key order as they were. Compacting canonical output gives the same
// bytes.
func (r *reader) compact(dst []byte) ([]byte, error) {
	switch c := r.peek(); c {
	case '{':
		dst = append(dst, '{')
		n := 0
		err := r.object(func(key []byte) error {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst, _ = llm.AppendJSONString(dst, string(key))
			dst = append(dst, ':')
			var err error
			dst, err = r.compact(dst)
			return err
		})
		return append(dst, '}'), err
	case '[':
		dst = append(dst, '[')
		err := r.array(func(i int) error {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			dst, err = r.compact(dst)
			return err
		})
		return append(dst, ']'), err
	case '"':
		s, err := r.str()
		if err != nil {
			return dst, err
		}
		dst, _ = llm.AppendJSONString(dst, s)
		return dst, nil
	case 't', 'f':
		b, err := r.boolean()
		if err != nil {
			return dst, err
		}
		return strconv.AppendBool(dst, b), nil
	case 'n':
		if r.null() {
			return append(dst, "null"...), nil
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		num, err := r.number()
		if err != nil {
			return dst, err
		}
		return append(dst, num...), nil
	}
	return dst, r.syntaxf("want a value, found %s", r.found())
}

// extra reads the value of a key the codec does not model. noted: the value
// says something (it is neither null nor an empty array or object); quiet:
// it is an empty array or object, kept with its element but not worth a
// note.
func (r *reader) extra() (noted, quiet bool, err error) {
	if r.null() {
		return false, false, nil
	}
	start := r.i
	if err := r.skip(); err != nil {
		return false, false, err
	}
	v := bytes.TrimSpace(r.b[start:r.i])
	if len(v) >= 2 && (v[0] == '[' || v[0] == '{') && len(bytes.TrimSpace(v[1:len(v)-1])) == 0 {
		return false, true, nil
	}
	return true, false, nil
}

// skip reads any value and discards it.
func (r *reader) skip() error {
	_, err := r.compact(nil)
	return err
}

// end checks that nothing but white space follows the value.
func (r *reader) end() error {
	if r.peek() != 0 {
		return r.syntaxf("unexpected data after the top-level value: %s", r.found())
	}
	return nil
}

// compactJSON returns the canonical compact form of a JSON document, or an
// error if it is not one valid JSON value.
func compactJSON(b []byte) ([]byte, error) {
	r := reader{b: b}
	out, err := r.compact(make([]byte, 0, len(b)))
	if err != nil {
		return nil, err
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	return out, nil
}

// compactPatched compacts a JSON object and patches it: a key whose patch
// is nil is dropped, any other patched key gets the patch as its value, and
// patched keys the object lacks are appended, in the order given.
func compactPatched(raw []byte, patch []keyPatch) ([]byte, error) {
	r := reader{b: raw}
	dst := make([]byte, 0, len(raw)+8)
	dst = append(dst, '{')
	n := 0
	seen := make([]bool, len(patch))
	err := r.object(func(key []byte) error {
		for i, p := range patch {
			if p.key == string(key) {
				seen[i] = true
				if err := r.skip(); err != nil {
					return err
				}
				if p.value == nil {
					return nil
				}
				if n > 0 {
					dst = append(dst, ',')
				}
				n++
				dst, _ = llm.AppendJSONString(dst, p.key)
				dst = append(dst, ':')
				dst = append(dst, p.value...)
				return nil
			}
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst, _ = llm.AppendJSONString(dst, string(key))
		dst = append(dst, ':')
		var err error
		dst, err = r.compact(dst)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, p := range patch {
		if !seen[i] && p.value != nil {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst, _ = llm.AppendJSONString(dst, p.key)
			dst = append(dst, ':')
			dst = append(dst, p.value...)
		}
	}
	return append(dst, '}'), nil
}

// keyPatch is one change for compactPatched.
type keyPatch struct {
	key   string
	value []byte // nil: drop the key
}

// an returns s with the indefinite article it takes.
func an(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) && !strings.HasPrefix(s, "us") {
		return "an " + s
	}
	return "a " + s
}
