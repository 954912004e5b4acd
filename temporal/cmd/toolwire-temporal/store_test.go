package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// TestOpenStoreErrors: a --db the worker cannot use is refused as toolwire
// run refuses it: exit 2, in words a person reads, no package names.
func TestOpenStoreErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte("this is not a SQLite database, not at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{garbage, filepath.Join(dir, "no-such-folder", "x.db")} {
		_, _, err := openStore(context.Background(), name)
		var ee *exitcode.Error
		if !errors.As(err, &ee) || ee.Code != exitcode.Usage || !strings.HasPrefix(err.Error(), "--db") || strings.Contains(err.Error(), "session/") {
			t.Errorf("openStore(%s) = %v, want exit 2 naming --db, without a package name", name, err)
		}
	}
}
