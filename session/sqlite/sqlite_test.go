package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sessiontest"
	"github.com/toolwire/toolwire/session/sqlite"
)

// opened remembers how each store of a test was opened, for the suite's
// hooks.
type opened struct {
	mu     sync.Mutex
	stores map[session.Store]openedStore
}

type openedStore struct {
	path string
	db   *sql.DB
	cfg  *sqlite.Config
}

func (o *opened) get(s session.Store) openedStore {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stores[s]
}

// openDB opens the SQLite file at path with the modernc driver, and closes
// it when the test ends.
func openDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(8)
	t.Cleanup(func() { db.Close() })
	return db
}

// newStore opens a store over db, failing the test if it cannot.
func newStore(t testing.TB, db *sql.DB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.New(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (o *opened) open(t *testing.T, path string, cfg *sqlite.Config) (*sqlite.Store, error) {
	db := openDB(t, path)
	s, err := sqlite.New(context.Background(), db, cfg)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.stores[s] = openedStore{path, db, cfg}
	o.mu.Unlock()
	return s, nil
}

func TestConformance(t *testing.T) {
	o := &opened{stores: map[session.Store]openedStore{}}
	sessiontest.Exercise(t, func(t *testing.T, c sessiontest.Config) session.Store {
		s, err := o.open(t, filepath.Join(t.TempDir(), "sessions.db"), &sqlite.Config{Retention: c.Retention, Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, &sessiontest.Options{
		Exec: func(t *testing.T, s session.Store, query string, args ...any) {
			if _, err := o.get(s).db.Exec(query, args...); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		},
		Reopen: func(t *testing.T, s session.Store) (session.Store, error) {
			st := o.get(s)
			return o.open(t, st.path, st.cfg)
		},
	})
}
