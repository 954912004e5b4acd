package tool

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// TestDecodeJSON: decodeJSON gives encoding/json's values (UseNumber) for
// strict JSON, and refuses what the module's one JSON layer refuses.
func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    any
		wantErr string
	}{
		{in: `{"from": "CDG", "seats": 2}`, want: map[string]any{"from": "CDG", "seats": json.Number("2")}},
		{in: `[1, -0, 2.5e-3, 1E+9]`, want: []any{json.Number("1"), json.Number("-0"), json.Number("2.5e-3"), json.Number("1E+9")}},
		{in: `{"s": "a\nb \"c\"", "e": "\u00e9"}`, want: map[string]any{"s": "a\nb \"c\"", "e": "é"}},
		{in: strings.Repeat("[", 100) + strings.Repeat("]", 100), want: nest(100)},
		{in: `{"e": "\ud800"}`, wantErr: "invalid surrogate"},
		{in: "{\"s\": \"\xff\"}", wantErr: "invalid UTF-8"},
		{in: `{"a": {"b": 1, "b": 2}}`, wantErr: `duplicate member name "b"`},
		{in: `{"n\u0061me": 1, "name": 2}`, wantErr: `duplicate member name "name"`},
		{in: `{"a": 1,}`, wantErr: "invalid character '}'"},
		{in: `{} x`, wantErr: "unexpected data after the top-level value: 'x'"},
		{in: `01`, wantErr: "unexpected data after the top-level value: '1'"},
		{in: ``, wantErr: "empty input"},
		{in: `{"a": "b`, wantErr: "the input ends before the document does"},
	}
	for _, tt := range tests {
		got, err := decodeJSON([]byte(tt.in))
		if tt.want == nil {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("decodeJSON(%q) = %v, want error %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("decodeJSON(%q) = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
}

// nest returns n nested empty arrays, as decoded.
func nest(n int) any {
	v := []any{}
	for range n - 1 {
		v = []any{v}
	}
	return v
}

// FuzzDecodeJSON: decodeJSON accepts exactly what jsonx.Valid accepts,
// and decodes it to what encoding/json (with UseNumber) gives.
func FuzzDecodeJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeJSON(b)
		if valid := jsonx.Valid(b) == nil; valid != (err == nil) {
			t.Fatalf("decodeJSON(%q) = %v, but jsonx.Valid says valid = %v", b, err, valid)
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeJSON(%q) = %#v, want %#v (%v)", b, got, want, err)
		}
	})
}
