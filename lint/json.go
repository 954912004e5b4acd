package lint

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// kind is the JSON type of a value; its String is the JSON Schema name
// ("boolean", "object", ...).
type kind int

// The kinds of JSON value.
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

// get returns the member named key (there is at most one), or nil.
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
	b, _ := jsonx.AppendString(nil, s)
	return string(b)
}

// parse decodes one strict JSON value (internal/jsonx: duplicate names
// and invalid UTF-8 refused, as every reader of the module refuses them),
// keeping member order; trailing data after the value is an error.
func parse(data []byte) (*value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty input: want a JSON Schema object")
	}
	if err := jsonx.Valid(data); err != nil {
		_, _, what := jsonx.Describe(data, err)
		return nil, what
	}
	return read(jsonx.NewDecoder(data))
}

// read builds the value the valid document dec reads next. Its depth is
// that of the strict layer (jsontext's limit of 10,000 levels).
func read(dec *jsontext.Decoder) (*value, error) {
	switch k := dec.PeekKind(); k {
	case '{', '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		v, end := &value{kind: kindArray}, jsontext.Kind(']')
		if k == '{' {
			v.kind, end = kindObject, '}'
		}
		for dec.PeekKind() != end {
			var key string
			if k == '{' {
				tok, err := dec.ReadToken()
				if err != nil {
					return nil, err
				}
				key = tok.String()
			}
			e, err := read(dec)
			if err != nil {
				return nil, err
			}
			if k == '{' {
				v.members = append(v.members, member{key, e})
			} else {
				v.arr = append(v.arr, e)
			}
		}
		if v.kind == kindArray && v.arr == nil {
			v.arr = []*value{}
		}
		_, err := dec.ReadToken()
		return v, err
	case '0':
		raw, err := dec.ReadValue()
		return &value{kind: kindNumber, str: string(raw)}, err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return &value{kind: kindNull}, nil
	case 't', 'f':
		return &value{kind: kindBool, b: tok.Bool()}, nil
	}
	return &value{kind: kindString, str: tok.String()}, nil
}
