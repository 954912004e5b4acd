package tool

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// foldSpace is strings.Join(strings.Fields(s), " "), fast or not.
func TestFoldSpace(t *testing.T) {
	for _, s := range []string{"", " ", "a", "Paris", "New York", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "a\u2003b", "a\u0085b", "é b", "a\vb\fc\rd", "a b c"} {
		want := strings.Join(strings.Fields(s), " ")
		if got := foldSpace(s); got != want {
			t.Errorf("foldSpace(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestCallBrief(t *testing.T) {
	tests := []struct {
		args string
		want string
	}{
		{`{"city": "New  York", "days": 3, "metric": true, "tags": ["a"], "opts": {}}`, "f(city=New York, days=3, metric=true, opts={…}, …)"},
		{`{"n": 1.5e3, "z": null, "s": "` + strings.Repeat("é", 40) + `"}`, "f(n=1.5e3, s=" + strings.Repeat("é", 31) + "…, z=null)"},
		{`[1]`, "f(…)"},
	}
	for _, tt := range tests {
		v, err := decodeJSON([]byte(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		// The names the schema declares change how the keys are found,
		// never the brief: none, exactly those sent, more, fewer.
		var sent []string
		if obj, ok := v.(map[string]any); ok {
			sent = slices.Sorted(maps.Keys(obj))
		}
		more := slices.Sorted(slices.Values(append([]string{"a", "zz"}, sent...)))
		fewer := sent[:len(sent)/2]
		for _, known := range [][]string{nil, sent, more, fewer} {
			if got := callBrief("f", v, known); got != tt.want {
				t.Errorf("callBrief(f, %s, %q) = %q, want %q", tt.args, known, got, tt.want)
			}
		}
	}
	if got := briefValue(json.Number("12")); got != "12" {
		t.Errorf("briefValue(12) = %q, want %q", got, "12")
	}
}

// marshalCompact writes what encoding/json's encoder writes with HTML
// escaping off, without its final newline.
func TestMarshalCompact(t *testing.T) {
	for _, v := range []any{
		map[string]any{"q": "a<b && c>d", "n": 1},
		"plain",
		"tab\tand\u2028line",
		"\x01",
		jsontext.Value(`{"a": "\u0026 <"}`),
		[]any{"é", nil, true, 1.5},
		struct {
			S string `json:"s"`
		}{"x&y"},
	} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(b.String(), "\n")
		got, err := marshalCompact(v)
		if err != nil || string(got) != want {
			t.Errorf("marshalCompact(%#v) = %s, %v, want %s", v, got, err, want)
		}
	}
}

// fillDefaults, which visits only the top-level properties that hold a
// default, fills in what applyDefaults over the whole schema fills in.
func TestFillDefaults(t *testing.T) {
	tests := []struct {
		params, args, want string
	}{
		{`{"type": "object", "properties": {"a": {"type": "string"}, "u": {"type": "string", "default": "c"}}}`, `{"a": "x"}`, `{"a":"x","u":"c"}`},
		{`{"type": "object", "properties": {"a": {"type": "string"}, "u": {"type": "string", "default": "c"}}}`, `{"u": "k"}`, `{"u":"k"}`},
		{`{"type": "object", "properties": {"o": {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}}}`, `{"o": {}}`, `{"o":{"n":3}}`},
		{`{"type": "object", "properties": {"o": {"type": "object", "properties": {"n": {"type": "integer", "default": 3}}}}}`, `{}`, `{}`},
		{`{"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object", "properties": {"k": {"default": true}}}}}}`, `{"l": [{}, {"k": false}]}`, `{"l":[{"k":true},{"k":false}]}`},
		{`{"type": "object", "allOf": [{"properties": {"z": {"default": 1}}}], "properties": {"y": {"default": 2}}}`, `{}`, `{"y":2,"z":1}`},
		{`{"type": "object", "$defs": {"d": {"type": "string", "default": "r"}}, "properties": {"p": {"$ref": "#/$defs/d"}, "q": {"type": "object", "properties": {"p": {"$ref": "#/$defs/d"}}}}}`, `{"q": {}}`, `{"p":"r","q":{"p":"r"}}`},
		{`{"type": "object", "properties": {"a": {"type": "string"}}}`, `{"a": "x"}`, `{"a":"x"}`},
	}
	for _, tt := range tests {
		c, err := compileSpec(Spec{Name: "f", Parameters: jsontext.Value(tt.params)})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := decodeJSON([]byte(tt.args))
		ref, _ := decodeJSON([]byte(tt.args))
		changed, refChanged := c.fillDefaults(got), applyDefaults(c.params, ref)
		g, _ := marshalCompact(got)
		r, _ := marshalCompact(ref)
		if string(g) != tt.want || string(r) != tt.want || changed != refChanged || changed != (tt.want != string(mustCompact(t, tt.args))) {
			t.Errorf("fillDefaults(%s) over %s = %s, %v; applyDefaults = %s, %v; want %s", tt.args, tt.params, g, changed, r, refChanged, tt.want)
		}
	}
}

func mustCompact(t *testing.T, s string) []byte {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	b, err := marshalCompact(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
