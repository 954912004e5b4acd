package jsonx

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type goValue struct {
	Name    string            `json:"name"`
	Skip    string            `json:"skip,omitempty"`
	Zero    int               `json:"zero,omitempty"`
	Count   int64             `json:"count,string"`
	Tags    []string          `json:"tags"`
	Attrs   map[string]string `json:"attrs"`
	Num     json.Number       `json:"num"`
	Raw     json.RawMessage   `json:"raw"`
	When    time.Time         `json:"when"`
	Ptr     *int              `json:"ptr"`
	Bytes   []byte            `json:"bytes"`
	Nested  *goValue          `json:"nested,omitempty"`
	private int
}

// TestMarshalAsEncodingJSON holds Marshal to what encoding/json writes with
// HTML escaping off, for the values tool results are made of.
func TestMarshalAsEncodingJSON(t *testing.T) {
	seven := 7
	values := []any{
		nil, true, 3, -2.5, 1e21, "a<b>&c\u2028d", "bad\xffutf8", map[string]any{"k\xff": "\xfe"}, []any{}, []string(nil), map[string]any(nil),
		map[string]any{"z": 1, "a": json.Number("12.50"), "m": []any{json.Number("1e3"), nil}},
		map[int]string{2: "b", 10: "a"},
		goValue{Name: "x", Count: 9, private: 1, Num: "42", Raw: json.RawMessage(`{"k": [1, 2]}`),
			When: time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC), Ptr: &seven, Bytes: []byte("hi"),
			Nested: &goValue{Name: "inner", Tags: []string{"t"}}},
		[]goValue{{}},
		json.Number(""),
	}
	for _, v := range values {
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(v)
		if err != nil {
			t.Errorf("Marshal(%#v) error: %v", v, err)
			continue
		}
		// encoding/json writes the U+FFFD of invalid UTF-8 as an escape.
		w := strings.ReplaceAll(strings.TrimSuffix(want.String(), "\n"), `\ufffd`, "\uFFFD")
		if string(got) != w {
			t.Errorf("Marshal(%#v) =\n%s\nwant (encoding/json)\n%s", v, got, want.String())
		}
	}
}

func TestMarshalRefusesBadNumber(t *testing.T) {
	for _, n := range []json.Number{"abc", "1 2", "01", "{}"} {
		if got, err := Marshal(map[string]any{"n": n}); err == nil {
			t.Errorf("Marshal(Number(%q)) = %s, want an error", n, got)
		}
	}
}

func TestUnmarshal(t *testing.T) {
	var v struct {
		Name string      `json:"name"`
		N    json.Number `json:"n"`
		Any  any         `json:"any"`
	}
	if err := Unmarshal([]byte(`{"NAME": "x", "n": 1.50, "any": {"k": 2}}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Name != "x" || v.N != "1.50" {
		t.Errorf("Unmarshal = %+v, want name x (matched without case) and n 1.50 as written", v)
	}
	for _, bad := range []string{`{"name": "a", "name": "b"}`, "{\"name\": \"\xff\"}", `{"name": 1}`} {
		if err := Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("Unmarshal(%q) = nil error, want one", bad)
		}
	}
}

func TestMarshalIndentAsEncodingJSON(t *testing.T) {
	values := []any{
		map[string]any{"tools": []any{map[string]any{"name": "a<b", "empty": []any{}, "obj": map[string]any{}, "n": json.Number("1.0")}}, "none": nil},
		[]string{}, 3, goValue{Name: "x"},
	}
	for _, v := range values {
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		got, err := MarshalIndent(v, "  ")
		if err != nil {
			t.Errorf("MarshalIndent(%#v) error: %v", v, err)
			continue
		}
		if string(got) != want.String() {
			t.Errorf("MarshalIndent(%#v) =\n%s\nwant (encoding/json)\n%s", v, got, want.String())
		}
	}
}

func TestMarshalReplacing(t *testing.T) {
	tests := []struct {
		v        any
		want     string
		replaced bool
	}{
		{"ok é", `"ok é"`, false},
		{"bad\xff", "\"bad\uFFFD\"", true},
		{map[string]any{"k\xfe": 1}, "{\"k\uFFFD\":1}", true},
		{[]any{"\uFFFD"}, "[\"\uFFFD\"]", false},
	}
	for _, tt := range tests {
		got, replaced, err := MarshalReplacing(tt.v)
		if err != nil || string(got) != tt.want || replaced != tt.replaced {
			t.Errorf("MarshalReplacing(%#v) = %s, %v, %v, want %s, %v", tt.v, got, replaced, err, tt.want, tt.replaced)
		}
	}
}
