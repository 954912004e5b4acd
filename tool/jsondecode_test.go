package tool

import (
	"reflect"
	"strings"
	"testing"
)

// TestFastDecode checks that fastDecode accepts the common shapes and
// agrees with encoding/json on them.
func TestFastDecode(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`{"from": "CDG", "seats": 2}`, true},
		{`[1, -0, 2.5e-3, 1E+9]`, true},
		{`{"s": "a\nb \"c\""}`, true},
		{`{"s": "\u00e9"}`, false}, // \u escapes are left to encoding/json
		{"{\"s\": \"\xff\"}", false},
		{`{"a": 1,}`, false},
		{`{} {}`, false},
		{`01`, false},
		{``, false},
		{strings.Repeat("[", maxFastDepth+2) + strings.Repeat("]", maxFastDepth+2), false},
	}
	for _, tt := range tests {
		got, ok := fastDecode([]byte(tt.in))
		if ok != tt.ok {
			t.Errorf("fastDecode(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := decodeJSONStd([]byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("fastDecode(%q) = %#v, want %#v (%v)", tt.in, got, want, err)
		}
	}
}

// FuzzDecodeJSON: whatever fastDecode accepts, encoding/json decodes to
// the same value; whatever encoding/json rejects, fastDecode rejects. The
// seed corpus (testdata/fuzz/FuzzDecodeJSON) covers every branch of
// fastDecode, accepted and refused.
func FuzzDecodeJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := fastDecode(b)
		want, err := decodeJSONStd(b)
		switch {
		case ok && err != nil:
			t.Fatalf("fastDecode(%q) = %#v, but encoding/json rejects it: %v", b, got, err)
		case ok && !reflect.DeepEqual(got, want):
			t.Fatalf("fastDecode(%q) = %#v, want %#v", b, got, want)
		}
	})
}
