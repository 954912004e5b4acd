// Package sqlstore is the session store of the SQL databases, written once
// over a [Dialect] that holds what differs between them: SQLite
// (session/sqlite, over database/sql) and PostgreSQL (session/postgres,
// over pgx). Each driver package gives it a [DB] that runs transactions and
// a Dialect; this package holds the queries and the rules.
package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/internal/rows"
)

// Querier runs statements inside one transaction. Queries are written with
// "?" placeholders; the store rewrites them for dialects that number them.
type Querier interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Rows is a result set, as database/sql and pgx both give it.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// DB runs transactions.
type DB interface {
	// Write runs f in a transaction that may write, committing it when f
	// returns nil and rolling it back otherwise.
	Write(ctx context.Context, f func(Querier) error) error
	// Read runs f in a transaction that sees one state of the database.
	Read(ctx context.Context, f func(Querier) error) error
}

// A Dialect is what differs between the SQL databases.
type Dialect struct {
	// Name prefixes errors: "session/sqlite".
	Name string
	// Numbered placeholders ($1, $2, ...) instead of "?".
	Numbered bool
	// ForUpdate and ForShare end a SELECT of a session row that a
	// transaction will update, or that must not change until it commits;
	// empty where the transaction holds the database's write lock anyway.
	ForUpdate, ForShare string
	// Time converts a time to a query argument.
	Time func(time.Time) any
	// Unique reports whether err is a unique-constraint violation.
	Unique func(error) bool
	// Damaged reports whether err says that the database's storage is
	// damaged (a malformed SQLite page, a corrupted PostgreSQL block).
	Damaged func(error) bool
	// Migrations holds the schema migrations, files named
	// "NNNN_name.sql", applied in order of NNNN.
	Migrations fs.FS
	// SchemaTable creates the table of applied migrations if it is
	// missing.
	SchemaTable string
	// MigrationLock, when set, runs first in the migration transaction,
	// to serialize migrations across processes.
	MigrationLock string
}

// Store implements [session.Store], [session.Catalog], [session.Results]
// and [session.Pruner] over a DB.
type Store struct {
	db  DB
	d   *Dialect
	cfg session.StoreConfig
	q   queries
}

// Open migrates the database to the newest schema this build knows and
// returns a store over it.
func Open(ctx context.Context, db DB, d *Dialect, cfg session.StoreConfig) (*Store, error) {
	s := &Store{db: db, d: d, cfg: cfg}
	s.q = newQueries(s.bind, d)
	if err := s.migrate(ctx); err != nil {
		return nil, fmt.Errorf("%s: open: %w", d.Name, err)
	}
	return s, nil
}

// Newest returns the version of the newest migration in the directory
// "migrations" of fsys (a store's embedded files), for a test to hold its
// SchemaVersion to without a database.
func Newest(fsys fs.FS) (int, error) {
	sub, err := fs.Sub(fsys, "migrations")
	if err != nil {
		return 0, err
	}
	ms, err := migrations(sub)
	if err != nil || len(ms) == 0 {
		return 0, err
	}
	return ms[len(ms)-1].version, nil
}

type migration struct {
	version int
	sql     string
}

func migrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names {
		num, _, ok := strings.Cut(path.Base(name), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: the name does not start with a version number", name)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{v, string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("two migrations have version %d", out[i].version)
		}
	}
	return out, nil
}

// migrate applies the migrations the database lacks, in one transaction;
// a database at a newer version than this build knows is a
// [*session.SchemaError], and nothing is written.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations(s.d.Migrations)
	if err != nil {
		return err
	}
	known := 0
	if len(ms) > 0 {
		known = ms[len(ms)-1].version
	}
	return s.db.Write(ctx, func(q Querier) error {
		if s.d.MigrationLock != "" {
			if _, err := q.Exec(ctx, s.d.MigrationLock); err != nil {
				return fmt.Errorf("locking the schema: %w", err)
			}
		}
		if _, err := q.Exec(ctx, s.d.SchemaTable); err != nil {
			return fmt.Errorf("reading the schema version: %w", err)
		}
		var v value
		if _, err := one(ctx, q, s.bind("SELECT COALESCE(MAX(version), 0) FROM toolwire_schema"), nil, &v); err != nil {
			return fmt.Errorf("reading the schema version: %w", err)
		}
		c := cols{table: "toolwire_schema"}
		found := c.int("version", v, 0, math.MaxInt32)
		if c.err != nil {
			return fmt.Errorf("%w: reading the schema version: %w", session.ErrCorrupt, c.err)
		}
		if found > int64(known) {
			return &session.SchemaError{Found: int(found), Known: known}
		}
		for _, m := range ms {
			if int64(m.version) <= found {
				continue
			}
			if _, err := q.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %d: %w", m.version, err)
			}
			if _, err := q.Exec(ctx, s.bind("INSERT INTO toolwire_schema (version, applied) VALUES (?, ?)"), m.version, s.d.Time(s.now())); err != nil {
				return fmt.Errorf("migration %d: %w", m.version, err)
			}
		}
		return nil
	})
}

// bind rewrites "?" placeholders for the dialect.
func (s *Store) bind(query string) string {
	if !s.d.Numbered {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

func (s *Store) now() time.Time { return rows.Now(s.cfg.Now) }

// one runs a query that returns at most one row and scans it; found
// reports whether there was one. A nil args means none.
func one(ctx context.Context, q Querier, query string, args []any, dest ...any) (found bool, err error) {
	r, err := q.Query(ctx, query, args...)
	if err != nil {
		return false, err
	}
	defer r.Close()
	if r.Next() {
		if err := r.Scan(dest...); err != nil {
			return false, err
		}
		found = true
	}
	return found, r.Err()
}

// each runs a query and calls f after scanning each row into dest.
func each(ctx context.Context, q Querier, query string, args []any, f func() error, dest ...any) error {
	r, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if err := f(); err != nil {
			return err
		}
	}
	return r.Err()
}

// Create stores a new session; see [session.Store].
func (s *Store) Create(ctx context.Context, in session.Session) (session.Session, error) {
	sess, err := rows.NewSession(in, s.now())
	if err != nil {
		return session.Session{}, fmt.Errorf("%s: create: %w", s.d.Name, err)
	}
	err = s.db.Write(ctx, func(q Querier) error {
		var version value
		found, err := one(ctx, q, s.q.sessionVersion, []any{sess.ID}, &version)
		if err != nil {
			return err
		}
		if found {
			current, _ := version.v.(int64) // only for the message
			return &session.ConflictError{Session: sess.ID, Current: current}
		}
		_, err = q.Exec(ctx, s.q.insertSession, sess.ID, sess.Title, sess.Agent, string(sess.Status),
			sess.Version, int64(0), int64(0), s.d.Time(sess.Created), s.d.Time(sess.Updated),
			sess.Model.Spec, sess.Model.BaseURL, rows.EncodeModelOptions(sess.Model.Options))
		if err != nil && s.d.Unique(err) {
			return &session.ConflictError{Session: sess.ID, Current: 1}
		}
		return err
	})
	if err != nil {
		return session.Session{}, fmt.Errorf("%s: create: %w", s.d.Name, err)
	}
	return sess, nil
}

// anyVersion tells lock not to check the version.
const anyVersion = -1

// lock reads a session for a write, with the row lock of query, and checks
// that it is at version (unless version is anyVersion).
func (s *Store) lock(ctx context.Context, q Querier, query, id string, version int64) (session.Session, error) {
	var row sessionRow
	found, err := one(ctx, q, query, []any{id}, row.dest()...)
	if err != nil {
		return session.Session{}, err
	}
	if !found {
		return session.Session{}, session.ErrNotFound
	}
	sess, err := row.session(id)
	if err == nil && version != anyVersion {
		err = rows.Current(sess, version)
	}
	return sess, err
}

// Commit writes a step atomically; see [session.Store].
func (s *Store) Commit(ctx context.Context, st *session.Step) (session.Session, error) {
	enc, err := rows.CheckStep(st)
	if err != nil {
		return session.Session{}, fmt.Errorf("%s: commit: %w", s.d.Name, err)
	}
	var out session.Session
	err = s.db.Write(ctx, func(q Querier) error {
		sess, err := s.lock(ctx, q, s.q.lockForUpdate, st.Session, st.Version)
		if err != nil {
			return err
		}
		next, rec, err := rows.Advance(sess, st, len(enc.Messages), s.now())
		if err != nil {
			return err
		}
		now := s.d.Time(next.Updated)
		if err := s.writeCalls(ctx, q, st.Session, sess.Version, enc.Calls, now); err != nil {
			return err
		}
		if err := s.insertMessages(ctx, q, st.Session, st.Number, int64(rec.First), enc.Messages); err != nil {
			return err
		}
		if _, err := q.Exec(ctx, s.q.insertStep, st.Session, int64(rec.Number), rec.Version, string(rec.Status),
			int64(rec.First), int64(rec.Messages), []byte(rec.State), now); err != nil {
			return err
		}
		_, err = q.Exec(ctx, s.q.updateSession, next.Version, int64(next.Step), int64(next.Messages), string(next.Status), now, st.Session)
		out = next
		return err
	})
	if err != nil {
		return session.Session{}, fmt.Errorf("%s: commit %s: %w", s.d.Name, st.Session, err)
	}
	return out, nil
}

// insertMessages appends encoded messages at seq first, in chunks that stay
// under every dialect's limit on placeholders.
func (s *Store) insertMessages(ctx context.Context, q Querier, id string, step int, first int64, msgs [][]byte) error {
	const chunk = 256
	for len(msgs) > 0 {
		n := min(len(msgs), chunk)
		args := make([]any, 0, 4*n)
		for i, m := range msgs[:n] {
			args = append(args, id, first+int64(i), int64(step), m)
		}
		if _, err := q.Exec(ctx, s.bind(s.q.insertMessages+values(4, n)), args...); err != nil {
			return err
		}
		msgs, first = msgs[n:], first+int64(n)
	}
	return nil
}

// values returns n groups of k placeholders: "(?, ?), (?, ?)".
func values(k, n int) string {
	group := "(" + strings.Repeat("?, ", k-1) + "?)"
	return strings.Repeat(group+", ", n-1) + group
}

// Record writes call records; see [session.Store].
func (s *Store) Record(ctx context.Context, id string, version int64, calls ...session.Call) error {
	enc, err := rows.CheckCalls(calls, 0)
	if err != nil {
		return fmt.Errorf("%s: record: %w", s.d.Name, err)
	}
	err = s.db.Write(ctx, func(q Querier) error {
		sess, err := s.lock(ctx, q, s.q.lockForShare, id, version)
		if err != nil {
			return err
		}
		rows.Latest(enc, sess.Step)
		return s.writeCalls(ctx, q, id, version, enc, s.d.Time(s.now()))
	})
	if err != nil {
		return fmt.Errorf("%s: record %s: %w", s.d.Name, id, err)
	}
	return nil
}

// writeCalls writes call records in order, at now (a query argument): new
// attempts are inserted, started ones completed, and any other is a
// conflict ([rows.Plan]).
func (s *Store) writeCalls(ctx context.Context, q Querier, id string, version int64, calls []rows.Call, now any) error {
	if len(calls) == 0 {
		return nil
	}
	type key struct {
		id      string
		attempt int64
	}
	// What is stored of the attempts being written: finished or not.
	stored := map[key]bool{}
	var callID, attempt, finished value
	for rest := calls; len(rest) > 0; {
		n := min(len(rest), 500)
		args := make([]any, 0, n+1)
		args = append(args, id)
		for _, c := range rest[:n] {
			args = append(args, c.ID)
		}
		query := s.bind(s.q.callStates + "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")")
		err := each(ctx, q, query, args, func() error {
			// A row whose values are not what the store writes matches no
			// call: writing that call inserts a new record.
			id, ok1 := callID.v.(string)
			n, ok2 := attempt.v.(int64)
			if ok1 && ok2 {
				stored[key{id, n}] = truth(finished.v)
			}
			return nil
		}, &callID, &attempt, &finished)
		if err != nil {
			return err
		}
		rest = rest[n:]
	}
	actions, err := rows.Plan(id, version, calls, func(callID string, attempt int) (exists, finished bool) {
		finished, exists = stored[key{callID, int64(attempt)}]
		return exists, finished
	})
	if err != nil {
		return err
	}
	// A concurrent writer that inserted the same attempt first makes the
	// insert a unique violation: a conflict too.
	insert := func(inserts []any, n int, c *rows.Call) error {
		err := s.insertCalls(ctx, q, inserts, n)
		if err != nil && s.d.Unique(err) {
			return rows.CallConflict(id, version, c)
		}
		return err
	}
	var inserts []any
	n := 0
	for i := range calls {
		c := &calls[i]
		switch actions[i] {
		case rows.Insert:
			var finishedAt, status, duration any
			if c.Result != nil {
				finishedAt, status, duration = now, c.Status, int64(c.Duration)
			}
			inserts = append(inserts, id, c.ID, int64(c.Attempt), int64(c.Step), c.Tool, string(c.Idempotency),
				c.IdempotencyKey, []byte(c.Arguments), now, finishedAt, status, c.Result, duration)
			n++
		case rows.Finish:
			// The attempt may be in inserts, not yet written: flush first.
			if err := insert(inserts, n, c); err != nil {
				return err
			}
			inserts, n = nil, 0
			done, err := q.Exec(ctx, s.q.finishCall, now, c.Status, c.Result, int64(c.Duration), id, c.ID, int64(c.Attempt))
			if err != nil {
				return err
			}
			if done == 0 { // another writer finished it since it was read
				return rows.CallConflict(id, version, c)
			}
		}
	}
	return insert(inserts, n, &calls[len(calls)-1])
}

// truth reads a boolean as either dialect gives it: a bool (PostgreSQL)
// or an integer (SQLite).
func truth(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	}
	return false
}

// callColumns counts the columns insertCalls writes: session_id and callCols.
const callColumns = 13

// insertCalls inserts n call records whose columns are args, in chunks
// that stay under every dialect's limit on placeholders.
func (s *Store) insertCalls(ctx context.Context, q Querier, args []any, n int) error {
	const chunk = 256
	for n > 0 {
		k := min(n, chunk)
		if _, err := q.Exec(ctx, s.bind(s.q.insertCalls+values(callColumns, k)), args[:k*callColumns]...); err != nil {
			return err
		}
		args, n = args[k*callColumns:], n-k
	}
	return nil
}

// Load reads a session; see [session.Store].
func (s *Store) Load(ctx context.Context, id string) (*session.Snapshot, error) {
	var snap *session.Snapshot
	err := s.db.Read(ctx, func(q Querier) error {
		sess, msgs, err := s.read(ctx, q, id)
		if err != nil {
			return err
		}
		snap = &session.Snapshot{Session: sess, Messages: msgs}
		if sess.Step > 0 {
			var v value
			found, err := one(ctx, q, s.q.selectState, []any{id, int64(sess.Step)}, &v)
			if err != nil {
				return err
			}
			if !found {
				return rows.Corrupt(id, fmt.Sprintf("step %d", sess.Step), errors.New("the step is missing"))
			}
			c := cols{table: "toolwire_steps"}
			state := c.bytes("state", v, true)
			if c.err != nil {
				return rows.Corrupt(id, fmt.Sprintf("state of step %d", sess.Step), c.err)
			}
			if state != nil {
				if err := checkState(id, sess.Step, state); err != nil {
					return err
				}
				snap.State = state
			}
		}
		snap.Calls, err = s.calls(ctx, q, s.q.selectCalls, id, int64(sess.Step))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: load %s: %w", s.d.Name, id, s.damaged(id, err))
	}
	return snap, nil
}

// damaged turns an error that says the storage is damaged, met while
// reading session id, into a [*session.CorruptError] naming it: the other
// sessions may well be intact.
func (s *Store) damaged(id string, err error) error {
	var ce *session.CorruptError
	if s.d.Damaged != nil && s.d.Damaged(err) && !errors.As(err, &ce) {
		return rows.Corrupt(id, "its rows", err)
	}
	return err
}

// read reads a session and its messages.
func (s *Store) read(ctx context.Context, q Querier, id string) (session.Session, []llm.Message, error) {
	var row sessionRow
	found, err := one(ctx, q, s.q.selectSession, []any{id}, row.dest()...)
	if err == nil && !found {
		err = session.ErrNotFound
	}
	if err != nil {
		return session.Session{}, nil, err
	}
	sess, err := row.session(id)
	if err != nil {
		return sess, nil, err
	}
	msgs, err := s.messages(ctx, q, sess)
	return sess, msgs, err
}

// messages reads and decodes every message of sess, checking that none is
// missing and none is beyond its count. The count only sizes a first
// reservation, at most maxPrealloc messages: the rows make the rest.
func (s *Store) messages(ctx context.Context, q Querier, sess session.Session) ([]llm.Message, error) {
	msgs := make([]llm.Message, 0, min(sess.Messages, maxPrealloc))
	var seq, data value
	err := each(ctx, q, s.q.selectMessages, []any{sess.ID}, func() error {
		m, err := decodeMessage(sess, len(msgs), seq, data)
		if err != nil {
			return err
		}
		msgs = append(msgs, m)
		return nil
	}, &seq, &data)
	if err == nil && len(msgs) != sess.Messages {
		err = rows.Corrupt(sess.ID, fmt.Sprintf("message %d", len(msgs)), fmt.Errorf("it is missing (the session has %d messages)", sess.Messages))
	}
	return msgs, err
}

func (s *Store) calls(ctx context.Context, q Querier, query, id string, args ...any) ([]session.Call, error) {
	var (
		out []session.Call
		row callRow
	)
	err := each(ctx, q, query, append([]any{id}, args...), func() error {
		c, err := row.call(id)
		out = append(out, c)
		return err
	}, row.dest()...)
	return out, err
}

// List returns a page of sessions, newest first; see [session.Catalog].
func (s *Store) List(ctx context.Context, opts *session.ListOptions) (session.Page, error) {
	limit, cur, err := rows.List(opts)
	if err != nil {
		return session.Page{}, fmt.Errorf("%s: list: %w", s.d.Name, err)
	}
	var list []session.Session
	err = s.db.Read(ctx, func(q Querier) error {
		query, args := s.q.listSessions, []any{int64(limit + 1)}
		if cur.Set {
			t := s.d.Time(cur.Created)
			query, args = s.q.listSessionsAfter, []any{t, t, cur.ID, int64(limit + 1)}
		}
		var row sessionRow
		return each(ctx, q, query, args, func() error {
			sess, err := row.session("")
			list = append(list, sess)
			return err
		}, row.dest()...)
	})
	if err != nil {
		return session.Page{}, fmt.Errorf("%s: list: %w", s.d.Name, err)
	}
	return rows.Page(list, limit), nil
}

// Show returns everything stored about a session; see [session.Catalog].
func (s *Store) Show(ctx context.Context, id string) (*session.Trace, error) {
	var tr *session.Trace
	err := s.db.Read(ctx, func(q Querier) error {
		sess, msgs, err := s.read(ctx, q, id)
		if err != nil {
			return err
		}
		tr = &session.Trace{Session: sess, Messages: msgs}
		st := steps{sess: sess, n: len(msgs)}
		var step stepRow
		err = each(ctx, q, s.q.selectSteps, []any{id}, func() error {
			rec, err := st.record(&step)
			if err != nil {
				return err
			}
			tr.Steps = append(tr.Steps, rec)
			return nil
		}, step.dest()...)
		if err == nil {
			err = st.done()
		}
		if err != nil {
			return err
		}
		if tr.Calls, err = s.calls(ctx, q, s.q.selectAllCalls, id); err != nil {
			return err
		}
		var r resultRow
		return each(ctx, q, s.q.selectResultInfos, []any{id}, func() error {
			res, err := r.result(id, false)
			if err != nil {
				return err
			}
			tr.Results = append(tr.Results, res)
			return nil
		}, r.infoDest()...)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: show %s: %w", s.d.Name, id, s.damaged(id, err))
	}
	return tr, nil
}

// Delete removes a session and all it holds; see [session.Catalog].
func (s *Store) Delete(ctx context.Context, id string) error {
	err := s.db.Write(ctx, func(q Querier) error {
		// The row is locked, not decoded: a corrupt session can be
		// deleted.
		var row sessionRow
		found, err := one(ctx, q, s.q.lockForUpdate, []any{id}, row.dest()...)
		if err != nil {
			return err
		}
		if !found {
			return session.ErrNotFound
		}
		for _, del := range s.q.deleteSession {
			if _, err := q.Exec(ctx, del, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: delete %s: %w", s.d.Name, id, err)
	}
	return nil
}

// PutResult stores an offloaded result; see [session.Results].
func (s *Store) PutResult(ctx context.Context, id string, r session.Offloaded) (string, error) {
	chosen := r.Ref != ""
	r, err := rows.CheckOffloaded(id, r, s.now())
	if err != nil {
		return "", fmt.Errorf("%s: put result: %w", s.d.Name, err)
	}
	err = s.db.Write(ctx, func(q Querier) error {
		if _, err := s.lock(ctx, q, s.q.lockForShare, id, anyVersion); err != nil {
			return err
		}
		if chosen {
			// The session's result of that ref is replaced.
			if _, err := q.Exec(ctx, s.q.dropResult, r.Ref, id); err != nil {
				return err
			}
		}
		for {
			var one64 int64
			taken, err := one(ctx, q, s.q.refTaken, []any{r.Ref}, &one64)
			if err != nil {
				return err
			}
			if !taken {
				break
			}
			if chosen {
				return fmt.Errorf("%w: ref %s names another session's result", session.ErrConflict, r.Ref)
			}
			r.Ref = rows.NewRef()
		}
		var rules []byte
		if r.Rules != nil {
			rules = r.Rules
		}
		_, err = q.Exec(ctx, s.q.insertResult, r.Ref, id, r.Tool, r.Kind, r.MediaType, r.Data, rules, r.Size, s.d.Time(r.Created))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%s: put result %s: %w", s.d.Name, id, err)
	}
	return r.Ref, nil
}

// Result returns an offloaded result; see [session.Results].
func (s *Store) Result(ctx context.Context, id, ref string) (session.Offloaded, error) {
	var r session.Offloaded
	err := s.db.Read(ctx, func(q Querier) error {
		row := resultRow{ref: value{v: ref}}
		found, err := one(ctx, q, s.q.selectResult, []any{ref, id}, row.dataDest()...)
		switch {
		case err != nil:
			return err
		case !found:
			return session.ErrNotFound
		}
		r, err = row.result(id, true)
		return err
	})
	if err != nil {
		return session.Offloaded{}, fmt.Errorf("%s: result %s of session %s: %w", s.d.Name, ref, id, s.damaged(id, err))
	}
	return r, nil
}

// Prune deletes the offloaded results that the retention setting no longer
// keeps; see [session.Pruner].
func (s *Store) Prune(ctx context.Context) (session.Pruned, error) {
	var p session.Pruned
	ret := s.cfg.Retention
	if ret.MaxAge <= 0 && ret.MaxBytes <= 0 {
		return p, nil
	}
	err := s.db.Write(ctx, func(q Querier) error {
		p = session.Pruned{}
		var size value
		count := func() error {
			p.Results++
			// A size that is not one counts as none: the row is deleted
			// all the same.
			if n, ok := size.v.(int64); ok && n > 0 && p.Bytes <= math.MaxInt64-n {
				p.Bytes += n
			}
			return nil
		}
		if ret.MaxAge > 0 {
			cutoff := s.d.Time(s.now().Add(-ret.MaxAge))
			if err := each(ctx, q, s.q.pruneAge, []any{cutoff}, count, &size); err != nil {
				return err
			}
		}
		if ret.MaxBytes > 0 {
			return each(ctx, q, s.q.pruneSize, []any{ret.MaxBytes}, count, &size)
		}
		return nil
	})
	if err != nil {
		return session.Pruned{}, fmt.Errorf("%s: prune: %w", s.d.Name, err)
	}
	return p, nil
}
