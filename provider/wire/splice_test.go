package wire

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestSplice(t *testing.T) {
	tests := []struct {
		name, orig, enc, want string
	}{
		{"unchanged keeps every byte", "{\n  \"a\": [1, 2],\n  \"b\" : \"x\"\n}\n", `{"a":[1,2],"b":"x"}`, "{\n  \"a\": [1, 2],\n  \"b\" : \"x\"\n}\n"},
		{"a changed member; the others keep their bytes",
			"{\n  \"model\": \"m\",\n  \"messages\": [\n    {\"role\": \"user\"},\n    {\"role\": \"tool\", \"x\": 1}\n  ]\n}",
			`{"model":"m","messages":[{"role":"user"},{"role":"tool","x":2}]}`,
			"{\n  \"model\": \"m\",\n  \"messages\": [\n    {\"role\": \"user\"},\n    {\"role\": \"tool\", \"x\": 2}\n  ]\n}"},
		{"an inserted element; the next keeps its bytes",
			`[ {"a": 1}, {"c": 3} ]`, `[{"a":1},{"b":2},{"c":3}]`, `[ {"a": 1}, {"b":2}, {"c": 3} ]`},
		{"a moved element keeps its bytes",
			`[ {"a": 1}, {"b": 2}, {"c": 3} ]`, `[{"a":1},{"c":3},{"b":2}]`, `[ {"a": 1}, {"c": 3}, {"b": 2} ]`},
		{"a dropped member", `{ "a" : 1, "b" : 2 }`, `{"b":2}`, `{ "b" : 2 }`},
		{"an added member", `{"a": 1}`, `{"a":1,"z":true}`, `{"a": 1,"z": true}`},
		{"strings keep their escapes", `{"s": "caf\u00e9", "t": 1}`, `{"s":"caf\u00e9","t":2}`, `{"s": "caf\u00e9", "t": 2}`},
		{"invalid UTF-8 is kept", "{\"s\": \"a\xffb\", \"t\": 1}", "{\"s\":\"a\xffb\",\"t\":2}", "{\"s\": \"a\xffb\", \"t\": 2}"},
		{"a different kind is written as enc", `{"a": "x"}`, `{"a":["x"]}`, `{"a": ["x"]}`},
		{"empty containers", `{ "a" : [ ] }`, `{"a":[],"b":{}}`, `{ "a" : [ ], "b" : {} }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splice([]byte(tt.orig), []byte(tt.enc))
			if string(got) != tt.want {
				t.Errorf("splice(%q, %q)\n got %q\nwant %q", tt.orig, tt.enc, got, tt.want)
			}
			if !sameJSON(got, []byte(tt.enc)) {
				t.Errorf("splice holds other JSON than enc: %q", got)
			}
		})
	}
}

// FuzzSplice checks that splice's output is always enc's JSON, and orig's
// bytes when the two are the same JSON.
func FuzzSplice(f *testing.F) {
	f.Add([]byte("{\n \"a\": [1, {\"b\": null}],\n \"c\": \"d\"\n}"), []byte(`{"a":[{"b":null},1,2],"c":"e"}`))
	f.Add([]byte(`[ 1, 2, 3 ]`), []byte(`[3,2,1]`))
	f.Fuzz(func(t *testing.T, orig, enc []byte) {
		if !jsontext.Value(orig).IsValid(jsontext.AllowInvalidUTF8(true)) || !jsontext.Value(enc).IsValid(jsontext.AllowInvalidUTF8(true)) {
			t.Skip()
		}
		enc = bytes.Clone(enc)
		if err := (*jsontext.Value)(&enc).Compact(); err != nil {
			t.Skip()
		}
		got := splice(orig, enc)
		if !sameJSON(got, enc) {
			t.Fatalf("splice(%q, %q) = %q: not enc's JSON", orig, enc, got)
		}
		if sameJSON(orig, enc) && !bytes.Equal(got, orig) {
			t.Fatalf("splice(%q, %q) = %q: want orig's bytes", orig, enc, got)
		}
	})
}
