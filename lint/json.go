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

	"github.com/toolwire/toolwire/internal/jsontree"
)

// maxDepth bounds how deeply nested a schema may be before lint gives up on
// it, so that hostile input cannot exhaust the stack.
const maxDepth = 200

// kind is the JSON type of a value; its String is the JSON Schema name
// ("boolean", "object", ...).
type kind = jsontree.Kind

// The kinds of JSON value.
const (
	kindNull   = jsontree.Null
	kindBool   = jsontree.Bool
	kindNumber = jsontree.Number
	kindString = jsontree.String
	kindArray  = jsontree.Array
	kindObject = jsontree.Object
)

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

// parse decodes one JSON value, keeping member order. It accepts what
// encoding/json accepts (invalid UTF-8 included, replaced as encoding/json
// replaces it); trailing data after the value is an error.
func parse(data []byte) (*value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty input: want a JSON Schema object")
	}
	t, err := jsontree.Parse(data, &jsontree.Options{AllowInvalidUTF8: true})
	if err != nil {
		return nil, err
	}
	return convert(t, t.Root(), 0)
}

// convert builds the value of node n, which sits depth levels deep.
func convert(t *jsontree.Tree, n jsontree.Node, depth int) (*value, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	v := &value{kind: t.Kind(n)}
	switch v.kind {
	case kindBool:
		v.b = t.IsTrue(n)
	case kindNumber:
		v.str = string(t.Raw(n))
	case kindString:
		v.str = jsontree.ValidUTF8(t.Str(n))
	case kindArray:
		v.arr = make([]*value, 0, t.Len(n))
		for c := t.First(n); c != jsontree.None; c = t.Next(c) {
			e, err := convert(t, c, depth+1)
			if err != nil {
				return nil, err
			}
			v.arr = append(v.arr, e)
		}
	case kindObject:
		v.members = make([]member, 0, t.Len(n))
		for c := t.First(n); c != jsontree.None; c = t.Next(c) {
			e, err := convert(t, c, depth+1)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, member{jsontree.ValidUTF8(t.Key(c)), e})
		}
	}
	return v, nil
}
