package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/toolwire/toolwire/session"
)

// fakeDB is a database that answers every query with all the rows of the
// table it names, whatever its WHERE clause says, and the columns it
// selects, NULL for those a row lacks: what a hostile database can return.
// It runs no statement that writes.
type fakeDB struct {
	tables map[string][]map[string]any
}

func (db *fakeDB) Write(ctx context.Context, f func(Querier) error) error { return f(db) }
func (db *fakeDB) Read(ctx context.Context, f func(Querier) error) error  { return f(db) }

func (db *fakeDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	return 0, errors.New("the fake database is read-only")
}

func (db *fakeDB) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	list, rest, ok := strings.Cut(strings.TrimPrefix(query, "SELECT "), " FROM ")
	if !ok {
		return nil, fmt.Errorf("the fake database cannot run %q", query)
	}
	table, _, _ := strings.Cut(rest, " ")
	cols := strings.Split(list, ", ")
	out := &fakeRows{}
	for _, row := range db.tables[table] {
		vals := make([]any, len(cols))
		for i, col := range cols {
			vals[i] = row[col]
			if col == "length(data)" {
				switch d := row["data"].(type) {
				case []byte:
					vals[i] = int64(len(d))
				case string:
					vals[i] = int64(len(d))
				}
			}
		}
		out.rows = append(out.rows, vals)
	}
	return out, nil
}

type fakeRows struct {
	rows [][]any
	at   int
}

func (r *fakeRows) Next() bool { r.at++; return r.at <= len(r.rows) }
func (r *fakeRows) Err() error { return nil }
func (r *fakeRows) Close()     {}

func (r *fakeRows) Scan(dest ...any) error {
	row := r.rows[r.at-1]
	if len(dest) != len(row) {
		return fmt.Errorf("scan of %d columns into %d", len(row), len(dest))
	}
	for i, d := range dest {
		if err := d.(*value).Scan(row[i]); err != nil {
			return err
		}
	}
	return nil
}

// fakeStore returns a store over db, as session/sqlite opens one, without
// migrating it.
func fakeStore(db *fakeDB) *Store {
	d := &Dialect{
		Name:       "fake",
		Time:       func(t time.Time) any { return t.UnixMicro() },
		Unique:     func(error) bool { return false },
		Migrations: fstest.MapFS{},
	}
	s := &Store{db: db, d: d, cfg: session.StoreConfig{Now: time.Now}}
	s.q = newQueries(s.bind, d)
	return s
}

// The tables of parseRows, by the letter that starts a line.
var fakeTables = map[byte]string{
	'S': "toolwire_sessions",
	'M': "toolwire_messages",
	'T': "toolwire_steps",
	'C': "toolwire_calls",
	'R': "toolwire_results",
}

// parseRows reads the rows of a fake database, one a line: a table's
// letter (fakeTables), then columns "|name=value", where the value's first
// character says its type: n NULL, i an integer, f a real number, s text,
// b a blob, t a time (microseconds since 1970), B a boolean. Anything it
// cannot read, it reads as something: every input is a database.
func parseRows(text string) *fakeDB {
	db := &fakeDB{tables: map[string][]map[string]any{}}
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		table, ok := fakeTables[line[0]]
		if !ok {
			continue
		}
		row := map[string]any{}
		for _, col := range strings.Split(line[1:], "|")[1:] {
			name, v, _ := strings.Cut(col, "=")
			if v == "" {
				row[name] = nil
				continue
			}
			rest := v[1:]
			n, _ := strconv.ParseInt(rest, 10, 64)
			switch v[0] {
			case 'i':
				row[name] = n
			case 'f':
				x, _ := strconv.ParseFloat(rest, 64)
				row[name] = x
			case 's':
				row[name] = rest
			case 'b':
				row[name] = []byte(rest)
			case 't':
				row[name] = time.UnixMicro(n)
			case 'B':
				row[name] = rest == "true"
			default:
				row[name] = nil
			}
		}
		db.tables[table] = append(db.tables[table], row)
	}
	return db
}

// A session of 2 messages in 2 steps, with a finished call record in the
// latest step and an offloaded result, that every read returns whole.
const (
	goodSession  = "S|id=ss1|title=st|agent=sa|status=srunning|version=i3|step=i2|messages=i2|created=i0|updated=i0|model=sopenai:m|base_url=s|model_options=\n"
	goodMessages = "M|seq=i0|data=s{\"version\":1,\"messages\":[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"text\":\"a\"}]}]}\n" +
		"M|seq=i1|data=s{\"version\":1,\"messages\":[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"text\":\"b\"}]}]}\n"
	goodSteps = "T|number=i1|version=i2|status=srunning|first_seq=i0|messages=i1|state=b{}|created=i0\n" +
		"T|number=i2|version=i3|status=srunning|first_seq=i1|messages=i1|state=b{\"n\":2}|created=i0\n"
	goodCalls = "C|call_id=sc1|attempt=i1|step=i2|tool=spay|idempotency=s|idempotency_key=s|arguments=b{}|started=i0|finished=i1|status=ssuccess|duration=i5" +
		"|result=b{\"version\":1,\"messages\":[{\"role\":\"tool\",\"parts\":[{\"type\":\"tool_result\",\"call_id\":\"c1\",\"name\":\"pay\",\"status\":\"success\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}]}]}\n"
	goodResults = "R|ref=sr1|tool=spay|kind=sjson|media_type=s|data=b[1]|rules=b{}|size=i3|created=i0\n"
	goodRows    = goodSession + goodMessages + goodSteps + goodCalls + goodResults
)

// hostileSeeds are the good rows with one value each that the store never
// writes, and rows that are missing, extra or of another session.
var hostileSeeds = []string{
	goodRows,
	strings.Replace(goodRows, "messages=i2", "messages=i-1", 1),
	strings.Replace(goodRows, "model_options=", `model_options=b{"temperature":9}`, 1),
	strings.Replace(goodRows, "model_options=", `model_options=b{"api_key":"k"}`, 1),
	strings.Replace(goodRows, "base_url=s", "base_url=shttps://u:pw@h/v1", 1),
	strings.Replace(goodRows, "messages=i2", "messages=i3000000000", 1),
	strings.Replace(goodRows, "messages=i2", "messages=i9223372036854775807", 1),
	strings.Replace(goodRows, "messages=i2", "messages=i2147483647", 1),
	strings.Replace(goodRows, "messages=i2", "messages=i1", 1),
	strings.Replace(goodRows, "messages=i2", "messages=", 1),
	strings.Replace(goodRows, "messages=i2", "messages=sabc", 1),
	strings.Replace(goodRows, "messages=i2", "messages=f1.5", 1),
	strings.Replace(goodRows, "step=i2", "step=i-1", 1),
	strings.Replace(goodRows, "step=i2", "step=i9223372036854775807", 1),
	strings.Replace(goodRows, "version=i3", "version=i9223372036854775807", 1),
	strings.Replace(goodRows, "version=i3", "version=i0", 1),
	strings.Replace(goodRows, "status=srunning", "status=bsleeping", 1),
	strings.Replace(goodRows, "id=ss1", "id=ss2", 1),
	strings.Replace(goodRows, "id=ss1", "id=", 1),
	strings.Replace(goodRows, "created=i0|updated=i0", "created=i9223372036854775807|updated=i0", 1),
	strings.Replace(goodRows, "created=i0|updated=i0", "created=t-9223372036854775808|updated=sx", 1),
	strings.Replace(goodRows, "M|seq=i0", "M|seq=i-1", 1),
	strings.Replace(goodRows, "M|seq=i1", "M|seq=i9223372036854775807", 1),
	strings.Replace(goodRows, "M|seq=i1", "M|seq=i0", 1),
	goodSession + goodMessages + goodMessages + goodSteps,
	goodSession + goodSteps,
	strings.Replace(goodRows, `"text":"b"`, "\"text\":\"\xff\"", 1),
	strings.Replace(goodRows, `{"version":1,"messages":[{"role":"user","parts":[{"type":"text","text":"b"}]}]}`, "{\"version\":1,\"messages\":[", 1),
	strings.Replace(goodRows, "first_seq=i0", "first_seq=i-1", 1),
	strings.Replace(goodRows, "first_seq=i1", "first_seq=i9223372036854775807", 1),
	strings.Replace(goodRows, "first_seq=i1", "first_seq=i0", 1),
	strings.Replace(goodRows, "T|number=i1|version=i2|status=srunning|first_seq=i0|messages=i1", "T|number=i1|version=i2|status=srunning|first_seq=i0|messages=i-1", 1),
	strings.Replace(goodRows, "T|number=i1|version=i2|status=srunning|first_seq=i0|messages=i1", "T|number=i1|version=i2|status=srunning|first_seq=i0|messages=i3000000000", 1),
	strings.Replace(goodRows, "T|number=i2", "T|number=i1", 1),
	strings.Replace(goodRows, "T|number=i1", "T|number=i-1", 1),
	strings.Replace(goodRows, "state=b{\"n\":2}", "state=b{\"n\":\xff}", 1),
	strings.Replace(goodRows, "state=b{\"n\":2}", "state=i7", 1),
	strings.Replace(goodRows, "attempt=i1", "attempt=i0", 1),
	strings.Replace(goodRows, "attempt=i1", "attempt=", 1),
	strings.Replace(goodRows, "duration=i5", "duration=i-5", 1),
	strings.Replace(goodRows, "idempotency=s|", "idempotency=slevel_9|", 1),
	strings.Replace(goodRows, `"call_id":"c1"`, `"call_id":"c9"`, 1),
	strings.Replace(goodRows, "started=i0", "started=", 1),
	strings.Replace(goodRows, "size=i3", "size=i-1", 1),
	strings.Replace(goodRows, "size=i3", "size=i9223372036854775807", 1),
	strings.Replace(goodRows, "rules=b{}", "rules=bnot json", 1),
	strings.Replace(goodRows, "data=b[1]", "data=", 1),
}

// goNames are words of Go's errors that a user must never see.
var goNames = []string{"int64", "float64", "[]uint8", "[]byte", "time.Time", "driver.Value", "%!", "<nil>", "session :"}

// checkRead checks that a read returned its value or an error that the
// store's contract allows, in words for people.
func checkRead(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, session.ErrCorrupt) && !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("%s = %v, want nil, a *session.CorruptError or session.ErrNotFound", what, err)
	}
	for _, word := range goNames {
		if strings.Contains(err.Error(), word) {
			t.Fatalf("%s = %q, which says %q", what, err, word)
		}
	}
}

// FuzzRead reads a session from arbitrary rows: every read returns an
// error the contract allows or a value that is whole (its messages as
// many as its count, every step's messages among them), never panics, and
// allocates in proportion to the rows, not to what a count claims.
func FuzzRead(f *testing.F) {
	for _, seed := range hostileSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := fakeStore(parseRows(text))
		ctx := context.Background()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		snap, err := s.Load(ctx, "s1")
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20+uint64(200*len(text)) {
			t.Errorf("Load allocated %d bytes for %d bytes of rows", n, len(text))
		}
		checkRead(t, "Load", err)
		if err == nil {
			if len(snap.Messages) != snap.Session.Messages || cap(snap.Messages) > max(len(snap.Messages), maxPrealloc) {
				t.Errorf("Load = %d messages (capacity %d), and a count of %d", len(snap.Messages), cap(snap.Messages), snap.Session.Messages)
			}
			if snap.Session.ID != "s1" || snap.Session.Version < 1 || snap.Session.Step < 0 {
				t.Errorf("Load = %+v", snap.Session)
			}
			for _, c := range snap.Calls {
				if c.Attempt < 1 || c.Step < 0 || c.Duration < 0 {
					t.Errorf("Load: call record %+v", c)
				}
			}
		}
		tr, err := s.Show(ctx, "s1")
		checkRead(t, "Show", err)
		if err == nil {
			prev, end := 0, 0
			for _, st := range tr.Steps {
				if st.Number <= prev || st.First != end || st.Messages < 0 || st.First+st.Messages > len(tr.Messages) {
					t.Errorf("Show: step %+v after step %d, of %d messages", st, prev, len(tr.Messages))
				}
				_ = tr.Messages[st.First : st.First+st.Messages] // what `toolwire sessions show` prints
				prev, end = st.Number, st.First+st.Messages
			}
			for _, r := range tr.Results {
				if r.Size < 0 {
					t.Errorf("Show: result %+v", r)
				}
			}
		}
		r, err := s.Result(ctx, "s1", "r1")
		checkRead(t, "Result", err)
		if err == nil && int64(len(r.Data)) != r.Size {
			t.Errorf("Result = %d bytes, size %d", len(r.Data), r.Size)
		}
		_, err = s.List(ctx, nil)
		checkRead(t, "List", err)
	})
}

// TestCountIsAHint loads sessions whose row claims many more messages than
// it holds: the load reserves a bounded number of them, and reports the
// session corrupt.
func TestCountIsAHint(t *testing.T) {
	for _, count := range []int64{10_000_000, maxCount, 3_000_000_000, math.MaxInt64} {
		t.Run(strconv.FormatInt(count, 10), func(t *testing.T) {
			s := fakeStore(parseRows(strings.Replace(goodRows, "messages=i2", fmt.Sprintf("messages=i%d", count), 1)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := s.Load(context.Background(), "s1")
			runtime.ReadMemStats(&after)
			var ce *session.CorruptError
			if !errors.As(err, &ce) || ce.Session != "s1" {
				t.Errorf("Load with a count of %d = %v, want a *session.CorruptError", count, err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("Load with a count of %d allocated %d bytes, want at most 1 MiB", count, n)
			}
		})
	}
}

// TestDescribe checks how errors show the values of columns.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, "NULL"},
		{int64(-1), "-1"},
		{1.5, "the real number 1.5"},
		{true, "true"},
		{"running", `"running"`},
		{strings.Repeat("x", 100), `"` + strings.Repeat("x", 64) + `"… (100 bytes)`},
		{[]byte{0xff, 0}, "a 2-byte blob"},
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05Z"},
		{struct{}{}, "a value of an unknown type"},
	} {
		var v value
		if err := v.Scan(tc.v); err != nil {
			t.Fatal(err)
		}
		if got := describe(v); got != tc.want {
			t.Errorf("describe(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestGoodRows reads the rows that the hostile seeds start from: every
// read returns them whole, so that the seeds each break one thing.
func TestGoodRows(t *testing.T) {
	s := fakeStore(parseRows(goodRows))
	ctx := context.Background()
	snap, err := s.Load(ctx, "s1")
	if err != nil || len(snap.Messages) != 2 || snap.State == nil || len(snap.Calls) != 1 || snap.Calls[0].Result == nil {
		t.Fatalf("Load = %+v, %v; want 2 messages, a state and a finished call", snap, err)
	}
	tr, err := s.Show(ctx, "s1")
	if err != nil || len(tr.Steps) != 2 || tr.Steps[1].First != 1 || len(tr.Results) != 1 {
		t.Fatalf("Show = %+v, %v; want 2 steps and a result", tr, err)
	}
	if r, err := s.Result(ctx, "s1", "r1"); err != nil || string(r.Data) != "[1]" {
		t.Fatalf("Result = %+v, %v", r, err)
	}
	if p, err := s.List(ctx, nil); err != nil || len(p.Sessions) != 1 {
		t.Fatalf("List = %+v, %v", p, err)
	}
}
