package session_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/tool"
)

// A loop saves each step, records a call before it runs, and finds it
// unfinished when the process restarts before it ended.
func Example() {
	ctx := context.Background()
	store, _ := memory.New(nil) // or session/sqlite, session/postgres
	s, _ := store.Create(ctx, session.Session{ID: "s-demo", Title: "Pay the invoice"})

	// Step 1: the question and the model's answer, a call of a level-0 tool.
	call := llm.ToolCall{ID: "call_1", Name: "pay_invoice", Input: jsontext.Value(`{"invoice":"INV-7"}`)}
	s, _ = store.Commit(ctx, &session.Step{
		Session:  s.ID,
		Version:  s.Version, // the version this writer read
		Number:   1,
		Messages: []llm.Message{llm.User("Pay INV-7"), llm.Assistant(call)},
		State:    jsontext.Value(`{"phase":"tools","pending":["call_1"]}`),
	})

	// The write-ahead record, written before the tool runs.
	_ = store.Record(ctx, s.ID, s.Version, session.Call{
		ID: call.ID, Tool: call.Name, Idempotency: tool.Level0, Attempt: 1, Arguments: call.Input,
	})

	// ... the process dies here. Another one loads the session:
	snap, _ := store.Load(ctx, "s-demo")
	fmt.Println(len(snap.Messages), "messages, state", string(snap.State))
	for _, c := range snap.Unfinished() {
		fmt.Printf("%s (%s, %s) started, outcome unknown\n", c.ID, c.Tool, c.Idempotency)
	}
	// Output:
	// 2 messages, state {"phase":"tools","pending":["call_1"]}
	// call_1 (pay_invoice, level_0) started, outcome unknown
}

// Two writers read the session at the same version; the second to commit
// gets a conflict, and nothing of its step is written.
func ExampleConflictError() {
	ctx := context.Background()
	store, _ := memory.New(nil)
	s, _ := store.Create(ctx, session.Session{ID: "s-shared"})

	first := &session.Step{Session: s.ID, Version: s.Version, Number: 1, Messages: []llm.Message{llm.User("from the first")}}
	second := &session.Step{Session: s.ID, Version: s.Version, Number: 1, Messages: []llm.Message{llm.User("from the second")}}
	if _, err := store.Commit(ctx, first); err != nil {
		fmt.Println(err)
	}
	_, err := store.Commit(ctx, second)
	var ce *session.ConflictError
	if errors.As(err, &ce) {
		fmt.Printf("conflict: read version %d, the session is at %d\n", ce.Read, ce.Current)
	}
	fmt.Println(errors.Is(err, session.ErrConflict))
	snap, _ := store.Load(ctx, s.ID)
	fmt.Println(snap.Messages[0].Text())
	// Output:
	// conflict: read version 1, the session is at 2
	// true
	// from the first
}

// Offloaded results are pruned on demand, or at every tick of a ticker the
// caller owns; PruneOn returns when the ticker is closed or the context is
// done.
func ExamplePruneOn() {
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	store, _ := memory.New(&memory.Config{
		Retention: session.Retention{MaxAge: 24 * time.Hour},
		Now:       func() time.Time { return now },
	})
	s, _ := store.Create(ctx, session.Session{})
	ref, _ := store.PutResult(ctx, s.ID, session.Offloaded{Tool: "search_orders", Kind: "json",
		MediaType: "application/json", Data: []byte(`[{"id":1},{"id":2}]`)})

	now = now.Add(48 * time.Hour)
	tick := make(chan time.Time, 1)
	tick <- now
	close(tick)
	fmt.Println(session.PruneOn(ctx, store, tick))
	_, err := store.Result(ctx, s.ID, ref)
	fmt.Println(errors.Is(err, session.ErrNotFound))
	// Output:
	// <nil>
	// true
}
