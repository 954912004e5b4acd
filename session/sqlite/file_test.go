package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sessiontest"
	"github.com/toolwire/toolwire/session/sqlite"
)

// newFile returns a store over a new database file.
func newFile(t *testing.T) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sessions.db")
	return newStore(t, openDB(t, path)), path
}

// fill writes n sessions of one step each (an 8-call turn, about 16 KB),
// named s00, s01, ...
func fill(t *testing.T, s session.Store, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		id := fmt.Sprintf("s%02d", i)
		if _, err := s.Create(ctx, session.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, &session.Step{Session: id, Version: 1, Number: 1, Messages: sessiontest.Turn(i, 8, 1000)}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSchemaVersion(t *testing.T) {
	_, path := newFile(t)
	var version int
	if err := openDB(t, path).QueryRow("SELECT MAX(version) FROM toolwire_schema").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != sqlite.SchemaVersion {
		t.Errorf("the migrated schema is at version %d, but SchemaVersion = %d", version, sqlite.SchemaVersion)
	}
	// Opening again applies nothing twice.
	if _, err := sqlite.New(context.Background(), openDB(t, path), nil); err != nil {
		t.Fatalf("New on a migrated database = %v", err)
	}
	var rows int
	if err := openDB(t, path).QueryRow("SELECT COUNT(*) FROM toolwire_schema").Scan(&rows); err != nil || rows != sqlite.SchemaVersion {
		t.Errorf("toolwire_schema has %d rows, %v; want %d", rows, err, sqlite.SchemaVersion)
	}
}

func TestFutureSchema(t *testing.T) {
	ctx := context.Background()
	future := sqlite.SchemaVersion + 1
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
	}{
		{"empty database", func(t *testing.T, path string) {
			db := openDB(t, path)
			if _, err := db.Exec("CREATE TABLE toolwire_schema (version INTEGER PRIMARY KEY, applied INTEGER NOT NULL)"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO toolwire_schema VALUES (?, 0)", future); err != nil {
				t.Fatal(err)
			}
		}},
		{"database with sessions", func(t *testing.T, path string) {
			fill(t, newStore(t, openDB(t, path)), 2)
			if _, err := openDB(t, path).Exec("INSERT INTO toolwire_schema VALUES (?, 0)", future); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "future.db")
			tc.prepare(t, path)
			before := dump(t, path)
			_, err := sqlite.New(ctx, openDB(t, path), nil)
			var se *session.SchemaError
			if !errors.As(err, &se) || !errors.Is(err, session.ErrSchema) || *se != (session.SchemaError{Found: future, Known: sqlite.SchemaVersion}) {
				t.Fatalf("New on a database of schema version %d = %v, want a *session.SchemaError{Found: %d, Known: %d}", future, err, future, sqlite.SchemaVersion)
			}
			for _, want := range []string{fmt.Sprint("version ", future), fmt.Sprint("up to ", sqlite.SchemaVersion), path} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("New = %q, want it to say %q", err, want)
				}
			}
			if after := dump(t, path); after != before {
				t.Errorf("New on a future database changed it:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// dump describes a database's tables and their row counts.
func dump(t *testing.T, path string) string {
	t.Helper()
	db := openDB(t, path)
	return sessiontest.Dump(t, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name", func(query string) ([]string, error) {
		rows, err := db.Query(query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, rows.Err()
	})
}

func TestDamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	db := openDB(t, path)
	fill(t, newStore(t, db), 30)
	// Fold the WAL into the file, so that a copy of the file holds everything.
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"truncated to half", good[:len(good)/2]},
		{"truncated to 100 bytes", good[:100]},
		{"not a database", []byte("these are not the droids you are looking for\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "damaged.db")
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := sqlite.New(context.Background(), openDB(t, p), nil)
			if !errors.Is(err, session.ErrCorrupt) || !strings.Contains(err.Error(), "damaged") {
				t.Errorf("New on a damaged file = %v, want an error wrapping session.ErrCorrupt that says the file is damaged", err)
			}
		})
	}
	t.Run("one page overwritten", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "damaged.db")
		bad := append([]byte(nil), good...)
		at := len(bad) / 2 &^ 4095 // a page in the middle: messages of one or two sessions
		for i := at; i < at+4096; i++ {
			bad[i] = 0x55
		}
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := sqlite.New(context.Background(), openDB(t, p), nil)
		if err != nil {
			t.Fatalf("New = %v, want the damage to show only where it is", err)
		}
		var lost []string
		for i := range 30 {
			id := fmt.Sprintf("s%02d", i)
			_, err := s.Load(context.Background(), id)
			if err == nil {
				continue
			}
			lost = append(lost, id)
			var ce *session.CorruptError
			if !errors.As(err, &ce) || ce.Session != id || !strings.Contains(err.Error(), id) {
				t.Errorf("Load(%s) = %v, want a *session.CorruptError naming %s", id, err, id)
			}
		}
		if len(lost) == 0 || len(lost) > 2 {
			t.Errorf("sessions unreadable after one page was overwritten: %v, want one or two", lost)
		}
		if p, err := s.List(context.Background(), &session.ListOptions{Limit: 100}); err != nil || len(p.Sessions) != 30 {
			t.Errorf("List = %d sessions, %v; want all 30", len(p.Sessions), err)
		}
	})
}

func TestNotAFile(t *testing.T) {
	_, err := sqlite.New(context.Background(), openDB(t, ":memory:"), nil)
	if err == nil || !strings.Contains(err.Error(), "WAL") {
		t.Errorf("New on :memory: = %v, want an error saying the store needs a file in WAL mode", err)
	}
}

func TestConfig(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "x.db"))
	for _, tc := range []struct {
		name string
		cfg  *sqlite.Config
		want string
	}{
		{"negative age", &sqlite.Config{Retention: session.Retention{MaxAge: -time.Hour}}, "Retention"},
		{"negative size", &sqlite.Config{Retention: session.Retention{MaxBytes: -1}}, "Retention"},
		{"busy timeout", &sqlite.Config{BusyTimeout: time.Microsecond}, "BusyTimeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sqlite.New(context.Background(), db, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v) = %v, want an error naming %s", tc.cfg, err, tc.want)
			}
		})
	}
	if _, err := sqlite.New(context.Background(), nil, nil); err == nil {
		t.Error("New(nil db) = nil error")
	}
}

// TestStoresShareAFile writes 20 sessions in parallel through 5 stores,
// each with its own pool, on one file: the stores do not take turns
// in-process, so the writers of different stores meet on SQLite's lock as
// processes do, and must wait for it rather than fail with "database is
// locked".
func TestStoresShareAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	var stores []session.Store
	for range 5 {
		stores = append(stores, newStore(t, openDB(t, path)))
	}
	sessiontest.Shared(t, stores...)
}

func TestProcesses(t *testing.T) {
	sessiontest.Processes(t, func(t *testing.T) string {
		return filepath.Join(t.TempDir(), "processes.db")
	}, func(t *testing.T, path string) session.Store {
		return newStore(t, openDB(t, path))
	})
}

// TestOldSchemaMigrates opens a database made by the first schema
// (migrations/0001_init.sql: a released migration never changes),
// holding a session written then: it gains the model columns, and the old
// session reads back with no model.
func TestOldSchemaMigrates(t *testing.T) {
	ctx := context.Background()
	ddl, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v1.db")
	db := openDB(t, path)
	for _, q := range []string{
		string(ddl),
		"CREATE TABLE toolwire_schema (version INTEGER PRIMARY KEY, applied INTEGER NOT NULL)",
		"INSERT INTO toolwire_schema VALUES (1, 0)",
		"INSERT INTO toolwire_sessions VALUES ('old', 'an old run', 'agent.yaml', 'running', 1, 0, 0, 1700000000000000, 1700000000000000)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	s, err := sqlite.New(ctx, openDB(t, path), nil)
	if err != nil {
		t.Fatalf("New on a database of schema 1 = %v", err)
	}
	sessiontest.Migrated(t, s)
	var version int
	if err := db.QueryRow("SELECT MAX(version) FROM toolwire_schema").Scan(&version); err != nil || version != sqlite.SchemaVersion {
		t.Errorf("schema version after New = %d, %v; want %d", version, err, sqlite.SchemaVersion)
	}
}
