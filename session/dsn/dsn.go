// Package dsn opens a session store by the name a person gives it, as
// toolwire's --db flag takes it: a SQLite file path ("./toolwire.db", or
// a file: URI), a postgres:// URL, or a libpq key/value string
// ("host=db.internal user=app password=… dbname=toolwire").
//
// It is wiring, like provider/open: it imports the SQLite driver
// (modernc.org/sqlite) and pgx, which session/sqlite and session/postgres
// leave to their caller. Its errors say what is wrong with the name or
// the database in words for that person, with passwords hidden.
package dsn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	sqlitedriver "modernc.org/sqlite" // the SQLite driver of session/sqlite

	"github.com/toolwire/toolwire/internal/neterr"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/postgres"
	"github.com/toolwire/toolwire/session/sqlite"
)

// Kind says whose move an [Error] is.
type Kind int

const (
	// Wrong: the name is wrong, or names a database that cannot be used
	// as it is; the person must change one or the other.
	Wrong Kind = iota + 1
	// Unavailable: the database cannot be reached or used now (a server
	// down, a file locked, a full disk); the same name may work later.
	Unavailable
)

// An Error is a database that could not be opened or used, said for the
// person who named it.
type Error struct {
	Kind Kind
	// Msg says what is wrong and how to fix it, passwords hidden.
	Msg string
	Err error // the driver's error, when there is one
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func wrong(err error, format string, args ...any) *Error {
	return &Error{Kind: Wrong, Msg: fmt.Sprintf(format, args...), Err: err}
}

func unavailable(err error, format string, args ...any) *Error {
	return &Error{Kind: Unavailable, Msg: fmt.Sprintf(format, args...), Err: err}
}

// Open opens the session store name names (its schema created or
// migrated) and returns it with the function that closes it. Its error
// is an [*Error] when the name or the database is at fault, else the
// store's own (a damaged or foreign database: session.ErrSchema,
// session.ErrCorrupt).
func Open(ctx context.Context, name string) (session.Store, func(), error) {
	if name == "" {
		return nil, nil, wrong(nil, "no database named: give a SQLite file path, a postgres:// URL or a key/value string (host=… dbname=…)")
	}
	if IsPostgres(name) {
		pool, err := pgxpool.New(ctx, name)
		if err != nil {
			if de := Explain(name, err); de != nil {
				return nil, nil, de
			}
			return nil, nil, wrong(err, "PostgreSQL: %s", Redact(err.Error(), name))
		}
		s, err := postgres.New(ctx, pool, nil)
		if err != nil {
			pool.Close()
			return nil, nil, explained(name, err)
		}
		return s, pool.Close, nil
	}
	if err := sqlitePath(name); err != nil {
		return nil, nil, err
	}
	source, busy, serr := sqliteSource(name)
	if serr != nil {
		return nil, nil, serr
	}
	db, err := sql.Open("sqlite", source)
	if err != nil {
		return nil, nil, wrong(err, "%s: %v", name, err)
	}
	db.SetMaxOpenConns(8)
	s, err := sqlite.New(ctx, db, &sqlite.Config{BusyTimeout: busy})
	if err != nil {
		db.Close()
		return nil, nil, explained(name, err)
	}
	return s, func() { db.Close() }, nil
}

// defaultBusy is how long a SQLite connection waits for another
// process's lock when the name does not say.
const defaultBusy = 10 * time.Second

// sqliteSource returns the driver's name for the SQLite database name
// names, and how long its writes wait for another process's lock: what a
// file: URI says (file:toolwire.db?_pragma=busy_timeout(60000), or the
// driver's shorthand _busy_timeout=60000), else 10 s. Every connection
// waits from the start, also while the store switches a new file to WAL
// mode, so the source always sets one.
func sqliteSource(name string) (string, time.Duration, *Error) {
	base, query, hasQuery := strings.Cut(name, "?")
	if strings.Contains(name, "#") || (hasQuery && !strings.HasPrefix(name, "file:")) {
		return name, defaultBusy, nil // not a URI whose query the driver reads; left as given
	}
	if !strings.HasPrefix(base, "file:") {
		base = "file:" + base
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return "", 0, wrong(err, "%s: the part after ? is not a query (%v): write key=value pairs joined by &", name, err)
	}
	said, ms := busyTimeout(values)
	if said == "" {
		values.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", defaultBusy.Milliseconds()))
		return base + "?" + values.Encode(), defaultBusy, nil
	}
	if ms < 1 {
		return "", 0, wrong(nil, "%s: %s is not a wait in milliseconds: write _pragma=busy_timeout(60000) for a minute", name, said)
	}
	return name, time.Duration(ms) * time.Millisecond, nil
}

// busyTimeout returns the busy timeout that values set, in milliseconds,
// and the parameter that sets it ("" for none; ms is 0 when it is not a
// number). Like the driver, a _pragma wins over the shorthand keys, and
// _timeout over _busy_timeout.
func busyTimeout(values url.Values) (said string, ms int64) {
	for _, p := range values["_pragma"] {
		arg, ok := strings.CutPrefix(strings.ToLower(strings.ReplaceAll(p, " ", "")), "busy_timeout")
		if !ok {
			continue
		}
		said = "_pragma=" + p
		if inner, ok := strings.CutPrefix(arg, "("); ok && strings.HasSuffix(inner, ")") {
			arg = strings.TrimSuffix(inner, ")")
		} else {
			arg, _ = strings.CutPrefix(arg, "=")
		}
		ms, _ = strconv.ParseInt(arg, 10, 64)
	}
	if said != "" {
		return said, ms
	}
	for _, key := range []string{"_timeout", "_busy_timeout"} {
		if v, ok := values[key]; ok && len(v) > 0 {
			ms, _ = strconv.ParseInt(v[0], 10, 64)
			return key + "=" + v[0], ms
		}
	}
	return "", 0
}

// explained is Explain's error for err, or err.
func explained(name string, err error) error {
	if de := Explain(name, err); de != nil {
		return de
	}
	return err
}

// IsPostgres reports whether name names a PostgreSQL database: a
// postgres:// URL, or a libpq key/value string whose first key is a libpq
// keyword. pgx reads both. A SQLite file whose name starts like one
// ("host=x.db") is named with a directory: ./host=x.db.
func IsPostgres(name string) bool {
	if strings.HasPrefix(name, "postgres://") || strings.HasPrefix(name, "postgresql://") {
		return true
	}
	key, _, ok := strings.Cut(name, "=")
	return ok && libpqKeyword(strings.TrimSpace(key))
}

// libpqKeyword reports whether k is a keyword of a libpq connection
// string.
func libpqKeyword(k string) bool {
	switch k {
	case "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "connect_timeout", "options",
		"application_name", "sslmode", "sslcert", "sslkey", "sslrootcert", "sslpassword", "sslnegotiation",
		"service", "target_session_attrs", "channel_binding", "krbsrvname", "gssencmode", "search_path":
		return true
	}
	return false
}

// sqlitePath checks, before SQLite opens it, that name can be a database
// file: not a directory, in a folder that exists. A plain path only: a
// file: URI or one with a query is SQLite's to read.
func sqlitePath(name string) *Error {
	if strings.HasPrefix(name, "file:") || strings.ContainsAny(name, "?#") {
		return nil
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return wrong(nil, "%s is a directory: give a SQLite file path, e.g. %s", name, filepath.Join(name, "toolwire.db"))
	}
	dir := filepath.Dir(name)
	if st, err := os.Stat(dir); err != nil {
		return wrong(err, "%s: the folder %s does not exist: create it, or give a path in an existing folder", name, dir)
	} else if !st.IsDir() {
		return wrong(nil, "%s: %s is a file, not a folder: give a path in a folder", name, dir)
	}
	return nil
}

// Plain returns the message of err, an error of the database name names
// (the store's own or a driver's), as a person reads it: without the
// store packages' prefixes ("session/sqlite: ") and with name's password
// redacted.
func Plain(name string, err error) string {
	msg := err.Error()
	for _, p := range []string{"toolwire: ", "session/sqlite: ", "session/postgres: ", "session/memory: ", "session: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return Redact(msg, name)
}

// Explain returns what a person reads for an error of the database name
// names, one the store's own errors do not cover: a PostgreSQL server
// that cannot be reached (Unavailable) or refuses the connection (Wrong),
// a SQLite result code in plain words. It returns nil for any other
// error, and for a store's own (a damaged database, session.ErrCorrupt,
// which the store explains better than the driver's code it wraps).
func Explain(name string, err error) *Error {
	if errors.Is(err, session.ErrCorrupt) {
		return nil
	}
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		msg := pce.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
		return wrong(err, "PostgreSQL cannot use this connection string: %s; e.g. postgres://user@localhost:5432/toolwire or \"host=localhost port=5432 dbname=toolwire\"", Redact(msg, name))
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		at := "the PostgreSQL server"
		if ce.Config != nil {
			at += " at " + pgAddr(ce.Config.Host, ce.Config.Port)
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return wrong(err, "%s refused the connection: %s; check the user, password and database name", at, Redact(pe.Message, name))
		}
		return unavailable(err, "cannot reach %s: %s; check that it runs and that the host and port are right", at, neterr.Reason(err))
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return unavailable(err, "the PostgreSQL server failed: %s (SQLSTATE %s)", Redact(pe.Message, name), pe.Code)
	}
	var se *sqlitedriver.Error
	if errors.As(err, &se) {
		return sqliteError(name, se.Code(), err)
	}
	return nil
}

// sqliteError says what a SQLite result code means for the file name.
// Codes the store reports itself (a damaged file) never get here.
func sqliteError(name string, code int, err error) *Error {
	switch code & 0xff { // the primary result code
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return unavailable(err, "%s: another process keeps the database locked: wait for it to finish, or stop it", name)
	case 8: // SQLITE_READONLY
		return wrong(err, "%s: the database file is read-only: give write permission, or another path", name)
	case 10: // SQLITE_IOERR
		return unavailable(err, "%s: reading or writing the database file failed: check the disk", name)
	case 13: // SQLITE_FULL
		return unavailable(err, "%s: the disk is full: free some space", name)
	case 14: // SQLITE_CANTOPEN
		return wrong(err, "%s: cannot open the database file: check that the path is a file you may read and write", name)
	case 23: // SQLITE_AUTH
		return wrong(err, "%s: access to the database is denied", name)
	}
	return unavailable(err, "%s: the database failed (SQLite result code %d)", name, code)
}

// pgAddr is host:port, or the socket folder of a Unix socket.
func pgAddr(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return "the socket in " + host
	}
	return net.JoinHostPort(host, fmt.Sprint(port))
}

// Redact hides the passwords of name wherever msg shows them: a URL's
// user password, and the value of every password key (password=,
// sslpassword=) of a key/value string or of a URL's query, as written in
// name (quoted, escaped) and as a driver would print it. Redact(name,
// name) is name fit to show.
func Redact(msg, name string) string {
	for _, pw := range passwords(name) {
		msg = strings.ReplaceAll(msg, pw, "…")
	}
	return msg
}

// passwords returns the passwords in name, longest first, so that a
// password as written (quoted) goes before the same password unquoted.
func passwords(name string) []string {
	var pws []string
	isURL := strings.Contains(name, "://")
	if i := strings.Index(name, "://"); i >= 0 {
		if at := strings.LastIndex(name, "@"); at > i {
			if colon := strings.Index(name[i+3:at], ":"); colon >= 0 {
				raw := name[i+3+colon+1 : at]
				pws = append(pws, raw, unescapeURL(raw))
			}
		}
	}
	for rest := name; ; {
		i := strings.Index(rest, "password")
		if i < 0 {
			break
		}
		rest = rest[i+len("password"):]
		v := strings.TrimLeft(rest, " \t\r\n")
		if !strings.HasPrefix(v, "=") {
			continue
		}
		v = strings.TrimLeft(v[1:], " \t\r\n")
		raw, plain := value(v, isURL)
		pws = append(pws, raw, plain)
	}
	pws = slices.DeleteFunc(pws, func(s string) bool { return s == "" })
	slices.SortStableFunc(pws, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(pws)
}

// value reads the value at the start of s: up to & or # in a URL's
// query; in a key/value string, up to a space, or between single quotes
// with backslash escapes. It returns the value as written and unescaped.
func value(s string, isURL bool) (raw, plain string) {
	if isURL {
		if end := strings.IndexAny(s, "&#"); end >= 0 {
			s = s[:end]
		}
		return s, unescapeURL(s)
	}
	var b strings.Builder
	quoted := strings.HasPrefix(s, "'")
	i := 0
	if quoted {
		i = 1
	}
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case quoted && c == '\'':
			return s[:i+1], b.String()
		case !quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return s[:i], b.String()
		default:
			b.WriteByte(c)
		}
	}
	return s, b.String()
}

// unescapeURL is s with its %XX escapes decoded, or s when it has a
// malformed one.
func unescapeURL(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}
