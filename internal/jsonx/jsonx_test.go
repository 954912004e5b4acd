package jsonx

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

func TestError(t *testing.T) {
	tests := []struct {
		in, want string
		offset   int64
	}{
		{"{\"messages\": [\n  {\"role\": \"user\", \"role\": \"x\"}]}", `t: messages.0.role: invalid JSON at line 2, column 20: duplicate member name "role" (at byte 34)`, 34},
		{`{"a": [1, 2,]}`, `t: a.2: invalid JSON at line 1, column 13: invalid character ']' at start of value`, 12},
		{"{\"a\": \"\xff\"}", `t: a: invalid JSON at line 1, column 8: invalid UTF-8`, 7},
		{`{"a": 1`, `t: invalid JSON at line 1, column 8: the input ends before the document does (at byte 7)`, 7},
		{"  \n", `t: empty input: want a JSON document`, -1},
	}
	for _, tt := range tests {
		dec := NewDecoder([]byte(tt.in))
		_, err := dec.ReadValue()
		de := Error("t", llm.Dotted, []byte(tt.in), err)
		if got := de.Error(); !strings.HasPrefix(got, tt.want) || de.Offset != tt.offset {
			t.Errorf("Error(%q) = %q at %d, want %q at %d", tt.in, got, de.Offset, tt.want, tt.offset)
		}
	}
}

func TestPointerPath(t *testing.T) {
	if got := PointerPath(jsontext.Pointer("/messages/4/content/0/a~1b")).Format(llm.Indexed); got != "messages[4].content[0].a/b" {
		t.Errorf("PointerPath = %q", got)
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for valid; else part of Describe's problem
		off  int64
	}{
		{` {"a": [1, "x", null]} `, "", 0},
		{`{"a": 1, "a": 2}`, `duplicate member name "a"`, 9},
		{`{"a": 1} {"b": 2}`, "unexpected data after the top-level value: '{'", 9},
		{`01`, "unexpected data after the top-level value: '1'", 1},
		{"\"\xff\"", "invalid UTF-8", 1},
		{`[1, 2`, "the input ends before the document does", 5},
		{" ", "empty input", -1},
	}
	for _, tt := range tests {
		err := Valid([]byte(tt.in))
		if tt.want == "" {
			if err != nil {
				t.Errorf("Valid(%q) = %v, want nil", tt.in, err)
			}
			continue
		}
		off, _, what := Describe([]byte(tt.in), err)
		if err == nil || !strings.Contains(what.Error(), tt.want) || off != tt.off {
			t.Errorf("Valid(%q) = %v, described as %v at %d; want %q at %d", tt.in, err, what, off, tt.want, tt.off)
		}
	}
}

func TestDecodeAny(t *testing.T) {
	got, err := DecodeAny([]byte(`{"n": 1.50, "s": "\u00e9", "a": [], "o": {"t": true, "z": null}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": json.Number("1.50"), "s": "é", "a": []any{}, "o": map[string]any{"t": true, "z": nil}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DecodeAny = %#v, want %#v", got, want)
	}
	for _, in := range []string{`{"a": 1,}`, `{"a": 1, "a": 1}`, `[1] 2`} {
		_, err := DecodeAny([]byte(in))
		if verr := Valid([]byte(in)); err == nil || verr == nil || err.Error() != verr.Error() {
			t.Errorf("DecodeAny(%q) = %v, want Valid's error %v", in, err, verr)
		}
	}
}

func TestValidUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ok é", "ok é"},
		{"a\xffb", "a\ufffdb"},
		{"\xf0\x9f0", "\ufffd\ufffd0"},
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"},
	}
	for _, tt := range tests {
		if got := ValidUTF8(tt.in); got != tt.want {
			t.Errorf("ValidUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+tt.in+`"`), &want); err != nil || want != tt.want {
			t.Errorf("json.Unmarshal(%q) = %q, %v, want %q", tt.in, want, err, tt.want)
		}
	}
}

// FuzzDecodeAny holds the strict layer to encoding/json: it accepts what
// encoding/json accepts but for duplicate names, invalid UTF-8 and lone
// surrogate escapes, decodes it to the same value, and places every error
// within the input. The seeds in testdata/fuzz/FuzzDecodeAny came with
// the parser it replaced (internal/jsontree's FuzzParse).
func FuzzDecodeAny(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,"x\u00e9\n",true,false,null],"b":{}}`, `"\ud83d\ude00"`, ` [ ] `,
		`{"a":1}x`, `{"a" 1}`, `1e400`, "\"\xff\"", `{"a":1,"a":2}`, `[01]`, `"\ud800"`, "{\"k\":\"\t\"}", `-0.0E+1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeAny(data)
		if verr := Valid(data); (err == nil) != (verr == nil) {
			t.Fatalf("DecodeAny(%q) = %v, Valid = %v; want both to accept it or both to refuse it", data, err, verr)
		}
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("DecodeAny(%q) accepts what encoding/json refuses", data)
			}
		}
		if err != nil {
			off, _, what := Describe(data, err)
			if off < -1 || off > int64(len(data)) || off == -1 && len(strings.TrimSpace(string(data))) > 0 {
				t.Fatalf("Describe(%q) = %v at %d, outside the input", data, what, off)
			}
			if json.Valid(data) && !strings.Contains(what.Error(), "duplicate member name") && !strings.Contains(what.Error(), "UTF-8") && !strings.Contains(what.Error(), "surrogate") {
				t.Fatalf("DecodeAny(%q) = %v; encoding/json accepts it, and it is not a duplicate name or invalid UTF-8", data, what)
			}
			return
		}
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json Decode(%q) = %v after json.Valid accepted it", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeAny(%q) = %#v, want %#v (encoding/json)", data, got, want)
		}
	})
}
