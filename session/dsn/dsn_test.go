package dsn

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/session"
)

func TestRedact(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"./toolwire.db", "./toolwire.db"},
		{"postgres://u:pw1@h/db", "postgres://u:…@h/db"},
		{"postgres://u@h/db?sslmode=disable&password=pw2&x=1", "postgres://u@h/db?sslmode=disable&password=…&x=1"},
		{"host=h password=pw3 dbname=db", "host=h password=… dbname=db"},
		{"host=h password = 'p w\\'4' dbname=db", "host=h password = … dbname=db"},
		{"host=h sslpassword=pw5", "host=h sslpassword=…"},
	}
	for _, tt := range tests {
		if got := Redact(tt.dsn, tt.dsn); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
	}
	// The password is hidden wherever a message repeats it, unquoted too.
	if got := Redact("auth failed for p w'4", "host=h password='p w\\'4'"); strings.Contains(got, "p w'4") {
		t.Errorf("Redact keeps the unquoted password: %q", got)
	}
}

// TestPlain: a store's error reads without the packages' prefixes and
// without the password of the name it came from.
func TestPlain(t *testing.T) {
	name := "postgres://u:pw1@h/db"
	err := errors.New("session/postgres: open: session: unknown schema version 9 at postgres://u:pw1@h/db")
	if got, want := Plain(name, err), "open: unknown schema version 9 at postgres://u:…@h/db"; got != want {
		t.Errorf("Plain = %q, want %q", got, want)
	}
}

func TestIsPostgres(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"postgres://u@h/db", true},
		{"postgresql://u@h/db", true},
		{"host=db.internal dbname=toolwire", true},
		{" dbname = toolwire", true},
		{"./toolwire.db", false},
		{"./host=x.db", false},
		{"file:toolwire.db?mode=rwc", false},
		{"color=blue.db", false},
	} {
		if got := IsPostgres(tt.name); got != tt.want {
			t.Errorf("IsPostgres(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestOpen opens SQLite files, and refuses names that cannot be one with
// an *Error that says why, of the right kind.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.db")
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, closeStore, err := Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := s.(session.Catalog)
	if !ok {
		t.Fatal("the SQLite store lists no sessions")
	}
	if _, err := c.List(context.Background(), nil); err != nil {
		t.Errorf("a new store cannot list: %v", err)
	}
	closeStore()
	for _, tt := range []struct {
		name string
		kind Kind
		says string
	}{
		{"", Wrong, "no database named"},
		{dir, Wrong, "is a directory"},
		{filepath.Join(dir, "no", "x.db"), Wrong, "does not exist"},
		{filepath.Join(dir, "plain", "x.db"), Wrong, "is a file, not a folder"},
		{"file:" + file + "?_pragma=busy_timeout(soon)", Wrong, "_pragma=busy_timeout(soon) is not a wait in milliseconds"},
		{"postgres://u@127.0.0.1:99999/x", Wrong, "port"},
		{"postgres://u:s3cret@127.0.0.1:1/x?connect_timeout=2", Unavailable, "cannot reach the PostgreSQL server at 127.0.0.1:1"},
	} {
		_, _, err := Open(context.Background(), tt.name)
		var de *Error
		if !errors.As(err, &de) || de.Kind != tt.kind || !strings.Contains(de.Msg, tt.says) {
			t.Errorf("Open(%q) = %v; want an Error of kind %d saying %q", tt.name, err, tt.kind, tt.says)
			continue
		}
		if strings.Contains(de.Msg, "s3cret") {
			t.Errorf("Open(%q) shows the password: %s", tt.name, de.Msg)
		}
	}
}

func TestSQLiteSource(t *testing.T) {
	for _, tt := range []struct {
		name, source string
		busy         time.Duration
		err          string
	}{
		{name: "toolwire.db", source: "file:toolwire.db?_pragma=busy_timeout%2810000%29", busy: 10 * time.Second},
		{name: "file:toolwire.db", source: "file:toolwire.db?_pragma=busy_timeout%2810000%29", busy: 10 * time.Second},
		{name: "file:t.db?_pragma=synchronous(NORMAL)", source: "file:t.db?_pragma=synchronous%28NORMAL%29&_pragma=busy_timeout%2810000%29", busy: 10 * time.Second},
		{name: "file:t.db?_pragma=busy_timeout(60000)", source: "file:t.db?_pragma=busy_timeout(60000)", busy: time.Minute},
		{name: "file:t.db?_pragma=BUSY_TIMEOUT = 1500", source: "file:t.db?_pragma=BUSY_TIMEOUT = 1500", busy: 1500 * time.Millisecond},
		{name: "file:t.db?_busy_timeout=2000&_timeout=3000", source: "file:t.db?_busy_timeout=2000&_timeout=3000", busy: 3 * time.Second},
		{name: "file:t.db?_busy_timeout=2000&_pragma=busy_timeout(4000)", source: "file:t.db?_busy_timeout=2000&_pragma=busy_timeout(4000)", busy: 4 * time.Second},
		{name: "./odd?name.db", source: "./odd?name.db", busy: 10 * time.Second},
		{name: "file:t.db?_pragma=busy_timeout(0)", err: "_pragma=busy_timeout(0) is not a wait in milliseconds"},
		{name: "file:t.db?_busy_timeout=soon", err: "_busy_timeout=soon is not a wait in milliseconds"},
		{name: "file:t.db?a=%zz", err: "the part after ? is not a query"},
	} {
		source, busy, err := sqliteSource(tt.name)
		if tt.err != "" {
			if err == nil || err.Kind != Wrong || !strings.Contains(err.Msg, tt.err) {
				t.Errorf("sqliteSource(%q) = %v; want an error saying %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || source != tt.source || busy != tt.busy {
			t.Errorf("sqliteSource(%q) = %q, %v, %v; want %q, %v", tt.name, source, busy, err, tt.source, tt.busy)
		}
	}
}

// TestBusyTimeoutOfName: the wait a file: URI names is the store's, not
// only the connection's: a write gives up after it, not after 10 s.
func TestBusyTimeoutOfName(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "t.db")
	s, closeStore, err := Open(ctx, "file:"+file+"?_pragma=busy_timeout(200)")
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	other, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lock, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer lock.ExecContext(ctx, "ROLLBACK")
	start := time.Now()
	if _, err := s.Create(ctx, session.Session{Agent: "a"}); err == nil {
		t.Fatal("Create succeeded while another connection held the write lock")
	}
	// The default would wait 10 s; 5 s leaves room for a loaded machine.
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("Create waited %v for the lock; the name asks for 200ms", waited)
	}
}
