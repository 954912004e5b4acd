package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// After a kill -9 while tools run, sessions show marks each call that
// started and never finished "in flight", with what resume will do with
// it, by its tool's level.
func TestShowInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI as a child process")
	}
	for n := 1; n <= 4; n++ {
		kill := fmt.Sprintf("started:%d", n)
		t.Run(kill, func(t *testing.T) {
			e := newCrashEnv(t)
			srv := llmtest.NewServer(t, crashCalls, crashAnswer)
			first := e.cli(t, srv, kill, "run", e.agent, "Is o-00042 late?")
			if !first.killed {
				t.Fatalf("not killed at %s: exit %d: %s", kill, first.code, first.stderr)
			}
			id := sessionLine.FindStringSubmatch(first.stdout)[1]
			snap, err := e.store(t).Load(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			unfinished := snap.Unfinished()
			if len(unfinished) == 0 {
				t.Fatalf("killed at %s, but no call is unfinished", kill)
			}
			show, stderr, code := runWith(t, nil, "sessions", "show", "--db", e.db, id)
			if code != 0 {
				t.Fatalf("sessions show: exit %d: %s", code, stderr)
			}
			for _, c := range unfinished {
				want := fmt.Sprintf("in flight: %s %s [%s] · attempt %d (%s", c.Tool, c.Arguments, c.ID, c.Attempt, c.Idempotency)
				action := "on resume: " + string(toolwire.RecoveryOf(c.Idempotency))
				line := lineWith(show, "["+c.ID+"]", "in flight")
				if !strings.Contains(line, want) || !strings.Contains(line, action) {
					t.Errorf("sessions show: the line of %s is %q, want it to hold %q and %q:\n%s", c.ID, line, want, action, show)
				}
			}
			if got, want := strings.Count(show, "in flight:"), len(unfinished); got != want {
				t.Errorf("sessions show marks %d call(s) in flight, want %d:\n%s", got, want, show)
			}
		})
	}
}

// lineWith returns the first line of s that holds every one of parts.
func lineWith(s string, parts ...string) string {
	for line := range strings.Lines(s) {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return strings.TrimSuffix(line, "\n")
		}
	}
	return ""
}
