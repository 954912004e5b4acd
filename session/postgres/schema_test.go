package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/postgres"
	"github.com/toolwire/toolwire/session/sessiontest"
)

func TestSchemaVersion(t *testing.T) {
	pool := newPool(t)
	for range 2 { // the second time applies nothing
		newStore(t, pool)
	}
	var version, rows int
	if err := pool.QueryRow(context.Background(), "SELECT MAX(version), COUNT(*) FROM toolwire_schema").Scan(&version, &rows); err != nil {
		t.Fatal(err)
	}
	if version != postgres.SchemaVersion || rows != postgres.SchemaVersion {
		t.Errorf("toolwire_schema: version %d in %d rows, want SchemaVersion %d", version, rows, postgres.SchemaVersion)
	}
}

// TestMigrateTogether opens stores on one empty schema from 8 pools at
// once: the advisory lock makes one of them migrate and the others find
// the schema done.
func TestMigrateTogether(t *testing.T) {
	url := serverURL(t)
	schema := newSchema(t, url)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		pool := openPool(t, url, schema)
		wg.Go(func() { _, errs[i] = postgres.New(context.Background(), pool, nil) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("New %d = %v", i, err)
		}
	}
}

func TestFutureSchema(t *testing.T) {
	ctx := context.Background()
	future := postgres.SchemaVersion + 1
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, pool *pgxpool.Pool)
	}{
		{"empty schema", func(t *testing.T, pool *pgxpool.Pool) {
			exec(t, pool, "CREATE TABLE toolwire_schema (version integer PRIMARY KEY, applied timestamptz NOT NULL)")
			exec(t, pool, "INSERT INTO toolwire_schema VALUES ($1, now())", future)
		}},
		{"schema with sessions", func(t *testing.T, pool *pgxpool.Pool) {
			s := newStore(t, pool)
			for _, id := range []string{"a", "b"} {
				if _, err := s.Create(ctx, session.Session{ID: id}); err != nil {
					t.Fatal(err)
				}
			}
			exec(t, pool, "INSERT INTO toolwire_schema VALUES ($1, now())", future)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := newPool(t)
			tc.prepare(t, pool)
			before := dump(t, pool)
			_, err := postgres.New(ctx, pool, nil)
			var se *session.SchemaError
			if !errors.As(err, &se) || !errors.Is(err, session.ErrSchema) || *se != (session.SchemaError{Found: future, Known: postgres.SchemaVersion}) {
				t.Fatalf("New on a schema of version %d = %v, want a *session.SchemaError{Found: %d, Known: %d}", future, err, future, postgres.SchemaVersion)
			}
			for _, want := range []string{fmt.Sprint("version ", future), fmt.Sprint("up to ", postgres.SchemaVersion)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("New = %q, want it to say %q", err, want)
				}
			}
			if after := dump(t, pool); after != before {
				t.Errorf("New on a future schema changed it:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func exec(t *testing.T, pool *pgxpool.Pool, query string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// dump describes the tables of the pool's schema and their row counts.
func dump(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	return sessiontest.Dump(t, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename", func(query string) ([]string, error) {
		rows, err := pool.Query(context.Background(), query)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[string])
	})
}

func TestConfig(t *testing.T) {
	for _, cfg := range []*postgres.Config{
		{Retention: session.Retention{MaxAge: -time.Hour}},
		{Retention: session.Retention{MaxBytes: -1}},
	} {
		if _, err := postgres.New(context.Background(), nil, cfg); err == nil || !strings.Contains(err.Error(), "Retention") {
			t.Errorf("New(%+v) = %v, want an error naming Retention", cfg, err)
		}
	}
	if _, err := postgres.New(context.Background(), nil, nil); err == nil {
		t.Error("New(nil pool) = nil error")
	}
}

// TestStoresShareADatabase writes 20 sessions in parallel through 5 stores,
// each with its own pool, as processes sharing one database would.
func TestStoresShareADatabase(t *testing.T) {
	url := serverURL(t)
	schema := newSchema(t, url)
	var stores []session.Store
	for range 5 {
		stores = append(stores, newStore(t, openPool(t, url, schema)))
	}
	sessiontest.Shared(t, stores...)
}

func TestProcesses(t *testing.T) {
	url := serverURL(t)
	sessiontest.Processes(t, func(t *testing.T) string {
		return newSchema(t, url)
	}, func(t *testing.T, schema string) session.Store {
		return newStore(t, openPool(t, url, schema))
	})
}

// TestOldSchemaMigrates opens a schema made by the first migration
// (migrations/0001_init.sql: a released migration never changes), holding a session
// written then: it gains the model columns, and the old session reads
// back with no model.
func TestOldSchemaMigrates(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	ddl, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	exec(t, pool, string(ddl))
	exec(t, pool, "CREATE TABLE toolwire_schema (version integer PRIMARY KEY, applied timestamptz NOT NULL)")
	exec(t, pool, "INSERT INTO toolwire_schema VALUES (1, now())")
	exec(t, pool, "INSERT INTO toolwire_sessions VALUES ('old', 'an old run', 'agent.yaml', 'running', 1, 0, 0, now(), now())")
	s, err := postgres.New(ctx, pool, nil)
	if err != nil {
		t.Fatalf("New on a schema of version 1 = %v", err)
	}
	sessiontest.Migrated(t, s)
	var version int
	if err := pool.QueryRow(ctx, "SELECT MAX(version) FROM toolwire_schema").Scan(&version); err != nil || version != postgres.SchemaVersion {
		t.Errorf("schema version after New = %d, %v; want %d", version, err, postgres.SchemaVersion)
	}
}
