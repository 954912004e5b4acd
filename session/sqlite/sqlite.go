// Package sqlite is a [session.Store] in a SQLite database: the embedded
// default, one file that several processes may share.
//
// The store takes a *sql.DB and never imports a SQL driver: the program
// chooses one and opens the database, as river's drivers take a pool. The
// pure-Go modernc.org/sqlite is the one toolwire's command and tests use:
//
//	import _ "modernc.org/sqlite"
//
//	db, err := sql.Open("sqlite", "toolwire.db")
//	store, err := sqlite.New(ctx, db, nil)
//
// [New] puts the database in WAL mode (readers never wait for the writer,
// and the writer never waits for readers) and applies the embedded schema
// migrations, recording each in the table toolwire_schema; a database
// whose schema is newer than this build knows is refused with a
// [*session.SchemaError], and nothing is written to it.
//
// Every write is one transaction begun with BEGIN IMMEDIATE, so that it
// takes the database's write lock before it reads what it will change and
// never fails half-way on a lock held by another writer. Writers of one
// [Store] take turns in the process; writers in other processes wait up to
// [Config.BusyTimeout] for the lock. A read is one transaction too, and
// sees one state of the database. Each transaction runs on its own
// connection of the pool: bound the pool with db.SetMaxOpenConns (readers
// run in parallel, writers one at a time), and keep the database on a
// local file system (WAL mode needs shared memory between processes).
//
// docs/sessions.md gives the schema.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/internal/rows"
	"github.com/toolwire/toolwire/session/internal/sqlstore"
)

// SchemaVersion is the newest schema version this build knows: the number
// of the last migration in migrations/.
const SchemaVersion = 2

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Config configures a [Store]. A nil *Config, or a zero field, means the
// documented default.
type Config struct {
	// Retention bounds how long offloaded results are kept; see
	// [session.Pruner]. The zero value keeps them all.
	Retention session.Retention
	// Now is the clock for the times the store sets. Default time.Now.
	Now func() time.Time
	// BusyTimeout is how long a transaction waits for a lock that another
	// process holds before it fails. Default 10s.
	BusyTimeout time.Duration
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
	if out.BusyTimeout == 0 {
		out.BusyTimeout = 10 * time.Second
	}
	return &out
}

func (c *Config) validate() error {
	var problems []string
	if c.BusyTimeout < time.Millisecond {
		problems = append(problems, fmt.Sprintf("BusyTimeout %v is below 1ms", c.BusyTimeout))
	}
	return rows.CheckConfig("session/sqlite", c.Retention, problems...)
}

// Store is a [session.Store] in a SQLite database, with the optional
// [session.Catalog], [session.Results] and [session.Pruner], over the
// same code as session/postgres; each method is one transaction (see the
// package documentation). It is safe for concurrent use by goroutines,
// and by processes that open the same file.
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

// New returns a store over db, a SQLite database opened by the caller,
// after putting it in WAL mode and migrating its schema. A nil cfg means
// defaults. The store does not close db.
func New(ctx context.Context, db *sql.DB, cfg *Config) (*Store, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if db == nil {
		return nil, errors.New("session/sqlite: new: the *sql.DB is nil")
	}
	name := "the database"
	var file string
	if err := whileBusy(ctx, c.BusyTimeout, func() error {
		return db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file)
	}); err != nil {
		return nil, fmt.Errorf("session/sqlite: open: %w", damagedFile(err))
	}
	if file != "" {
		name = file
	}
	var mode string
	// Processes that open a new file at once race to switch it to WAL
	// mode, and SQLite answers the losers SQLITE_BUSY at once, without
	// its busy handler: they try again.
	if err := whileBusy(ctx, c.BusyTimeout, func() error {
		return db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
	}); err != nil {
		return nil, fmt.Errorf("session/sqlite: open %s: setting WAL mode: %w", name, damagedFile(err))
	}
	if !strings.EqualFold(mode, "wal") {
		return nil, fmt.Errorf("session/sqlite: open %s: the journal mode is %q, not WAL: the store needs a database file (not :memory:) on a local file system", name, mode)
	}
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	d := &sqlstore.Dialect{
		Name:        "session/sqlite",
		Time:        func(t time.Time) any { return rows.Micros(t) },
		Unique:      func(err error) bool { return strings.Contains(err.Error(), "UNIQUE constraint failed") },
		Damaged:     damaged,
		Migrations:  sub,
		SchemaTable: "CREATE TABLE IF NOT EXISTS toolwire_schema (version INTEGER PRIMARY KEY, applied INTEGER NOT NULL)",
	}
	txs := &txs{db: db, sem: make(chan struct{}, 1), busy: fmt.Sprintf("PRAGMA busy_timeout = %d", c.BusyTimeout.Milliseconds())}
	s, err := sqlstore.Open(ctx, txs, d, session.StoreConfig{Retention: c.Retention, Now: c.Now})
	if err != nil {
		if file != "" {
			return nil, fmt.Errorf("%w (database %s)", damagedFile(err), file)
		}
		return nil, damagedFile(err)
	}
	return &Store{s}, nil
}

// whileBusy calls f until it does not fail with SQLITE_BUSY or timeout
// has passed.
func whileBusy(ctx context.Context, timeout time.Duration, f func() error) error {
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		err := f()
		if err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") && !strings.Contains(err.Error(), "database is locked") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// damaged reports whether err is SQLite's SQLITE_CORRUPT or SQLITE_NOTADB,
// by the messages that every SQLite driver passes on.
func damaged(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "database disk image is malformed") || strings.Contains(msg, "file is not a database")
}

// damagedFile marks an error of a damaged file with [session.ErrCorrupt]
// and says what it means.
func damagedFile(err error) error {
	if !damaged(err) {
		return err
	}
	return fmt.Errorf("%w: %w: the file is damaged (truncated, overwritten, or not a SQLite database); restore it from a backup", session.ErrCorrupt, err)
}

// txs runs the store's transactions on connections of db.
type txs struct {
	db   *sql.DB
	sem  chan struct{} // one writer of this store at a time
	busy string        // sets the connection's busy timeout
}

func (t *txs) Write(ctx context.Context, f func(sqlstore.Querier) error) error {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-t.sem }()
	return t.run(ctx, "BEGIN IMMEDIATE", f)
}

func (t *txs) Read(ctx context.Context, f func(sqlstore.Querier) error) error {
	return t.run(ctx, "BEGIN", f)
}

// run runs f in a transaction begun by begin on a connection of its own.
// A transaction that fails is rolled back even when ctx is done; a
// connection that cannot roll back is closed rather than returned to the
// pool.
func (t *txs) run(ctx context.Context, begin string, f func(sqlstore.Querier) error) error {
	conn, err := t.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, t.busy); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		return err
	}
	if err = f(querier{conn}); err == nil {
		if _, err = conn.ExecContext(ctx, "COMMIT"); err == nil {
			return nil
		}
	}
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}

// querier runs statements on a connection in a transaction.
type querier struct{ c *sql.Conn }

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	r, err := q.c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

func (q querier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	r, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

type sqlRows struct{ r *sql.Rows }

func (r sqlRows) Next() bool             { return r.r.Next() }
func (r sqlRows) Scan(dest ...any) error { return r.r.Scan(dest...) }
func (r sqlRows) Err() error             { return r.r.Err() }
func (r sqlRows) Close()                 { _ = r.r.Close() }
