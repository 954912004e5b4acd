// Package postgres is a [session.Store] in PostgreSQL, for sessions that
// many processes and machines share. It is the pgx driver package: it takes
// a *pgxpool.Pool that the program configures and opens.
//
//	pool, err := pgxpool.New(ctx, "postgres://toolwire@db/toolwire")
//	store, err := postgres.New(ctx, pool, nil)
//
// [New] applies the embedded schema migrations in one transaction, holding
// an advisory lock so that processes starting together migrate once, and
// records each in the table toolwire_schema; a database whose schema is
// newer than this build knows is refused with a [*session.SchemaError],
// and nothing is written to it. The tables live in the pool's search_path
// (its first schema), so that one database can hold several stores.
//
// A write is one transaction at READ COMMITTED that first locks the
// session's row: FOR UPDATE for a commit (writers of one session take
// turns; the second sees the first's version and gets a conflict), FOR
// SHARE for call records (the calls of one step are recorded in parallel,
// and no commit slips in between). A read is one REPEATABLE READ
// transaction and sees one state of the database. The pool bounds how many
// run at once.
//
// docs/sessions.md gives the schema.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/internal/sqlstore"
)

// SchemaVersion is the newest schema version this build knows: the number
// of the last migration in migrations/.
const SchemaVersion = 1

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the key of the advisory lock held while migrating.
const migrationLock = 0x746f6f6c77697265 // "toolwire"

// Config configures a [Store]. A nil *Config, or a zero field, means the
// documented default.
type Config struct {
	// Retention bounds how long offloaded results are kept; see
	// [Store.Prune]. The zero value keeps them all.
	Retention session.Retention
	// Now is the clock for the times the store sets. Default time.Now.
	Now func() time.Time
}

// WithDefaults returns a copy of c with every zero field set to its
// default. It accepts a nil c.
func (c *Config) WithDefaults() *Config {
	var out Config
	if c != nil {
		out = *c
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	return &out
}

func (c *Config) validate() error {
	if !c.Retention.Valid() {
		return errors.New("session/postgres: invalid config: Retention.MaxAge and Retention.MaxBytes must not be negative")
	}
	return nil
}

// Store is a [session.Store] in PostgreSQL. It is safe for concurrent use
// by goroutines, processes and machines that use the same database.
type Store struct {
	s *sqlstore.Store
}

var (
	_ session.Store   = (*Store)(nil)
	_ session.Catalog = (*Store)(nil)
	_ session.Results = (*Store)(nil)
	_ session.Pruner  = (*Store)(nil)
)

// New returns a store over pool after migrating the schema. A nil cfg
// means defaults. The store does not close pool.
func New(ctx context.Context, pool *pgxpool.Pool, cfg *Config) (*Store, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if pool == nil {
		return nil, errors.New("session/postgres: new: the pool is nil")
	}
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	d := &sqlstore.Dialect{
		Name:          "session/postgres",
		Numbered:      true,
		ForUpdate:     " FOR UPDATE",
		ForShare:      " FOR SHARE",
		Time:          func(t time.Time) any { return t },
		Unique:        unique,
		Damaged:       damaged,
		Migrations:    sub,
		SchemaTable:   "CREATE TABLE IF NOT EXISTS toolwire_schema (version integer PRIMARY KEY, applied timestamptz NOT NULL)",
		MigrationLock: fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", migrationLock),
	}
	s, err := sqlstore.Open(ctx, txs{pool}, d, sqlstore.Config{Retention: c.Retention, Now: c.Now})
	if err != nil {
		return nil, err
	}
	return &Store{s: s}, nil
}

// unique reports whether err is a unique_violation.
func unique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// damaged reports whether err is data_corrupted or index_corrupted.
func damaged(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "XX001" || pe.Code == "XX002")
}

// txs runs the store's transactions on connections of the pool.
type txs struct{ pool *pgxpool.Pool }

func (t txs) Write(ctx context.Context, f func(sqlstore.Querier) error) error {
	return t.run(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, f)
}

func (t txs) Read(ctx context.Context, f func(sqlstore.Querier) error) error {
	return t.run(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, f)
}

func (t txs) run(ctx context.Context, opts pgx.TxOptions, f func(sqlstore.Querier) error) error {
	return pgx.BeginTxFunc(ctx, t.pool, opts, func(tx pgx.Tx) error { return f(querier{tx}) })
}

// querier runs statements in a transaction.
type querier struct{ tx pgx.Tx }

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (q querier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return q.tx.Query(ctx, query, args...)
}

// Create stores a new session; see [session.Store].
func (s *Store) Create(ctx context.Context, in session.Session) (session.Session, error) {
	return s.s.Create(ctx, in)
}

// Commit writes a step in one transaction; see [session.Store].
func (s *Store) Commit(ctx context.Context, step *session.Step) (session.Session, error) {
	return s.s.Commit(ctx, step)
}

// Record writes call records in one transaction; see [session.Store].
func (s *Store) Record(ctx context.Context, id string, version int64, calls ...session.Call) error {
	return s.s.Record(ctx, id, version, calls...)
}

// Load reads a session in one transaction; see [session.Store].
func (s *Store) Load(ctx context.Context, id string) (*session.Snapshot, error) {
	return s.s.Load(ctx, id)
}

// List returns a page of sessions, newest first; see [session.Catalog].
func (s *Store) List(ctx context.Context, opts *session.ListOptions) (session.Page, error) {
	return s.s.List(ctx, opts)
}

// Show returns everything stored about a session; see [session.Catalog].
func (s *Store) Show(ctx context.Context, id string) (*session.Trace, error) {
	return s.s.Show(ctx, id)
}

// Delete removes a session and all it holds; see [session.Catalog].
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.s.Delete(ctx, id)
}

// PutResult stores an offloaded result; see [session.Results].
func (s *Store) PutResult(ctx context.Context, id string, r session.Offloaded) (string, error) {
	return s.s.PutResult(ctx, id, r)
}

// Result returns an offloaded result; see [session.Results].
func (s *Store) Result(ctx context.Context, id, ref string) (session.Offloaded, error) {
	return s.s.Result(ctx, id, ref)
}

// Prune deletes the offloaded results that [Config.Retention] no longer
// keeps, in one transaction; see [session.Pruner].
func (s *Store) Prune(ctx context.Context) (session.Pruned, error) {
	return s.s.Prune(ctx)
}
