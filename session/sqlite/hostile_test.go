package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sqlite"
)

// A database of the store's tables without their NOT NULL constraints
// holds what a damaged or hostile file can: NULL anywhere, and, SQLite
// being dynamically typed, text, real numbers or blobs in any column.
// These tests open such a file and check that every read reports what it
// finds as a *session.CorruptError naming the column, never a panic or a
// Go scan error.

// looseSchema returns the store's first migration without its NOT NULL
// constraints and the keys that keep two rows from holding the same
// message, step or call attempt, with edit applied.
func looseSchema(t testing.TB, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	schema := strings.ReplaceAll(string(b), " NOT NULL", "")
	schema = regexp.MustCompile(`,\s*(PRIMARY KEY|UNIQUE) \([^)]*\)`).ReplaceAllString(schema, "")
	return edit(schema)
}

// hostileFile creates, at path, a database of the loose schema marked as
// migrated, holding one session written by the store: two steps, a call
// record in each (call_1 in step 1, call_2 in step 2) and an offloaded
// result. It returns the result's ref.
func hostileFile(t testing.TB, path, id string, edit func(string) string) string {
	t.Helper()
	db := openDB(t, path)
	for _, q := range []string{
		looseSchema(t, edit),
		"CREATE TABLE toolwire_schema (version INTEGER PRIMARY KEY, applied INTEGER NOT NULL)",
		"INSERT INTO toolwire_schema VALUES (1, 0)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s := newStore(t, db)
	ctx := context.Background()
	paid := func(call string) *llm.ToolResult {
		return &llm.ToolResult{CallID: call, Name: "pay", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "paid"}}}
	}
	if _, err := s.Create(ctx, session.Session{ID: id, Title: "t", Agent: "a"}); err != nil {
		t.Fatal(err)
	}
	for i, st := range []*session.Step{
		{Session: id, Version: 1, Number: 1, Messages: []llm.Message{llm.User("one"), llm.User("two")}, State: jsontext.Value(`{"n":1}`),
			Calls: []session.Call{{ID: "call_1", Tool: "pay", Attempt: 1, Arguments: jsontext.Value(`{}`), Result: paid("call_1")}}},
		{Session: id, Version: 2, Number: 2, Messages: []llm.Message{llm.User("three")}, State: jsontext.Value(`{"n":2}`),
			Calls: []session.Call{{ID: "call_2", Tool: "pay", Attempt: 1, Arguments: jsontext.Value(`{}`), Result: paid("call_2"), Duration: 5}}},
	} {
		if _, err := s.Commit(ctx, st); err != nil {
			t.Fatalf("Commit %d = %v", i, err)
		}
	}
	ref, err := s.PutResult(ctx, id, session.Offloaded{Tool: "pay", Kind: "json", MediaType: "application/json", Data: []byte(`[1]`), Rules: jsontext.Value(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	return ref
}

// The kinds of column the store reads, by what it accepts.
const (
	kindInt   = "integer" // an integer
	kindText  = "text"    // text
	kindBytes = "bytes"   // a blob, or text
	kindTime  = "time"    // an integer, microseconds since 1970
)

// The reads of the hostile tests.
const (
	readLoad = 1 << iota
	readShow
	readResult
	readList
)

// A hostileColumn is a column that the store reads, in the row of the
// hostile file that where selects.
type hostileColumn struct {
	table, column, where string
	kind                 string
	null                 bool // whether NULL is a value the store writes
	reads                int  // the reads that must name the column when its value is refused
	// orders says that the reads sort the rows by the column: a value of
	// another type moves the row (SQLite sorts NULL first and text and
	// blobs last), and a read may first meet the gap it leaves.
	orders bool
}

// hostileColumns are the columns that the store's reads take from the
// rows of one session, but for the ids that select the rows.
var hostileColumns = []hostileColumn{
	{"toolwire_sessions", "title", "id = 'h'", kindText, false, readLoad | readShow | readList, false},
	{"toolwire_sessions", "agent", "id = 'h'", kindText, false, readLoad | readShow | readList, false},
	{"toolwire_sessions", "status", "id = 'h'", kindText, false, readLoad | readShow | readList, false},
	{"toolwire_sessions", "version", "id = 'h'", kindInt, false, readLoad | readShow | readList, false},
	{"toolwire_sessions", "step", "id = 'h'", kindInt, false, readLoad | readShow | readList, false},
	{"toolwire_sessions", "messages", "id = 'h'", kindInt, false, readLoad | readShow | readList, false},
	{"toolwire_sessions", "created", "id = 'h'", kindTime, false, readLoad | readShow | readList, false},
	{"toolwire_sessions", "updated", "id = 'h'", kindTime, false, readLoad | readShow | readList, false},
	{"toolwire_messages", "seq", "session_id = 'h' AND seq = 1", kindInt, false, readLoad | readShow, true},
	{"toolwire_messages", "data", "session_id = 'h' AND seq = 1", kindBytes, false, readLoad | readShow, false},
	{"toolwire_steps", "number", "session_id = 'h' AND number = 1", kindInt, false, readShow, true},
	{"toolwire_steps", "version", "session_id = 'h' AND number = 1", kindInt, false, readShow, false},
	{"toolwire_steps", "status", "session_id = 'h' AND number = 1", kindText, false, readShow, false},
	{"toolwire_steps", "first_seq", "session_id = 'h' AND number = 1", kindInt, false, readShow, false},
	{"toolwire_steps", "messages", "session_id = 'h' AND number = 1", kindInt, false, readShow, false},
	{"toolwire_steps", "state", "session_id = 'h' AND number = 2", kindBytes, true, readLoad | readShow, false},
	{"toolwire_steps", "created", "session_id = 'h' AND number = 1", kindTime, false, readShow, false},
	{"toolwire_calls", "call_id", "session_id = 'h' AND call_id = 'call_2'", kindText, false, readLoad | readShow, false},
	{"toolwire_calls", "attempt", "session_id = 'h' AND call_id = 'call_2'", kindInt, false, readLoad | readShow, false},
	{"toolwire_calls", "step", "session_id = 'h' AND call_id = 'call_1'", kindInt, false, readShow, false},
	{"toolwire_calls", "tool", "session_id = 'h' AND call_id = 'call_2'", kindText, false, readLoad | readShow, false},
	{"toolwire_calls", "idempotency", "session_id = 'h' AND call_id = 'call_2'", kindText, false, readLoad | readShow, false},
	{"toolwire_calls", "idempotency_key", "session_id = 'h' AND call_id = 'call_2'", kindText, false, readLoad | readShow, false},
	{"toolwire_calls", "arguments", "session_id = 'h' AND call_id = 'call_2'", kindBytes, true, readLoad | readShow, false},
	{"toolwire_calls", "started", "session_id = 'h' AND call_id = 'call_2'", kindTime, false, readLoad | readShow, false},
	{"toolwire_calls", "finished", "session_id = 'h' AND call_id = 'call_2'", kindTime, true, readLoad | readShow, false},
	{"toolwire_calls", "status", "session_id = 'h' AND call_id = 'call_2'", kindText, true, readLoad | readShow, false},
	{"toolwire_calls", "result", "session_id = 'h' AND call_id = 'call_2'", kindBytes, true, readLoad | readShow, false},
	{"toolwire_calls", "duration", "session_id = 'h' AND call_id = 'call_2'", kindInt, true, readLoad | readShow, false},
	{"toolwire_results", "tool", "session_id = 'h'", kindText, false, readShow | readResult, false},
	{"toolwire_results", "kind", "session_id = 'h'", kindText, false, readShow | readResult, false},
	{"toolwire_results", "media_type", "session_id = 'h'", kindText, false, readShow | readResult, false},
	{"toolwire_results", "data", "session_id = 'h'", kindBytes, false, readResult, false},
	{"toolwire_results", "rules", "session_id = 'h'", kindBytes, true, readShow | readResult, false},
	{"toolwire_results", "size", "session_id = 'h'", kindInt, false, readShow | readResult, false},
	{"toolwire_results", "created", "session_id = 'h'", kindTime, false, readShow | readResult, false},
}

// accepts reports whether the store takes a value of SQLite type typ
// ("null", "integer", "real", "text", "blob") in a column of c's kind.
func (c hostileColumn) accepts(typ string) bool {
	switch typ {
	case "null":
		return c.null
	case "integer":
		return c.kind == kindInt || c.kind == kindTime
	case "text":
		return c.kind == kindText || c.kind == kindBytes
	case "blob":
		return c.kind == kindBytes
	}
	return false
}

// goNames are words of Go's scan errors that a user must never see.
var goNames = []string{"int64", "float64", "[]uint8", "[]byte", "driver.Value", "Scan error", "unsupported Scan", "%!"}

// readAll runs every read of session id on s and checks that each returns
// its value or a *session.CorruptError about id. It returns the errors by
// read.
func readAll(t testing.TB, s *sqlite.Store, id, ref string) map[int]error {
	t.Helper()
	ctx := context.Background()
	errs := map[int]error{}
	_, errs[readLoad] = s.Load(ctx, id)
	_, errs[readShow] = s.Show(ctx, id)
	_, errs[readResult] = s.Result(ctx, id, ref)
	_, errs[readList] = s.List(ctx, nil)
	for read, err := range errs {
		if err == nil {
			continue
		}
		var ce *session.CorruptError
		if !errors.As(err, &ce) || !errors.Is(err, session.ErrCorrupt) {
			t.Errorf("read %d of session %s = %v, want a *session.CorruptError", read, id, err)
		}
		for _, word := range goNames {
			if strings.Contains(err.Error(), word) {
				t.Errorf("read %d of session %s = %q, which says %q", read, id, err, word)
			}
		}
	}
	return errs
}

// hostileTemplate creates the hostile file of session "h", of the loose
// schema as it is, for the tests to copy (hostileCopy); it returns its
// path and the ref of its offloaded result.
func hostileTemplate(t testing.TB) (path, ref string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "template.db")
	return path, hostileFile(t, path, "h", func(s string) string { return s })
}

// hostileCopy copies the file at template to a new file and opens it.
func hostileCopy(t testing.TB, template string) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.db")
	copyFile(t, template, path)
	return openDB(t, path)
}

// hostileStore opens a store over a copy of the file at template (see
// hostileCopy) in which query has run with args.
func hostileStore(t testing.TB, template, query string, args ...any) *sqlite.Store {
	t.Helper()
	db := hostileCopy(t, template)
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
	return newStore(t, db)
}

// copyFile copies the file at from to a new file at to.
func copyFile(t testing.TB, from, to string) {
	t.Helper()
	r, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestHostileColumnTypes(t *testing.T) {
	template, ref := hostileTemplate(t)
	for _, c := range hostileColumns {
		for _, v := range []struct {
			name  string
			value any
		}{
			{"NULL", nil},
			{"text", "x"},
			{"real", 1.5},
			{"blob", []byte{0xff, 0}},
		} {
			t.Run(c.table+"."+c.column+"="+v.name, func(t *testing.T) {
				db := hostileCopy(t, template)
				var rowid int64
				if err := db.QueryRow("SELECT rowid FROM " + c.table + " WHERE " + c.where).Scan(&rowid); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec("UPDATE "+c.table+" SET "+c.column+" = ? WHERE rowid = ?", v.value, rowid); err != nil {
					t.Fatal(err)
				}
				var typ string
				if err := db.QueryRow("SELECT typeof("+c.column+") FROM "+c.table+" WHERE rowid = ?", rowid).Scan(&typ); err != nil {
					t.Fatal(err)
				}
				errs := readAll(t, newStore(t, db), "h", ref)
				if c.accepts(typ) {
					return
				}
				name := c.table + "." + c.column
				for _, read := range []int{readLoad, readShow, readResult, readList} {
					if c.reads&read == 0 {
						continue
					}
					if err := errs[read]; err == nil || !c.orders && !strings.Contains(err.Error(), name) {
						t.Errorf("read %d with %s of type %s = %v, want a *session.CorruptError naming %s", read, name, typ, err, name)
					}
				}
			})
		}
	}
}

func TestHostileTimes(t *testing.T) {
	template, ref := hostileTemplate(t)
	for _, tc := range []struct {
		name  string
		query string
		value int64
		want  string
	}{
		{"created after year 9999", "UPDATE toolwire_sessions SET created = ?", math.MaxInt64, "toolwire_sessions.created = 9223372036854775807"},
		{"updated before year 1", "UPDATE toolwire_sessions SET updated = ?", math.MinInt64, "toolwire_sessions.updated = -9223372036854775808"},
		{"step created after year 9999", "UPDATE toolwire_steps SET created = ?", math.MaxInt64, "toolwire_steps.created"},
		{"call started before year 1", "UPDATE toolwire_calls SET started = ?", -62135596800000001, "toolwire_calls.started"},
		{"result created after year 9999", "UPDATE toolwire_results SET created = ?", 253402300800000000, "toolwire_results.created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := readAll(t, hostileStore(t, template, tc.query, tc.value), "h", ref)
			named := false
			for _, err := range errs {
				named = named || err != nil && strings.Contains(err.Error(), tc.want)
			}
			if !named {
				t.Errorf("reads = %v, want one to be a *session.CorruptError saying %q", errs, tc.want)
			}
		})
	}
}

// TestDuplicateRows reads sessions with two rows for one message, or
// for one step.
func TestDuplicateRows(t *testing.T) {
	template, ref := hostileTemplate(t)
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"UPDATE toolwire_messages SET seq = 0 WHERE seq = 1", "toolwire_messages.seq = 0"},
		{"INSERT INTO toolwire_messages SELECT * FROM toolwire_messages WHERE seq = 2", "toolwire_messages.seq = 2"},
		{"UPDATE toolwire_steps SET number = 1 WHERE number = 2", "toolwire_steps.number = 1"},
		{"INSERT INTO toolwire_steps SELECT * FROM toolwire_steps WHERE number = 1", "toolwire_steps.number = 1"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			errs := readAll(t, hostileStore(t, template, tc.query), "h", ref)
			if err := errs[readShow]; err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Show after %s = %v, want a *session.CorruptError saying %q", tc.query, err, tc.want)
			}
		})
	}
}

// TestMismatchedSessionID reads a session whose row answers for another
// id: a table whose ids compare without case gives the row of "h" for
// "H".
func TestMismatchedSessionID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nocase.db")
	hostileFile(t, path, "h", func(s string) string {
		return strings.Replace(s, "id       TEXT PRIMARY KEY", "id       TEXT PRIMARY KEY COLLATE NOCASE", 1)
	})
	s := newStore(t, openDB(t, path))
	ctx := context.Background()
	_, err := s.Load(ctx, "H")
	var ce *session.CorruptError
	if !errors.As(err, &ce) || ce.Session != "H" || ce.Item != "id" || !strings.Contains(err.Error(), `toolwire_sessions.id = "h"`) {
		t.Errorf(`Load("H") = %v, want a *session.CorruptError for session H, item id, saying toolwire_sessions.id = "h"`, err)
	}
	if _, err := s.Load(ctx, "h"); err != nil {
		t.Errorf(`Load("h") = %v, want the session`, err)
	}
}

// TestHostileSchemaVersion opens databases whose recorded schema version
// is not a version.
func TestHostileSchemaVersion(t *testing.T) {
	for _, v := range []any{"abc", 1.5, []byte{1}} {
		t.Run(fmt.Sprintf("%v", v), func(t *testing.T) {
			db := openDB(t, filepath.Join(t.TempDir(), "schema.db"))
			if _, err := db.Exec("CREATE TABLE toolwire_schema (version PRIMARY KEY, applied)"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO toolwire_schema VALUES (?, 0)", v); err != nil {
				t.Fatal(err)
			}
			_, err := sqlite.New(context.Background(), db, nil)
			if err == nil || !strings.Contains(err.Error(), "toolwire_schema.version") {
				t.Fatalf("New = %v, want an error naming toolwire_schema.version", err)
			}
			for _, word := range goNames {
				if strings.Contains(err.Error(), word) {
					t.Errorf("New = %q, which says %q", err, word)
				}
			}
		})
	}
}

// FuzzHostileColumn sets one column the store reads, in a row of a real
// SQLite file, to any value of any type, and checks that every read of
// the session returns its value or a *session.CorruptError, in words for
// people, and never panics. column picks from hostileColumns; kind says
// the value's type: NULL, n, s as text, s as a blob, or n/4 as a real
// number.
func FuzzHostileColumn(f *testing.F) {
	template, ref := hostileTemplate(f)
	const (
		null = iota
		integer
		text
		blob
		real
		kinds
	)
	for i := range hostileColumns {
		col := uint8(i)
		f.Add(col, uint8(null), int64(0), "")
		f.Add(col, uint8(integer), int64(-1), "")
		f.Add(col, uint8(integer), int64(3_000_000_000), "")
		f.Add(col, uint8(integer), int64(math.MaxInt64), "")
		f.Add(col, uint8(blob), int64(0), "{\"a\":\"\xff\"}")
	}
	f.Add(uint8(1), uint8(text), int64(0), "{")
	f.Add(uint8(2), uint8(real), int64(-7), "")
	f.Fuzz(func(t *testing.T, column, kind uint8, n int64, s string) {
		c := hostileColumns[int(column)%len(hostileColumns)]
		var v any
		switch kind % kinds {
		case integer:
			v = n
		case text:
			v = s
		case blob:
			v = []byte(s)
		case real:
			v = float64(n) / 4
		}
		readAll(t, hostileStore(t, template, "UPDATE "+c.table+" SET "+c.column+" = ? WHERE "+c.where, v), "h", ref)
	})
}
