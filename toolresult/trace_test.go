package toolresult

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReduceTrace(t *testing.T) {
	tests := []struct {
		file   string
		ok     bool
		lang   string
		typ    string
		want   string // the reduced text
		frames int
	}{
		{"python.txt", true, "python", "ValueError", "ValueError: invalid literal for int() with base 10: 'abc'", 2},
		{"python-chained.txt", true, "python", "app.errors.UpstreamError", "lookup failed\napp.errors.UpstreamError: quotes API did not answer", 3},
		{"java.txt", true, "java", "java.lang.IllegalStateException", "java.lang.IllegalStateException: order o-00042 is already shipped (caused by java.sql.SQLException: row is locked)", 4},
		{"javascript.txt", true, "javascript", "TypeError", "TypeError: Cannot read properties of undefined (reading 'temp')\nNode.js v22.11.0", 3},
		{"go.txt", true, "go", "runtime error", "panic: runtime error: index out of range [5] with length 3", 2},
		{"none.txt", false, "", "", "", 0},
	}
	for _, tt := range tests {
		b, err := os.ReadFile("testdata/traces/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, tr, ok := ReduceTrace(string(b))
		if ok != tt.ok {
			t.Fatalf("ReduceTrace(%s) ok = %v, want %v (got %q)", tt.file, ok, tt.ok, got)
		}
		if !ok {
			if got != string(b) {
				t.Errorf("ReduceTrace(%s) changed text without a trace: %q", tt.file, got)
			}
			continue
		}
		if got != tt.want || tr.Language != tt.lang || tr.Type != tt.typ || tr.Frames != tt.frames {
			t.Errorf("ReduceTrace(%s) = %q, %+v\nwant %q, %s %s, %d frames", tt.file, got, tr, tt.want, tt.lang, tt.typ, tt.frames)
		}
	}
}

// FuzzReduceTrace holds the reducer to what the pipeline relies on: it
// never panics, never grows the text, keeps no frame line, and finds a
// type whenever it finds a trace.
func FuzzReduceTrace(f *testing.F) {
	for _, name := range []string{"python.txt", "python-chained.txt", "java.txt", "javascript.txt", "go.txt", "none.txt"} {
		b, err := os.ReadFile("testdata/traces/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("Traceback (most recent call last):\nX")
	f.Add("goroutine 1 [running]:\n")
	f.Fuzz(func(t *testing.T, text string) {
		got, tr, ok := ReduceTrace(text)
		if !ok {
			if got != text {
				t.Fatalf("ReduceTrace(%q) changed the text but found no trace", text)
			}
			return
		}
		if tr.Type == "" || tr.Language == "" {
			t.Fatalf("ReduceTrace(%q) found a trace without a type or language: %+v", text, tr)
		}
		if len(got) > len(text)+len("goroutine stack dump") {
			t.Fatalf("ReduceTrace(%q) = %q, longer than its input", text, got)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("ReduceTrace(%q) = %q, not valid UTF-8", text, got)
		}
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "\tat ") || strings.HasPrefix(l, "  File \"") {
				t.Fatalf("ReduceTrace(%q) = %q kept a frame line %q", text, got, l)
			}
		}
	})
}
