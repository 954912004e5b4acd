package jsontree

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// decodeStd is what Value stands in for: encoding/json with UseNumber.
func decodeStd(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func TestValue(t *testing.T) {
	lenient := &Options{AllowInvalidUTF8: true}
	tests := []struct {
		in   string
		opts *Options
		want any
	}{
		{`null`, nil, nil},
		{` true `, nil, true},
		{`false`, nil, false},
		{`-1.50e+3`, nil, json.Number("-1.50e+3")},
		{`"a\"b\\c\/\b\f\n\r\t"`, nil, "a\"b\\c/\b\f\n\r\t"},
		{`"\u00e9\ud83d\ude00 \ud800 \udc00x"`, nil, "é😀 \ufffd \ufffdx"},
		{`[]`, nil, []any{}},
		{`{}`, nil, map[string]any{}},
		{`[1, "x", [null], {"a": [ ]}]`, nil, []any{json.Number("1"), "x", []any{nil}, map[string]any{"a": []any{}}}},
		{`{"a": 1, "b": {"c": true}, "a": 2}`, nil, map[string]any{"a": json.Number("2"), "b": map[string]any{"c": true}}},
		{`{"k\u0031": "v", "k1": "w"}`, nil, map[string]any{"k1": "w"}},
		{"{\"k\xff\": \"a\xffb\", \"ok\": \"é\"}", lenient, map[string]any{"k\ufffd": "a\ufffdb", "ok": "é"}},
		{"[\"\\n\xe2\x82\", \"\xc3\\u00a9\"]", lenient, []any{"\n\ufffd\ufffd", "\ufffd©"}},
		{"\"a\xffb\"", lenient, "a\ufffdb"},
		{`"plain"`, lenient, "plain"},
	}
	for _, tt := range tests {
		tr := mustParse(t, tt.in, tt.opts)
		got := tr.Value(tr.Root())
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Value(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
		if std, err := decodeStd([]byte(tt.in)); err != nil || !reflect.DeepEqual(got, std) {
			t.Errorf("Value(%q) = %#v, encoding/json gives %#v, %v", tt.in, got, std, err)
		}
	}
}

// TestValueNode: Value of an inner node decodes that node alone.
func TestValueNode(t *testing.T) {
	tr := mustParse(t, `{"skip": "x", "args": {"city": "Paris", "days": [1, 2]}}`, nil)
	args := tr.Get(tr.Root(), "args")
	want := map[string]any{"city": "Paris", "days": []any{json.Number("1"), json.Number("2")}}
	if got := tr.Value(args); !reflect.DeepEqual(got, want) {
		t.Errorf("Value(args) = %#v, want %#v", got, want)
	}
	days := tr.Get(args, "days")
	if got, want := tr.Value(tr.Next(tr.First(days))), json.Number("2"); got != want {
		t.Errorf("Value(args.days.1) = %#v, want %#v", got, want)
	}
}

// TestValueDeep: Value decodes the deepest nesting Parse accepts.
func TestValueDeep(t *testing.T) {
	src := strings.Repeat(`{"a":[`, DefaultMaxDepth/2) + strings.Repeat(`]}`, DefaultMaxDepth/2)
	tr := mustParse(t, src, nil)
	want, err := decodeStd([]byte(src))
	if err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if got := tr.Value(tr.Root()); !reflect.DeepEqual(got, want) {
		t.Errorf("Value(%.20q...) differs from encoding/json", src)
	}
}

// TestValueFresh: each call returns values the caller may change.
func TestValueFresh(t *testing.T) {
	tr := mustParse(t, `{"a": [1]}`, nil)
	first := tr.Value(tr.Root()).(map[string]any)
	first["a"].([]any)[0] = "changed"
	first["b"] = true
	want := map[string]any{"a": []any{json.Number("1")}}
	if got := tr.Value(tr.Root()); !reflect.DeepEqual(got, want) {
		t.Errorf("Value after changing an earlier result = %#v, want %#v", got, want)
	}
}

func BenchmarkValue(b *testing.B) {
	src := []byte(`{"from": "CDG", "to": "JFK", "date": "2026-12-01", "seats": 2, "class": "business", "note": "window \"A\""}`)
	b.ReportAllocs()
	for b.Loop() {
		tr, err := Parse(src, &Options{AllowInvalidUTF8: true})
		if err != nil {
			b.Fatal(err)
		}
		_ = tr.Value(tr.Root())
	}
}
