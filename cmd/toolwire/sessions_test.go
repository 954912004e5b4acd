package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// noInternals fails the test if a message shows Go internals.
func noInternals(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{"*session.", "*toolwire.", "goroutine", "main.", "panic"} {
		if strings.Contains(s, bad) {
			t.Errorf("the output shows Go internals (%q): %s", bad, s)
		}
	}
}

// A run is saved; sessions list, show and rm read and delete it.
func TestSessionsCommands(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	db := tempDB(t)
	stdout, stderr, code := runWith(t, nil, "run", "--db", db, "examples/agent/agent.yaml", "Open a ticket about the late delivery of order o-00042")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	id := runIDs.FindString(stdout)
	list, _, code := runWith(t, nil, "sessions", "list", "--db", db)
	if code != 0 || !strings.Contains(list, id) || !strings.Contains(list, "done") || !strings.Contains(list, "Open a ticket") {
		t.Errorf("sessions list: exit %d:\n%s", code, list)
	}
	show, _, code := runWith(t, nil, "sessions", "show", "--db", db, id)
	for _, want := range []string{"session " + id + " · done", "── turn 1", "the model saw 2 message(s)", "assistant → create_ticket", "tool ← create_ticket success [call_1_0]",
		"attempt 1 (level_1 key idem_", "── turn 2", "ended: answered", "usage: 173 input tokens, 47 output tokens"} {
		if !strings.Contains(show, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, show)
		}
	}
	if code != 0 {
		t.Errorf("sessions show: exit %d", code)
	}
	if out, _, code := runWith(t, nil, "sessions", "rm", "--db", db, id); code != 0 || !strings.Contains(out, "deleted session "+id) {
		t.Errorf("sessions rm: exit %d: %s", code, out)
	}
	_, stderr, code = runWith(t, nil, "sessions", "show", "--db", db, id)
	if code != exitcode.Usage || !strings.Contains(stderr, "not found") {
		t.Errorf("show after rm: exit %d: %s", code, stderr)
	}
	noInternals(t, stderr)
}

// Errors a user can make, or meet, are clear and exit 2.
func TestSessionsErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	db := tempDB(t)
	if _, stderr, code := runWith(t, nil, "run", "--db", db, filepath.Join("..", "..", "examples", "agent", "agent.yaml"), "北京今天适合穿什么衣服"); code != 0 {
		t.Fatal(stderr)
	}
	tests := []struct {
		name   string
		args   []string
		stderr string
		code   int
	}{
		{"no subcommand", []string{"sessions"}, "sessions needs a subcommand", exitcode.Usage},
		{"missing database", []string{"sessions", "list", "--db", filepath.Join(dir, "nope.db")}, "no such database", exitcode.Usage},
		{"damaged database", []string{"sessions", "list", "--db", garbage}, "damaged", exitcode.Usage},
		{"unknown session", []string{"sessions", "show", "--db", db, "run_nope"}, "not found", exitcode.Usage},
		{"resume unknown session", []string{"resume", "--db", db, "run_nope"}, "not found", exitcode.Usage},
		{"reject without reason", []string{"resume", "--db", db, "run_nope", "--reject", "c1"}, "give one --reason for each --reject", exitcode.Usage},
		{"edit without args", []string{"resume", "--db", db, "run_nope", "--edit", "c1"}, "give one --args for each --edit", exitcode.Usage},
		{"two decisions", []string{"resume", "--db", db, "run_nope", "--approve", "c1", "--reject", "c1", "--reason", "no"}, "call c1 has two decisions", exitcode.Usage},
		{"bad postgres url", []string{"sessions", "list", "--db", "postgres://u:secret@127.0.0.1:1/x?connect_timeout=1"}, "127.0.0.1", exitcode.Env},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runWith(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.stderr)
			}
			if strings.Contains(stderr, "secret") {
				t.Errorf("the password shows: %s", stderr)
			}
			noInternals(t, stderr)
		})
	}
}

// A tool the agent file marks approval: true pauses the run; resume
// --approve, --reject and --edit answer it, and a new message comes after
// every result.
func TestResumeDecisions(t *testing.T) {
	turns := []llmtest.Turn{{Calls: []llmtest.Call{
		{Name: "get_weather", Args: `{"city":"Paris"}`},
		{Name: "notify_customer", Args: `{"order":"o-00042","message":"Sorry."}`},
	}}}
	tests := []struct {
		name  string
		flags []string
		want  string
	}{
		{"approve", []string{"--approve", "call_1_1"}, `← notify_customer success: {"status":"success","summary":"notify_customer(message=Sorry., order=o-00042): done"`},
		{"reject", []string{"--reject", "call_1_1", "--reason", "not now"}, `"type":"rejected_by_user","message":"the user declined this call: not now; it did not run"`},
		{"edit", []string{"--edit", "call_1_1", "--args", `{"order":"o-00042","message":"We are sorry."}`}, `A person edited this call's arguments before it ran`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCrashEnv(t)
			if err := os.WriteFile(e.agent, []byte("name: approve\nmodel: openai:gpt-4.1\ntools:\n  - get_weather\n  - {example: notify_customer, approval: true}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := llmtest.NewServer(t, turns...)
			first := e.cli(t, srv, "", "run", e.agent, "Tell the customer of o-00042.")
			if first.code != exitcode.Rejected || !strings.Contains(first.stdout, "(needs approval)") || !strings.Contains(first.stdout, "is paused; resume it with: toolwire resume") {
				t.Fatalf("run: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
			}
			id := sessionLine.FindStringSubmatch(first.stdout)[1]
			// The hint is the command to type: the same database, model and
			// server as the run.
			if want := "toolwire resume " + id + " --db " + shellQuote(e.db) + " --model openai:gpt-4.1 --base-url " + srv.URL + "/v1 --approve call_1_1"; !strings.Contains(first.stdout, want) {
				t.Errorf("run's resume hint does not say %q:\n%s", want, first.stdout)
			}
			// A wrong edit is refused, nothing written.
			srv2 := llmtest.NewServer(t, llmtest.Turn{Text: "Done."})
			bad := e.cli(t, srv2, "", "resume", id, "--edit", "call_1_1", "--args", `{"order":"42"}`)
			if bad.code != exitcode.Usage || !strings.Contains(bad.stderr, "break the tool's schema") {
				t.Errorf("a bad edit: exit %d: %s", bad.code, bad.stderr)
			}
			noInternals(t, bad.stderr)
			args := append([]string{"resume", id}, tt.flags...)
			args = append(args, "And thank them.")
			second := e.cli(t, srv2, "", args...)
			if second.code != 0 || !strings.Contains(second.stdout, tt.want) || !strings.Contains(second.stdout, "answer:\nDone.") {
				t.Fatalf("resume: exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
			}
			// The new message is the last the model saw, after the results.
			msgs := srv2.Requests()[0].Messages(t)
			if last := msgs[len(msgs)-1]; last.Text() != "And thank them." || msgs[len(msgs)-2].Role != "tool" {
				t.Errorf("the model saw %q last, after %s", last.Text(), msgs[len(msgs)-2].Role)
			}
			ledger, _ := os.ReadFile(e.ledger)
			if n := strings.Count(string(ledger), "notify "); (tt.name == "reject") != (n == 0) || n > 1 {
				t.Errorf("notify_customer ran %d time(s)", n)
			}
		})
	}
}

// A libpq key/value DSN names PostgreSQL, and its password never shows.
func TestKeyValueDSN(t *testing.T) {
	const password = "hunter2-s3cret"
	agentFile, err := filepath.Abs(filepath.Join("..", "..", "examples", "agent", "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // a DSN taken for a SQLite path makes a file here
	tests := []struct {
		name, dsn string
		code      int
	}{
		{"plain", "host=127.0.0.1 port=1 user=u password=" + password + " dbname=x connect_timeout=1", exitcode.Env},
		{"quoted", "host=127.0.0.1 port=1 password = '" + password + " two' dbname=x", exitcode.Env},
		{"unix socket", "host=/nonexistent/socket/dir password=" + password, exitcode.Env},
		{"bad port", "host=127.0.0.1 port=notaport password=" + password, exitcode.Usage},
		{"url query", "postgres://u@127.0.0.1:1/x?password=" + password + "&connect_timeout=1", exitcode.Env},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, args := range [][]string{
				{"sessions", "list", "--db", tt.dsn},
				{"run", "--db", tt.dsn, agentFile, "北京今天适合穿什么衣服"},
			} {
				stdout, stderr, code := runWith(t, nil, args...)
				if code != tt.code || !strings.Contains(stderr, "PostgreSQL") {
					t.Errorf("toolwire %s --db %q: exit %d, stderr %q; want %d and an error naming PostgreSQL", args[0], tt.dsn, code, stderr, tt.code)
				}
				if strings.Contains(stdout+stderr, password) {
					t.Errorf("toolwire %s --db %q shows the password: %s%s", args[0], tt.dsn, stdout, stderr)
				}
				noInternals(t, stderr)
			}
		})
	}
}
