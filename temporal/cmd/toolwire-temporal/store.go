package main

import (
	"context"
	"database/sql"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // the SQLite driver of --db, as toolwire run's

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/postgres"
	"github.com/toolwire/toolwire/session/sqlite"
)

// openStore opens the session store of a worker's --db: a postgres://
// URL or key/value string, or a SQLite file. The workers of a task queue
// keep their sessions' offloaded results there, so that read_result
// finds them on any worker.
func openStore(ctx context.Context, dsn string) (session.Store, func(), error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") || strings.Contains(dsn, "host=") || strings.Contains(dsn, "dbname=") {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return nil, nil, usageError("--db: PostgreSQL: %v", err)
		}
		s, err := postgres.New(ctx, pool, nil)
		if err != nil {
			pool.Close()
			return nil, nil, envError("--db: %v", err)
		}
		return s, pool.Close, nil
	}
	if fi, err := os.Stat(dsn); err == nil && fi.IsDir() {
		return nil, nil, usageError("--db %s is a directory: give a SQLite file path, e.g. --db %s/toolwire.db", dsn, strings.TrimSuffix(dsn, "/"))
	}
	db, err := sql.Open("sqlite", "file:"+dsn+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, nil, usageError("--db %s: %v", dsn, err)
	}
	db.SetMaxOpenConns(8)
	s, err := sqlite.New(ctx, db, nil)
	if err != nil {
		db.Close()
		return nil, nil, usageError("--db %s: %v", dsn, err)
	}
	return s, func() { db.Close() }, nil
}
