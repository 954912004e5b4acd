package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the program picks the driver; the store imports none

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sqlite"
)

func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "toolwire")
	defer os.RemoveAll(dir)

	db, err := sql.Open("sqlite", filepath.Join(dir, "toolwire.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	db.SetMaxOpenConns(8) // readers in parallel; writers take turns anyway

	store, err := sqlite.New(ctx, db, nil) // WAL mode, migrations applied
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := store.Create(ctx, session.Session{ID: "s-1", Agent: "weather"})
	s, _ = store.Commit(ctx, &session.Step{Session: s.ID, Version: s.Version, Number: 1,
		Messages: []llm.Message{llm.User("北京今天适合穿什么衣服?")}})
	page, _ := store.List(ctx, nil)
	for _, s := range page.Sessions {
		fmt.Println(s.ID, s.Agent, s.Status, "version", s.Version, "messages", s.Messages)
	}
	// Output:
	// s-1 weather running version 2 messages 1
}
