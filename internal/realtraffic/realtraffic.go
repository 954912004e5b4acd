// Package realtraffic finds, for tests, the corpus of request bodies
// recorded against the real provider APIs, with the answer each got (see
// its README): ../shared/real-traffic beside the clone, or
// $TOOLWIRE_SHARED/real-traffic. It is data about the providers, read in
// place and never copied into the project.
package realtraffic

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

// Lookup returns the corpus folder, and whether it is there.
func Lookup() (string, bool) {
	dir := ""
	if shared := os.Getenv("TOOLWIRE_SHARED"); shared != "" {
		dir = filepath.Join(shared, "real-traffic")
	} else if _, file, _, ok := runtime.Caller(0); ok {
		// file is <clone>/internal/realtraffic/realtraffic.go.
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "real-traffic")
	}
	_, err := os.Stat(filepath.Join(dir, "README.md"))
	return dir, dir != "" && err == nil
}

// Dir returns the corpus folder. It skips t when there is none (a clone
// outside the workspace), and fails it under CI, which has the corpus.
func Dir(t testing.TB) string {
	t.Helper()
	dir, ok := Lookup()
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the real-traffic corpus is missing at %s (CI has ../shared beside the clone)", dir)
		}
		t.Skipf("no real-traffic corpus at %s: this clone has no ../shared beside it (or set TOOLWIRE_SHARED to the shared folder)", dir)
	}
	return dir
}

// Bodies returns the files of the bodies under kind ("accepted",
// "rejected", or "*" for both), each in its dialect's folder. It fails t
// when there are none.
func Bodies(t testing.TB, kind string) []string {
	t.Helper()
	dir := Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, kind, "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bodies under %s/%s: %v", dir, kind, err)
	}
	return files
}

// Dialect returns the dialect of a body file: its folder's name.
func Dialect(t testing.TB, file string) transcript.Dialect {
	t.Helper()
	d, err := transcript.ParseDialect(filepath.Base(filepath.Dir(file)))
	if err != nil {
		t.Fatalf("%s: its folder is not a dialect: %v", file, err)
	}
	return d
}

// Model returns the model a body was sent to, as SOURCES.md records it
// ("model `gemini-3-flash-preview`"), or "" when it records none.
func Model(t testing.TB, file string) string {
	t.Helper()
	dir := Dir(t)
	rel, err := filepath.Rel(dir, file)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := os.ReadFile(filepath.Join(dir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(sources)) {
		if !strings.HasPrefix(line, "- `"+filepath.ToSlash(rel)+"`") {
			continue
		}
		if _, after, ok := strings.Cut(line, "model `"); ok {
			model, _, _ := strings.Cut(after, "`")
			return model
		}
	}
	return ""
}
