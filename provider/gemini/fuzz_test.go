package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode checks that Decode never panics, that whatever it accepts
// Encode can write, and that encode(decode(x)) is a fixed point after one
// cycle.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/roundtrip/*.json")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Decode(body)
		if err != nil {
			return
		}
		once, _, err := Encode(r)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)) error: %v", body, err)
		}
		r2, err := Decode(once)
		if err != nil {
			t.Fatalf("Decode(%q) error: %v (it came from Encode(Decode(%q)))", once, err, body)
		}
		twice, _, err := Encode(r2)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("Encode(Decode(%q)) = %q, %v, want %q", once, twice, err, once)
		}
	})
}
