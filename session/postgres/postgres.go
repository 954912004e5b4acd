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
	"github.com/toolwire/toolwire/session/internal/rows"
	"github.com/toolwire/toolwire/session/internal/sqlstore"
)

// SchemaVersion is the newest schema version this build knows: the number
// of the last migration in migrations/.
const SchemaVersion = 2

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the key of the advisory lock held while migrating.
const migrationLock = 0x746f6f6c77697265 // "toolwire"

// Config configures a [Store]; see [session.StoreConfig]. A nil *Config,
// or a zero field, means the documented default.
type Config = session.StoreConfig

// Store is a [session.Store] in PostgreSQL, with the optional
// [session.Catalog], [session.Results] and [session.Pruner], over the
// same code as session/sqlite; each method is one transaction (see the
// package documentation). It is safe for concurrent use by goroutines,
// processes and machines that use the same database.
type Store struct {
	*store
}

// store is the shared SQL store, embedded under an unexported name so that
// its methods are Store's while the internal type stays out of the API.
type store = sqlstore.Store

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
	if err := rows.CheckConfig("session/postgres", c.Retention); err != nil {
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
	s, err := sqlstore.Open(ctx, txs{pool}, d, *c)
	if err != nil {
		return nil, err
	}
	return &Store{s}, nil
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
