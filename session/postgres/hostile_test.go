package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

// TestHostileNulls reads sessions whose rows hold what PostgreSQL's types
// allow but the store never writes, once the NOT NULL constraints are
// dropped: NULL in every column the store reads that is not part of a
// key, and infinite times. (The conformance suite's HostileRows covers the
// values of the right types.) Each read reports a *session.CorruptError
// naming the column, never a scan error.
func TestHostileNulls(t *testing.T) {
	pool := newPool(t)
	s := newStore(t, pool)
	ctx := context.Background()
	paid := &llm.ToolResult{CallID: "call_1", Name: "pay", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "paid"}}}
	fixture := func(id string) string {
		if _, err := s.Create(ctx, session.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, &session.Step{Session: id, Version: 1, Number: 1, Messages: []llm.Message{llm.User("hi")},
			State: jsontext.Value(`{}`), Calls: []session.Call{{ID: "call_1", Tool: "pay", Attempt: 1, Result: paid}}}); err != nil {
			t.Fatal(err)
		}
		ref, err := s.PutResult(ctx, id, session.Offloaded{Tool: "pay", Data: []byte("x")})
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	for _, c := range []string{
		"toolwire_sessions title", "toolwire_sessions agent", "toolwire_sessions status", "toolwire_sessions version",
		"toolwire_sessions step", "toolwire_sessions messages", "toolwire_sessions created", "toolwire_sessions updated",
		"toolwire_messages data",
		"toolwire_steps version", "toolwire_steps status", "toolwire_steps first_seq", "toolwire_steps messages", "toolwire_steps created",
		"toolwire_calls call_id", "toolwire_calls attempt", "toolwire_calls step", "toolwire_calls tool", "toolwire_calls idempotency",
		"toolwire_calls idempotency_key", "toolwire_calls started",
		"toolwire_results tool", "toolwire_results kind", "toolwire_results media_type", "toolwire_results data",
		"toolwire_results size", "toolwire_results created",
	} {
		table, column, _ := strings.Cut(c, " ")
		exec(t, pool, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL", table, column))
	}
	for i, tc := range []struct {
		table, column string
		value         any
	}{
		{"toolwire_sessions", "title", nil},
		{"toolwire_sessions", "agent", nil},
		{"toolwire_sessions", "status", nil},
		{"toolwire_sessions", "version", nil},
		{"toolwire_sessions", "step", nil},
		{"toolwire_sessions", "messages", nil},
		{"toolwire_sessions", "created", nil},
		{"toolwire_sessions", "created", "infinity"},
		{"toolwire_sessions", "updated", "-infinity"},
		{"toolwire_sessions", "updated", "294276-12-31 00:00:00Z"},
		{"toolwire_messages", "data", nil},
		{"toolwire_steps", "version", nil},
		{"toolwire_steps", "status", nil},
		{"toolwire_steps", "first_seq", nil},
		{"toolwire_steps", "messages", nil},
		{"toolwire_steps", "created", nil},
		{"toolwire_steps", "created", "infinity"},
		{"toolwire_calls", "call_id", nil},
		{"toolwire_calls", "attempt", nil},
		{"toolwire_calls", "step", nil},
		{"toolwire_calls", "tool", nil},
		{"toolwire_calls", "idempotency", nil},
		{"toolwire_calls", "idempotency_key", nil},
		{"toolwire_calls", "started", nil},
		{"toolwire_calls", "finished", "-infinity"},
		{"toolwire_results", "tool", nil},
		{"toolwire_results", "kind", nil},
		{"toolwire_results", "media_type", nil},
		{"toolwire_results", "data", nil},
		{"toolwire_results", "size", nil},
		{"toolwire_results", "created", nil},
		{"toolwire_results", "created", "infinity"},
	} {
		t.Run(fmt.Sprintf("%s.%s=%v", tc.table, tc.column, tc.value), func(t *testing.T) {
			id := fmt.Sprintf("n%02d", i)
			ref := fixture(id)
			key := "session_id"
			if tc.table == "toolwire_sessions" {
				key = "id"
			}
			exec(t, pool, fmt.Sprintf("UPDATE %s SET %s = $1 WHERE %s = $2", tc.table, tc.column, key), tc.value, id)
			name := tc.table + "." + tc.column
			var errs []error
			_, err := s.Load(ctx, id)
			errs = append(errs, err)
			_, err = s.Show(ctx, id)
			errs = append(errs, err)
			_, err = s.Result(ctx, id, ref)
			errs = append(errs, err)
			named := false
			for _, err := range errs {
				if err == nil {
					continue
				}
				var ce *session.CorruptError
				if !errors.As(err, &ce) || ce.Session != id {
					t.Errorf("read of %s = %v, want nil or a *session.CorruptError for %s", id, err, id)
				}
				named = named || strings.Contains(err.Error(), name)
			}
			if !named {
				t.Errorf("reads of %s = %v, want one to be a *session.CorruptError naming %s", id, errs, name)
			}
		})
	}
}
