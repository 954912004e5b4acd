package memory_test

import (
	"testing"

	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/session/sessiontest"
)

func TestConformance(t *testing.T) {
	sessiontest.Exercise(t, func(t *testing.T, c sessiontest.Config) session.Store {
		s, err := memory.New(&memory.Config{Retention: c.Retention, Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, nil)
}

func TestConfig(t *testing.T) {
	if _, err := memory.New(&memory.Config{Retention: session.Retention{MaxAge: -1}}); err == nil {
		t.Error("New with a negative MaxAge = nil error, want one")
	}
}
