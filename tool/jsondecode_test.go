package tool

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/jsontree"
)

// TestDecodeJSON: decodeUnique gives encoding/json's values and errors,
// and says whether the keys were unique.
func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    any
		unique  bool
		wantErr string
	}{
		{in: `{"from": "CDG", "seats": 2}`, want: map[string]any{"from": "CDG", "seats": json.Number("2")}, unique: true},
		{in: `[1, -0, 2.5e-3, 1E+9]`, want: []any{json.Number("1"), json.Number("-0"), json.Number("2.5e-3"), json.Number("1E+9")}, unique: true},
		{in: `{"s": "a\nb \"c\"", "e": "\u00e9\ud800"}`, want: map[string]any{"s": "a\nb \"c\"", "e": "é\ufffd"}, unique: true},
		{in: "{\"s\": \"\xff\"}", want: map[string]any{"s": "\ufffd"}, unique: true},
		{in: `{"a": {"b": 1, "b": 2}}`, want: map[string]any{"a": map[string]any{"b": json.Number("2")}}},
		{in: `{"n\u0061me": 1, "name": 2}`, want: map[string]any{"name": json.Number("2")}},
		{in: strings.Repeat("[", 100) + strings.Repeat("]", 100), want: nest(100), unique: true},
		{in: `{"a": 1,}`, wantErr: "invalid character '}' looking for beginning of object key string"},
		{in: `{} x`, wantErr: "unexpected data after the JSON value"},
		{in: `01`, wantErr: "unexpected data after the JSON value"},
		{in: ``, wantErr: "empty input"},
		{in: `{"a": "b`, wantErr: "unexpected EOF"},
	}
	for _, tt := range tests {
		got, unique, err := decodeUnique([]byte(tt.in))
		if tt.want == nil {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("decodeUnique(%q) = %v, want error %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) || unique != tt.unique {
			t.Errorf("decodeUnique(%q) = %#v, %v, %v, want %#v, %v", tt.in, got, unique, err, tt.want, tt.unique)
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

// FuzzDecodeJSON: decodeUnique decodes exactly what encoding/json decodes,
// to the same value, through jsontree; where encoding/json fails, it fails
// with encoding/json's error.
func FuzzDecodeJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _, err := decodeUnique(b)
		want, wantErr := decodeJSONStd(b)
		_, treeErr := jsontree.Parse(b, &jsontree.Options{AllowInvalidUTF8: true})
		switch {
		case (treeErr == nil) != (wantErr == nil):
			t.Fatalf("jsontree.Parse(%q) = %v, but encoding/json gives %v", b, treeErr, wantErr)
		case wantErr != nil && (err == nil || err.Error() != wantErr.Error()):
			t.Fatalf("decodeUnique(%q) = %v, want encoding/json's error %v", b, err, wantErr)
		case wantErr == nil && (err != nil || !reflect.DeepEqual(got, want)):
			t.Fatalf("decodeUnique(%q) = %#v, %v, want %#v", b, got, err, want)
		}
	})
}
