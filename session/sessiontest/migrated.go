package sessiontest

import (
	"context"
	"testing"

	"github.com/toolwire/toolwire/session"
)

// Migrated checks a store opened on a database of schema 1 that held the
// session "old" (title "an old run"): the old session reads back with no
// model, and a new session keeps its model, as the columns migration 2
// added say.
func Migrated(t *testing.T, s session.Store) {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Load(ctx, "old")
	if err != nil {
		t.Fatalf("Load of a session written by schema 1 = %v", err)
	}
	if snap.Session.Title != "an old run" || snap.Session.Model != (session.Model{}) {
		t.Errorf("Load of a session written by schema 1 = %+v, want its title and no model", snap.Session)
	}
	temp := 0.5
	m := session.Model{Spec: "openai:gpt-4o", BaseURL: "http://localhost:1/v1", Options: session.ModelOptions{Temperature: &temp, MaxTurns: 3}}
	if _, err := s.Create(ctx, session.Session{ID: "new", Model: m}); err != nil {
		t.Fatalf("Create on the migrated schema = %v", err)
	}
	snap, err = s.Load(ctx, "new")
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Session.Model; got.Spec != m.Spec || got.BaseURL != m.BaseURL || got.Options.Temperature == nil || *got.Options.Temperature != temp || got.Options.MaxTurns != 3 {
		t.Errorf("Load(new).Session.Model = %+v, want %+v", got, m)
	}
}
