package dsn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolwire/toolwire/session/dsn"
)

// Open takes what a person gives as --db: here a SQLite file (created,
// its schema migrated), then a folder that does not exist and a
// PostgreSQL URL with a password, whose errors say what to change and
// never show the password.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "dsn")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	store, closeStore, err := dsn.Open(ctx, filepath.Join(dir, "toolwire.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeStore()
	fmt.Printf("opened a store: %t\n", store != nil)

	for _, name := range []string{filepath.Join(dir, "no", "toolwire.db"), "postgres://app:s3cret@127.0.0.1:99999/toolwire"} {
		_, _, err := dsn.Open(ctx, name)
		var de *dsn.Error
		if errors.As(err, &de) && de.Kind == dsn.Wrong {
			fmt.Println(strings.ReplaceAll(de.Msg, dir, "DIR"))
		}
	}
	// Output:
	// opened a store: true
	// DIR/no/toolwire.db: the folder DIR/no does not exist: create it, or give a path in an existing folder
	// PostgreSQL cannot use this connection string: invalid port; e.g. postgres://user@localhost:5432/toolwire or "host=localhost port=5432 dbname=toolwire"
}

// A SQLite file: URI can say how long a write waits for another process's
// lock (here a minute; 10 s when it says nothing), for many processes
// writing one file at once. A wait that is not a number of milliseconds
// is refused.
func ExampleOpen_busyTimeout() {
	dir, _ := os.MkdirTemp("", "dsn")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	name := "file:" + filepath.Join(dir, "toolwire.db") + "?_pragma=busy_timeout(60000)"
	_, closeStore, err := dsn.Open(ctx, name)
	if err != nil {
		fmt.Println(err)
		return
	}
	closeStore()
	fmt.Println("opened with a one-minute wait")

	_, _, err = dsn.Open(ctx, "file:"+filepath.Join(dir, "toolwire.db")+"?_pragma=busy_timeout(1m)")
	fmt.Println(strings.ReplaceAll(err.Error(), dir, "DIR"))
	// Output:
	// opened with a one-minute wait
	// file:DIR/toolwire.db?_pragma=busy_timeout(1m): _pragma=busy_timeout(1m) is not a wait in milliseconds: write _pragma=busy_timeout(60000) for a minute
}
