package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sessiontest"
)

// BenchmarkStore runs the store benchmarks on a file in the test's
// temporary directory (set TMPDIR to measure another disk), with SQLite's
// default durability: synchronous=FULL, an fsync per commit.
func BenchmarkStore(b *testing.B) {
	paths := map[session.Store]string{}
	sessiontest.Benchmark(b, func(b *testing.B) session.Store {
		path := filepath.Join(b.TempDir(), "bench.db")
		s := newStore(b, openDB(b, path))
		paths[s] = path
		return s
	}, func(b *testing.B, s session.Store, commit func()) int64 {
		// Empty the WAL, commit, and measure what the commit appended.
		db := openDB(b, paths[s])
		if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			b.Fatal(err)
		}
		commit()
		fi, err := os.Stat(paths[s] + "-wal")
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
		return fi.Size()
	})
}
