package tool

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// maxFastDepth bounds the nesting fastDecode handles; deeper input goes
// to encoding/json, which has its own limit and error.
const maxFastDepth = 64

// fastDecode decodes the common shape of tool arguments and results —
// objects, arrays, strings with simple escapes, numbers (as json.Number),
// true, false, null — without reflection, allocating one string for the
// whole input and sharing it between the keys and string values. It
// reports ok=false, and does nothing else, for anything outside that
// shape or any malformed input: \u escapes, invalid UTF-8, nesting deeper
// than maxFastDepth, a duplicate key, a syntax error, trailing data.
// [decodeJSON] then falls back to encoding/json, which stays the reference
// for values and errors alike; FuzzDecodeJSON checks that whatever
// fastDecode accepts, encoding/json decodes to the same value.
//
// Refusing duplicate keys lets a [setter] stand in for json.Unmarshal on
// what fastDecode returns: json.Unmarshal into a struct sees every
// occurrence of a key, a map only the last.
func fastDecode(b []byte) (v any, ok bool) {
	if !utf8.Valid(b) {
		return nil, false
	}
	d := fastDecoder{s: string(b)}
	d.space()
	if v, ok = d.value(0); !ok {
		return nil, false
	}
	d.space()
	if d.i != len(d.s) {
		return nil, false
	}
	return v, true
}

type fastDecoder struct {
	s string
	i int
}

func (d *fastDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.s) || depth > maxFastDepth {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		return s, true
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return true, true
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return false, true
	case strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return nil, true
	}
	return nil, false
}

func (d *fastDecoder) object(depth int) (any, bool) {
	d.i++ // {
	m := make(map[string]any)
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false // encoding/json decodes both into a struct; see setter
		}
		m[k] = v
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *fastDecoder) array(depth int) (any, bool) {
	d.i++ // [
	// encoding/json decodes [] as an empty, non-nil slice.
	a := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// str reads a string at d.i (which holds the opening quote). A string
// without escapes is a substring of the input; one with simple escapes is
// copied; a \u escape gives up.
func (d *fastDecoder) str() (string, bool) {
	start := d.i + 1
	for j := start; j < len(d.s); j++ {
		switch c := d.s[j]; {
		case c == '"':
			d.i = j + 1
			return d.s[start:j], true
		case c == '\\':
			return d.escaped(start, j)
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// escaped finishes a string that has an escape at j.
func (d *fastDecoder) escaped(start, j int) (string, bool) {
	buf := make([]byte, 0, len(d.s)-start)
	buf = append(buf, d.s[start:j]...)
	for j < len(d.s) {
		c := d.s[j]
		switch {
		case c == '"':
			d.i = j + 1
			return string(buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			buf = append(buf, c)
			j++
			continue
		}
		if j+1 >= len(d.s) {
			return "", false
		}
		switch d.s[j+1] {
		case '"', '\\', '/':
			buf = append(buf, d.s[j+1])
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
		default: // \u (surrogates, replacement characters) and bad escapes
			return "", false
		}
		j += 2
	}
	return "", false
}

// number reads a number in JSON's grammar and keeps its text, as
// encoding/json's UseNumber does.
func (d *fastDecoder) number() (any, bool) {
	s, j := d.s, d.i
	if s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		j = digits(s, j)
	default:
		return nil, false
	}
	if j < len(s) && s[j] == '.' {
		k := digits(s, j+1)
		if k == j+1 {
			return nil, false
		}
		j = k
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digits(s, j)
		if k == j {
			return nil, false
		}
		j = k
	}
	n := json.Number(s[d.i:j])
	d.i = j
	return n, true
}

func digits(s string, j int) int {
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}
