package wire

import (
	"bytes"
	"fmt"
	"strings"
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

func TestSameJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`{"a": [1, 2]}`, `{"a":[1,2]}`, true},
		{`{"a": "x y"}`, `{"a":"xy"}`, false},
		{`{"a": "x\" y"}`, `{"a":"x\"y"}`, false},
		{`{"a": "x\\" , "b": 1}`, `{"a":"x\\","b":1}`, true},
		{`{"a": "x\\\" ,"}`, `{"a":"x\\\","}`, false},
		{`["` + strings.Repeat("long result ", 1000) + `", 1]`, `["` + strings.Repeat("long result ", 1000) + `",1]`, true},
		{`["` + strings.Repeat("long result ", 1000) + `", 1]`, `["` + strings.Repeat("long result ", 999) + `long resulT ",1]`, false},
		{"[1]", "[1] ", true},
		{"[1]", "[1]]", false},
	} {
		if got := sameJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("sameJSON(%.40q, %.40q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := sameJSON([]byte(tt.b), []byte(tt.a)); got != tt.want {
			t.Errorf("sameJSON(%.40q, %.40q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

// BenchmarkSplice: a repaired 1 MB Chat body (2 KB tool results), written
// back with the client's white space, and the same body compact.
func BenchmarkSplice(b *testing.B) {
	var msgs []string
	for i := range 500 {
		msgs = append(msgs, fmt.Sprintf(`{"role": "assistant", "tool_calls": [{"id": "c%d", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}`, i),
			fmt.Sprintf(`{"role": "tool", "tool_call_id": "c%d", "content": %q}`, i, strings.Repeat("a \"quoted\" result\n", 110)))
	}
	orig := []byte(`{"model": "gpt-4.1", "messages": [` + strings.Join(msgs, ", ") + `]}`)
	enc := bytes.Clone(orig)
	if err := (*jsontext.Value)(&enc).Compact(); err != nil {
		b.Fatal(err)
	}
	compact := bytes.Clone(enc)
	enc = bytes.Replace(enc, []byte(`"tool_call_id":"c499"`), []byte(`"tool_call_id":"c498"`), 1) // what a repair changed
	for _, tt := range []struct {
		name      string
		orig, enc []byte
	}{{"pretty", orig, enc}, {"compact", compact, enc}} {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.orig)))
			for b.Loop() {
				splice(tt.orig, tt.enc)
			}
		})
	}
}
