package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	sqlitedriver "modernc.org/sqlite"
)

// sqlitePath checks, before SQLite opens it, that the --db path can be a
// database file: not a directory, in a folder that exists. A plain path
// only: a file: URI or one with a query is SQLite's to read.
func sqlitePath(dsn string) error {
	if strings.HasPrefix(dsn, "file:") || strings.ContainsAny(dsn, "?#") {
		return nil
	}
	if st, err := os.Stat(dsn); err == nil && st.IsDir() {
		return usageError("--db %s is a directory: give a SQLite file path, e.g. --db %s", dsn, filepath.Join(dsn, "toolwire.db"))
	}
	dir := filepath.Dir(dsn)
	if st, err := os.Stat(dir); err != nil {
		return usageError("--db %s: the folder %s does not exist: create it, or give a path in an existing folder", dsn, dir)
	} else if !st.IsDir() {
		return usageError("--db %s: %s is a file, not a folder: give a path in a folder", dsn, dir)
	}
	return nil
}

// dbError is what a user reads for an error of the database behind --db
// that the store's own errors do not cover: a PostgreSQL server that
// cannot be reached (exit 3) or refuses the connection (exit 2), a SQLite
// result code in plain words. It is nil for any other error.
func dbError(dsn string, err error) error {
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		msg := pce.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
		return usageError("--db: PostgreSQL cannot use this connection string: %s; e.g. postgres://user@localhost:5432/toolwire or \"host=localhost port=5432 dbname=toolwire\"", redact(msg, dsn))
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		at := "the PostgreSQL server"
		if ce.Config != nil {
			at += " at " + pgAddr(ce.Config.Host, ce.Config.Port)
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return usageError("--db: %s refused the connection: %s; check the user, password and database name in --db", at, redact(pe.Message, dsn))
		}
		return &exitError{code: exitEnv, err: fmt.Errorf("--db: cannot reach %s: %s; check that it runs and that the host and port in --db are right", at, netReason(err))}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &exitError{code: exitEnv, err: fmt.Errorf("--db: the PostgreSQL server failed: %s (SQLSTATE %s)", redact(pe.Message, dsn), pe.Code)}
	}
	var se *sqlitedriver.Error
	if errors.As(err, &se) {
		return sqliteError(dsn, se.Code())
	}
	return nil
}

// sqliteError says what a SQLite result code means for the --db file.
// Codes the store reports itself (a damaged file) never get here.
func sqliteError(dsn string, code int) error {
	switch code & 0xff { // the primary result code
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return &exitError{code: exitEnv, err: fmt.Errorf("--db %s: another process keeps the database locked: wait for it to finish, or stop it", dsn)}
	case 8: // SQLITE_READONLY
		return usageError("--db %s: the database file is read-only: give write permission, or another path", dsn)
	case 10: // SQLITE_IOERR
		return &exitError{code: exitEnv, err: fmt.Errorf("--db %s: reading or writing the database file failed: check the disk", dsn)}
	case 13: // SQLITE_FULL
		return &exitError{code: exitEnv, err: fmt.Errorf("--db %s: the disk is full: free some space", dsn)}
	case 14: // SQLITE_CANTOPEN
		return usageError("--db %s: cannot open the database file: check that the path is a file you may read and write", dsn)
	case 23: // SQLITE_AUTH
		return usageError("--db %s: access to the database is denied", dsn)
	}
	return &exitError{code: exitEnv, err: fmt.Errorf("--db %s: the database failed (SQLite result code %d)", dsn, code)}
}

// pgAddr is host:port, or the socket folder of a Unix socket.
func pgAddr(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return "the socket in " + host
	}
	return net.JoinHostPort(host, fmt.Sprint(port))
}

// netReason is why a connection failed, in a few words: "connection
// refused", "no such host", "no answer in time".
func netReason(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return "no such host " + dns.Name
	case errors.Is(err, context.DeadlineExceeded), os.IsTimeout(err):
		return "no answer in time"
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	// The last words of the last line: the cause the driver wraps.
	msg := strings.TrimSpace(err.Error())
	if i := strings.LastIndex(msg, "\n"); i >= 0 {
		msg = msg[i+1:]
	}
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
