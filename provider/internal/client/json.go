package client

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/provider/internal/codec"
)

// Unmarshal decodes a response's JSON into v with the module's strict
// JSON layer (duplicate keys and invalid UTF-8 are errors; unknown fields
// are ignored, as providers add them all the time). Its errors name the
// path of the offending value in the response and the JSON kinds, never a
// Go type: "at choices.0.index: want a number, got a string".
func Unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	return jsonError(err)
}

func jsonError(err error) error {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		msg := strings.TrimPrefix(unwrapText(syn.Err), "jsontext: ")
		if msg == "" {
			msg = "invalid JSON"
		}
		where := ""
		if syn.JSONPointer != "" {
			where = ", in" + strings.TrimPrefix(at(syn.JSONPointer), " at")
		}
		return fmt.Errorf("invalid JSON at byte %d%s: %s", syn.ByteOffset, where, msg)
	}
	var sem *json.SemanticError
	if errors.As(err, &sem) {
		got := ""
		if sem.JSONKind != 0 {
			got = codec.Phrase(sem.JSONKind)
		}
		want := typeName(sem.GoType)
		switch {
		case want != "" && got != "":
			return fmt.Errorf("unexpected value%s: want %s, got %s", at(sem.JSONPointer), want, got)
		case sem.Err != nil:
			return fmt.Errorf("unexpected value%s: %s", at(sem.JSONPointer), strings.TrimPrefix(unwrapText(sem.Err), "json: "))
		}
		return fmt.Errorf("unexpected value%s", at(sem.JSONPointer))
	}
	return errors.New("invalid JSON")
}

func unwrapText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// at renders a JSON pointer as a dotted path: " at choices.0.delta".
func at(p jsontext.Pointer) string {
	if p == "" {
		return ""
	}
	s := strings.TrimPrefix(string(p), "/")
	s = strings.ReplaceAll(s, "/", ".")
	s = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	return " at " + s
}

func typeName(t reflect.Type) string {
	if t == nil {
		return ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return ""
}

// Text returns the text of a JSON value that may be a string or any other
// JSON (a tool call's arguments that a server sent as an object instead of
// a string): the string's contents, "" for null or nothing, else the value
// compacted.
func Text(v jsontext.Value) (string, error) {
	switch v.Kind() {
	case 0, 'n':
		return "", nil
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", jsonError(err)
		}
		return s, nil
	}
	c := v.Clone()
	if err := c.Compact(); err != nil {
		return "", jsonError(err)
	}
	return string(c), nil
}

// NotAnswer is the error for an answer whose body is not the JSON
// expected (what: "a Messages API response"): an HTML page from a proxy,
// or JSON of another shape, with the start of the body quoted.
func NotAnswer(what string, data []byte, err error) error {
	t := bytes.TrimSpace(data)
	if len(t) > 0 && t[0] == '<' {
		return fmt.Errorf("the answer is an HTML page (a proxy's?), not %s: %s", what, Excerpt(t, 120))
	}
	return fmt.Errorf("the answer is not %s: %w: %s", what, err, Excerpt(t, 120))
}

// IsJSON reports whether an answer is a JSON document rather than an
// event stream (a whole answer, or a server that ignored "stream").
func IsJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/json"
}
