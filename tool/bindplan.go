package tool

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// A setter stores a decoded JSON value (from [decodeUnique], of JSON
// without duplicate keys) into v, which holds the zero value of its type,
// exactly as json.Unmarshal would store the same JSON. It reports false, having perhaps stored part of it, when
// json.Unmarshal would fail or do something the setter does not model; the
// caller then decodes the JSON text with json.Unmarshal into a fresh zero
// value, so that encoding/json stays the reference for values and errors.
type setter func(v reflect.Value, x any) bool

// setterFor returns the setter of t, or nil when t holds anything it does
// not model: interfaces, embedded fields, ",string" options, []byte
// (base64), arrays, json.Number, and any type with JSON or text methods
// of its own (time.Time included). Such types always go through
// json.Unmarshal. FuzzBindPlan checks setters against json.Unmarshal.
func setterFor(t reflect.Type) setter {
	return newSetter(t, map[reflect.Type]*setter{})
}

func newSetter(t reflect.Type, seen map[reflect.Type]*setter) setter {
	if p, ok := seen[t]; ok { // a recursive type: resolved once built
		return func(v reflect.Value, x any) bool { return *p != nil && (*p)(v, x) }
	}
	if t == reflect.TypeFor[json.Number]() {
		return nil
	}
	if hasJSONMethods(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return setBool
	case reflect.String:
		return setString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return setNumber
	}
	p := new(setter)
	seen[t] = p
	switch t.Kind() {
	case reflect.Pointer:
		*p = pointerSetter(t, newSetter(t.Elem(), seen))
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			*p = sliceSetter(t, newSetter(t.Elem(), seen))
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && newSetter(t.Key(), seen) != nil { // no text methods on the key
			*p = mapSetter(t, newSetter(t.Elem(), seen))
		}
	case reflect.Struct:
		*p = structSetter(t, seen)
	}
	if *p == nil {
		return nil
	}
	return *p
}

// Each setter for a value kind ignores null, as json.Unmarshal does.

func setBool(v reflect.Value, x any) bool {
	b, ok := x.(bool)
	if ok {
		v.SetBool(b)
	}
	return ok || x == nil
}

func setString(v reflect.Value, x any) bool {
	s, ok := x.(string)
	if ok {
		v.SetString(s)
	}
	return ok || x == nil
}

// setNumber stores a number into an integer or floating-point v. It gives
// up where json.Unmarshal fails: on a number v cannot hold, such as a
// fraction or an exponent for an integer, or one out of v's range.
func setNumber(v reflect.Value, x any) bool {
	n, ok := x.(json.Number)
	if !ok {
		return x == nil
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || v.OverflowInt(i) {
			return false
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil || v.OverflowUint(u) {
			return false
		}
		v.SetUint(u)
	default:
		f, err := strconv.ParseFloat(string(n), v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			return false
		}
		v.SetFloat(f)
	}
	return true
}

// pointerSetter: null leaves the pointer nil; anything else is stored in
// a new value.
func pointerSetter(t reflect.Type, elem setter) setter {
	if elem == nil {
		return nil
	}
	return func(v reflect.Value, x any) bool {
		if x == nil {
			return true
		}
		p := reflect.New(t.Elem())
		if !elem(p.Elem(), x) {
			return false
		}
		v.Set(p)
		return true
	}
}

// sliceSetter: null leaves the slice nil; [] is an empty, non-nil slice.
func sliceSetter(t reflect.Type, elem setter) setter {
	if elem == nil {
		return nil
	}
	return func(v reflect.Value, x any) bool {
		if x == nil {
			return true
		}
		a, ok := x.([]any)
		if !ok {
			return false
		}
		s := reflect.MakeSlice(t, len(a), len(a))
		for i, item := range a {
			if !elem(s.Index(i), item) {
				return false
			}
		}
		v.Set(s)
		return true
	}
}

// mapSetter: null leaves the map nil; an object fills a new map, each
// element decoded into its zero value.
func mapSetter(t reflect.Type, elem setter) setter {
	if elem == nil {
		return nil
	}
	return func(v reflect.Value, x any) bool {
		if x == nil {
			return true
		}
		obj, ok := x.(map[string]any)
		if !ok {
			return false
		}
		m := reflect.MakeMapWithSize(t, len(obj))
		for k, item := range obj {
			e := reflect.New(t.Elem()).Elem()
			if !elem(e, item) {
				return false
			}
			key := reflect.New(t.Key()).Elem()
			key.SetString(k)
			m.SetMapIndex(key, e)
		}
		v.Set(m)
		return true
	}
}

// structSetter handles structs without embedded fields, whose exported
// fields have distinct JSON names and no ",string" option. A key that is
// not exactly a field's name gives up: json.Unmarshal would match it
// case-insensitively or ignore it.
func structSetter(t reflect.Type, seen map[reflect.Type]*setter) setter {
	type field struct {
		index int
		set   setter
	}
	fields := map[string]field{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") || (name != "" && !simpleTagName(name)) {
			return nil
		}
		if name == "" {
			name = f.Name
		}
		set := newSetter(f.Type, seen)
		if set == nil {
			return nil
		}
		if _, dup := fields[name]; dup {
			return nil
		}
		fields[name] = field{i, set}
	}
	return func(v reflect.Value, x any) bool {
		if x == nil {
			return true
		}
		obj, ok := x.(map[string]any)
		if !ok {
			return false
		}
		for k, item := range obj {
			f, ok := fields[k]
			if !ok || !f.set(v.Field(f.index), item) {
				return false
			}
		}
		return true
	}
}

// simpleTagName reports whether encoding/json takes a json tag's name as
// it is: letters, digits, and punctuation other than quotes, backslash
// and comma. Anything else, the setter leaves to json.Unmarshal.
func simpleTagName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) >= 0:
		default:
			return false
		}
	}
	return true
}
