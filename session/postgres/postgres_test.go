package postgres_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/postgres"
	"github.com/toolwire/toolwire/session/sessiontest"
)

// serverURL returns the URL of the test server (see
// sessiontest.PostgresURL): the test fails in CI without one.
func serverURL(t testing.TB) string {
	t.Helper()
	return sessiontest.PostgresURL(t, ping)
}

// ping connects to url and pings it.
func ping(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx)
}

// newSchema creates an empty schema for one store and drops it when the
// test ends, so that tests share a server without sharing tables.
func newSchema(t testing.TB, url string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	name := fmt.Sprintf("tw_%x", b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	return name
}

// openPool opens a pool of at most 8 connections whose tables live in
// schema, and closes it when the test ends.
func openPool(t testing.TB, url, schema string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 8
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newPool opens a pool on a new schema of the test server (see newSchema
// and openPool).
func newPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	url := serverURL(t)
	return openPool(t, url, newSchema(t, url))
}

// newStore opens a store over pool, failing the test if it cannot.
func newStore(t testing.TB, pool *pgxpool.Pool) *postgres.Store {
	t.Helper()
	s, err := postgres.New(context.Background(), pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// numbered rewrites "?" placeholders as $1, $2, ...
func numbered(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

type openedStore struct {
	pool   *pgxpool.Pool
	schema string
	cfg    *postgres.Config
}

func TestConformance(t *testing.T) {
	url := serverURL(t)
	var (
		mu     sync.Mutex
		stores = map[session.Store]openedStore{}
	)
	open := func(t *testing.T, schema string, cfg *postgres.Config) (session.Store, error) {
		pool := openPool(t, url, schema)
		s, err := postgres.New(context.Background(), pool, cfg)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		stores[s] = openedStore{pool, schema, cfg}
		mu.Unlock()
		return s, nil
	}
	get := func(s session.Store) openedStore {
		mu.Lock()
		defer mu.Unlock()
		return stores[s]
	}
	sessiontest.Exercise(t, func(t *testing.T, c sessiontest.Config) session.Store {
		s, err := open(t, newSchema(t, url), &postgres.Config{Retention: c.Retention, Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, &sessiontest.Options{
		Exec: func(t *testing.T, s session.Store, query string, args ...any) {
			if _, err := get(s).pool.Exec(context.Background(), numbered(query), args...); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		},
		Reopen: func(t *testing.T, s session.Store) (session.Store, error) {
			o := get(s)
			return open(t, o.schema, o.cfg)
		},
	})
}
