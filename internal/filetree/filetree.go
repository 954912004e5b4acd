// Package filetree writes a folder of files for a test.
package filetree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes files under a new temporary folder of t and returns the
// folder. Each key is a slash path below it, its folders made as needed; a
// content that starts with "-> " makes a symbolic link to the rest instead.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
