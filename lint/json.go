package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds how deeply nested a schema may be before lint gives up on
// it, so that hostile input cannot exhaust the stack.
const maxDepth = 200

// kind is the JSON type of a value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// value is a decoded JSON value that keeps the order of object members, so
// that findings come out in the order a reader sees them in the file.
type value struct {
	kind    kind
	b       bool
	str     string // string value, or the literal of a number
	arr     []*value
	members []member
}

type member struct {
	key string
	val *value
}

// get returns the last member named key (as encoding/json would), or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// has reports whether v is an object with a member named key.
func (v *value) has(key string) bool { return v.get(key) != nil }

// isObject reports whether v is a JSON object.
func (v *value) isObject() bool { return v != nil && v.kind == kindObject }

// number returns v as a float64, if it is a finite number.
func (v *value) number() (float64, bool) {
	if v == nil || v.kind != kindNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.str, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// isInteger reports whether v is a number with no fractional part.
func (v *value) isInteger() bool {
	f, ok := v.number()
	return ok && f == math.Trunc(f)
}

// stringValue returns v's string, if v is a string.
func (v *value) stringValue() (string, bool) {
	if v == nil || v.kind != kindString {
		return "", false
	}
	return v.str, true
}

// equal reports whether two JSON values are equal in the sense of JSON
// Schema: numbers by value, objects regardless of member order.
func equal(a, b *value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindNull:
		return true
	case kindBool:
		return a.b == b.b
	case kindNumber:
		x, ok1 := a.number()
		y, ok2 := b.number()
		if ok1 && ok2 {
			return x == y
		}
		return a.str == b.str
	case kindString:
		return a.str == b.str
	case kindArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !equal(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	default:
		keys := map[string]bool{}
		for _, m := range a.members {
			keys[m.key] = true
		}
		for _, m := range b.members {
			keys[m.key] = true
		}
		for k := range keys {
			if !equal(a.get(k), b.get(k)) {
				return false
			}
		}
		return true
	}
}

// String renders v as compact JSON, for messages.
func (v *value) String() string {
	var sb strings.Builder
	v.write(&sb)
	return sb.String()
}

func (v *value) write(sb *strings.Builder) {
	switch v.kind {
	case kindNull:
		sb.WriteString("null")
	case kindBool:
		sb.WriteString(strconv.FormatBool(v.b))
	case kindNumber:
		sb.WriteString(v.str)
	case kindString:
		sb.WriteString(quote(v.str))
	case kindArray:
		sb.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				sb.WriteByte(',')
			}
			e.write(sb)
		}
		sb.WriteByte(']')
	case kindObject:
		sb.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(quote(m.key))
			sb.WriteByte(':')
			m.val.write(sb)
		}
		sb.WriteByte('}')
	}
}

// quote renders s as a JSON string without escaping <, > and &.
func quote(s string) string {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' && s[i] != 0x7f
	}
	if plain && !strings.ContainsAny(s, "\u2028\u2029") {
		return `"` + s + `"`
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// errTooDeep reports a value nested deeper than maxDepth.
var errTooDeep = fmt.Errorf("nested deeper than %d levels", maxDepth)

// parse decodes one JSON value, keeping member order. Trailing data after
// the value is an error.
func parse(data []byte) (*value, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			return nil, errors.New("empty input: want a JSON Schema object")
		case errors.As(err, &se):
			return nil, fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
		case err != nil:
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		return nil, errors.New("invalid JSON")
	}
	p := parser{data: data}
	return p.value(0)
}

// parser decodes JSON that json.Valid has accepted, so it checks nothing
// but depth.
type parser struct {
	data []byte
	pos  int
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*value, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	p.skipSpace()
	switch c := p.data[p.pos]; c {
	case '{':
		p.pos++
		v := &value{kind: kindObject}
		for {
			p.skipSpace()
			if p.data[p.pos] == '}' {
				p.pos++
				return v, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.skipSpace()
			}
			key, err := p.string()
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			p.pos++ // ':'
			e, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, member{key, e})
		}
	case '[':
		p.pos++
		v := &value{kind: kindArray}
		for {
			p.skipSpace()
			if p.data[p.pos] == ']' {
				p.pos++
				return v, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
			}
			e, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.arr = append(v.arr, e)
		}
	case '"':
		str, err := p.string()
		if err != nil {
			return nil, err
		}
		return &value{kind: kindString, str: str}, nil
	case 't':
		p.pos += 4
		return &value{kind: kindBool, b: true}, nil
	case 'f':
		p.pos += 5
		return &value{kind: kindBool}, nil
	case 'n':
		p.pos += 4
		return &value{kind: kindNull}, nil
	default:
		start := p.pos
		for p.pos < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.pos]) >= 0 {
			p.pos++
		}
		return &value{kind: kindNumber, str: string(p.data[start:p.pos])}, nil
	}
}

// string decodes the string at p.pos.
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	escaped := false
	for p.data[p.pos] != '"' {
		if p.data[p.pos] == '\\' {
			escaped = true
			p.pos++
		}
		p.pos++
	}
	p.pos++ // closing quote
	raw := p.data[start:p.pos]
	if !escaped && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}
