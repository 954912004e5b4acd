package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sessiontest"
	"github.com/toolwire/toolwire/session/sqlite"
	"github.com/toolwire/toolwire/transcript"
)

// childVar makes the test binary run the CLI instead of the tests, so
// that a test can run it as a child process and kill it.
const childVar = "TOOLWIRE_TEST_CLI_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(mcpServerVar) == "1" {
		serveExampleMCP()
		return
	}
	if os.Getenv(childVar) == "1" {
		f, err := parseFaults(os.Getenv(killVar))
		if err != nil {
			fmt.Fprintf(os.Stderr, "toolwire: %s: %v\n", killVar, err)
			os.Exit(exitcode.Usage)
		}
		testHook = f.wrap
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// crashAgent is the agent the crash tests run: one tool of each
// idempotency level, and one whose result is offloaded.
const crashAgent = `name: crash
model: openai:gpt-4.1
system: Be brief.
tools:
  - example: get_weather
  - example: search_orders
  - example: create_ticket
  - example: notify_customer
`

// The model's turns: four calls, then the answer.
var (
	crashCalls = llmtest.Turn{Calls: []llmtest.Call{
		{Name: "get_weather", Args: `{"city":"Paris"}`},
		{Name: "search_orders", Args: `{"status":"refunded"}`},
		{Name: "create_ticket", Args: `{"subject":"Late delivery of o-00042"}`},
		{Name: "notify_customer", Args: `{"order":"o-00042","message":"Sorry for the delay."}`},
	}}
	crashAnswer = llmtest.Turn{Text: "Done."}
)

// A child is one run of the CLI as a child process.
type child struct {
	stdout, stderr string
	code           int
	killed         bool
}

// crashEnv is where one crash scenario keeps its files.
type crashEnv struct {
	dir, db, agent, ledger string
}

func newCrashEnv(t *testing.T) *crashEnv {
	dir := t.TempDir()
	e := &crashEnv{dir: dir, db: filepath.Join(dir, "toolwire.db"), agent: filepath.Join(dir, "agent.yaml"), ledger: filepath.Join(dir, "ledger")}
	if err := os.WriteFile(e.agent, []byte(crashAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// cli runs the CLI against srv with the kill hook set to kill ("" for
// none).
func (e *crashEnv) cli(t *testing.T, srv *llmtest.Server, kill string, args ...string) child {
	t.Helper()
	full := append([]string{args[0], "--db", e.db, "--model", "openai:gpt-4.1", "--base-url", srv.URL + "/v1"}, args[1:]...)
	cmd := exec.Command(os.Args[0], full...)
	cmd.Env = append(os.Environ(), childVar+"=1", "OPENAI_API_KEY=sk-test", "TOOLWIRE_LEDGER="+e.ledger, killVar+"="+kill)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	c := child{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		c.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			c.killed = true
		}
	default:
		t.Fatalf("run the CLI: %v", err)
	}
	return c
}

var sessionLine = regexp.MustCompile(`(?m)^session (run_[0-9a-f]{24})$`)

// store opens the scenario's database in the test's process.
func (e *crashEnv) store(t *testing.T) *sqlite.Store {
	t.Helper()
	s, ok := openTestStore(t, e.db).(*sqlite.Store)
	if !ok {
		t.Fatalf("%s is not a SQLite database", e.db)
	}
	return s
}

// turnsFor returns the model turns a session still needs.
func turnsFor(t *testing.T, snap *session.Snapshot) []llmtest.Turn {
	if snap == nil || len(snap.State) == 0 {
		return []llmtest.Turn{crashCalls, crashAnswer}
	}
	cp, err := toolwire.ParseCheckpoint(snap.State)
	if err != nil {
		t.Fatal(err)
	}
	if cp.State.Next.Kind == toolwire.Done {
		return nil
	}
	for _, m := range snap.Messages {
		if m.Role == llm.RoleTool {
			return []llmtest.Turn{crashAnswer}
		}
	}
	if cp.State.Next.Kind == toolwire.RunTools {
		return []llmtest.Turn{crashAnswer}
	}
	return []llmtest.Turn{crashCalls, crashAnswer}
}

// checkRequests fails the test if a request the model got would break its
// provider's rules: a call without its result, a result out of place.
func checkRequests(t *testing.T, what string, srv *llmtest.Server) {
	t.Helper()
	for i, r := range srv.Requests() {
		if r.Rejected != "" {
			t.Errorf("%s: request %d was rejected: %s", what, i+1, r.Rejected)
			continue
		}
		if vs := transcript.Check(r.Messages(t), transcript.OpenAIChat); !transcript.Accepted(vs) {
			t.Errorf("%s: request %d breaks the rules: %v", what, i+1, vs)
		}
	}
}

// wire returns messages as their persistence format, to compare them.
func wireOf(t *testing.T, msgs []llm.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		b, err := llm.Conversation{Messages: []llm.Message{m}}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

var refs = regexp.MustCompile(`r-[0-9a-z]{14}`)

// TestCrashRecovery runs the CLI as a child process and kills it with
// SIGKILL at every point of a turn: after each answer of the model, after
// each call's started and finished record, in the middle of each SQLite
// commit. It then resumes the session in a new process and checks that
// no request broke the provider's rules (no orphan call was sent), that
// no level_0 or level_1 side effect happened twice, that no stored
// message was lost or reordered, and that every offloaded result is still
// readable.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CLI some 30 times")
	}
	tried := 0
	interrupted := 0
	for _, point := range []string{"model", "started", "finished", "commit"} {
		for n := 1; ; n++ {
			kill := fmt.Sprintf("%s:%d", point, n)
			done := false
			t.Run(kill, func(t *testing.T) {
				e := newCrashEnv(t)
				srv := llmtest.NewServer(t, crashCalls, crashAnswer)
				first := e.cli(t, srv, kill, "run", e.agent, "Is o-00042 late?")
				checkRequests(t, "before the kill", srv)
				if !first.killed {
					if first.code != 0 {
						t.Fatalf("exit %d, not killed: %s", first.code, first.stderr)
					}
					done = true // the run has no such point: it ran to the end
					return
				}
				tried++
				var id string
				if m := sessionLine.FindStringSubmatch(first.stdout); m != nil {
					id = m[1]
				}
				var before *session.Snapshot
				if id != "" {
					if _, err := os.Stat(e.db); err == nil {
						if snap, err := e.store(t).Load(context.Background(), id); err == nil {
							before = snap
						}
					}
				}
				srv2 := llmtest.NewServer(t, turnsFor(t, before)...)
				var second child
				if before == nil || len(before.State) == 0 {
					// Killed before the run's first step was saved: it is
					// asked again.
					second = e.cli(t, srv2, "", "run", e.agent, "Is o-00042 late?")
					id = sessionLine.FindStringSubmatch(second.stdout)[1]
				} else {
					second = e.cli(t, srv2, "", "resume", id)
				}
				if second.code != 0 || !strings.Contains(second.stdout, "answer:\nDone.") {
					t.Fatalf("after the kill: exit %d\nstdout:\n%s\nstderr:\n%s", second.code, second.stdout, second.stderr)
				}
				checkRequests(t, "after the restart", srv2)
				store := e.store(t)
				snap, err := store.Load(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				// No stored message lost or reordered.
				if before != nil {
					got, want := wireOf(t, snap.Messages), wireOf(t, before.Messages)
					if len(got) < len(want) || strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") {
						t.Errorf("the messages stored before the kill are not a prefix of those after:\nbefore %q\nafter  %q", want, got)
					}
				}
				roles := ""
				for _, m := range snap.Messages {
					roles += string(m.Role)[:1]
				}
				if roles != "suata" {
					t.Errorf("stored roles %q, want system user assistant tool assistant", roles)
				}
				if vs := transcript.Check(snap.Messages, transcript.OpenAIChat); !transcript.Accepted(vs) {
					t.Errorf("the recovered session breaks the rules: %v", vs)
				}
				// No level_0 or level_1 side effect twice.
				ledger, _ := os.ReadFile(e.ledger)
				seen := map[string]int{}
				for _, line := range strings.Split(strings.TrimSpace(string(ledger)), "\n") {
					if line == "" {
						continue
					}
					kind, key, _ := strings.Cut(line, " ")
					if strings.HasPrefix(kind, "T-") {
						kind = "ticket"
					}
					seen[kind+" "+key]++
					if seen[kind+" "+key] > 1 || len(seen) > 2 {
						t.Errorf("a side effect happened twice: ledger\n%s", ledger)
					}
				}
				// Every offloaded result is readable.
				var results []llm.ToolResult
				for _, m := range snap.Messages {
					results = append(results, m.ToolResults()...)
				}
				found := 0
				for _, r := range results {
					text := r.Content[0].(llm.Text).Text
					if strings.Contains(text, `"interrupted"`) {
						interrupted++
					}
					for _, ref := range refs.FindAllString(text, -1) {
						found++
						if _, err := store.Result(context.Background(), id, ref); err != nil {
							t.Errorf("offloaded result %s: %v", ref, err)
						}
					}
				}
				if found == 0 {
					t.Errorf("no offloaded result in %q", results)
				}
			})
			if done || t.Failed() {
				break
			}
		}
	}
	t.Logf("kill points tried: %d (%d level_0 call(s) answered interrupted)", tried, interrupted)
	fmt.Printf("TestCrashRecovery: kill points tried: %d\n", tried)
	if tried < 10 {
		t.Errorf("only %d kill points were tried", tried)
	}
}

// Two processes resuming the same session at once: exactly one goes on,
// the other stops with a conflict error.
func TestResumeConflict(t *testing.T) {
	e := newCrashEnv(t)
	srv := llmtest.NewServer(t, crashCalls)
	first := e.cli(t, srv, "finished:2", "run", e.agent, "Is o-00042 late?")
	if !first.killed {
		t.Fatalf("not killed: exit %d: %s", first.code, first.stderr)
	}
	id := sessionLine.FindStringSubmatch(first.stdout)[1]
	srv2 := llmtest.NewServer(t, crashAnswer)
	meet := t.TempDir() // both load the session before either goes on
	var wg sync.WaitGroup
	out := make([]child, 2)
	for i := range out {
		wg.Go(func() { out[i] = e.cli(t, srv2, "meet:2:"+meet, "resume", id) })
	}
	wg.Wait()
	won, lost := 0, 0
	for _, c := range out {
		switch {
		case c.code == 0 && strings.Contains(c.stdout, "answer:\nDone."):
			won++
		case c.code == exitcode.Rejected && strings.Contains(c.stderr, "conflict: session "+id) && strings.Contains(c.stderr, "another writer committed first"):
			lost++
			if strings.Contains(c.stderr, "*session.") || strings.Contains(c.stderr, "goroutine") {
				t.Errorf("the conflict error shows Go internals: %s", c.stderr)
			}
		default:
			t.Errorf("a resume: exit %d\nstdout:\n%s\nstderr:\n%s", c.code, c.stdout, c.stderr)
		}
	}
	if won != 1 || lost != 1 {
		t.Errorf("%d won, %d lost a conflict; want exactly one of each", won, lost)
	}
	if len(srv2.Requests()) != 1 {
		t.Errorf("the model got %d requests, want 1 (from the winner)", len(srv2.Requests()))
	}
}

// parallelRuns runs 20 sessions at once, each in a process of its own,
// against one database, and checks that each answered.
func parallelRuns(t *testing.T, e *crashEnv) {
	const n = 20
	var wg sync.WaitGroup
	out := make([]child, n)
	for i := range out {
		srv := llmtest.NewServer(t, crashCalls, crashAnswer)
		wg.Go(func() { out[i] = e.cli(t, srv, "", "run", e.agent, fmt.Sprintf("Question %d", i)) })
	}
	wg.Wait()
	for i, c := range out {
		if c.code != 0 || !strings.Contains(c.stdout, "answer:\nDone.") {
			t.Errorf("run %d: exit %d\nstderr:\n%s", i, c.code, c.stderr)
		}
		if strings.Contains(c.stderr+c.stdout, "database is locked") || strings.Contains(c.stderr+c.stdout, "SQLITE_BUSY") {
			t.Errorf("run %d: %s", i, c.stderr)
		}
	}
}

// 20 sessions run in parallel, by 20 processes, against one SQLite file.
// The processes queue for one write lock; on a loaded machine (two cores,
// the race detector, other packages' tests) the last in line can wait
// longer than the default 10 s, so the file names a longer wait: what is
// tested is that no write is lost or fails, not how fast they are.
func TestParallelSQLite(t *testing.T) {
	e := newCrashEnv(t)
	e.db = "file:" + e.db + "?_pragma=busy_timeout(120000)"
	parallelRuns(t, e)
	page, err := e.store(t).List(context.Background(), &session.ListOptions{Limit: 100})
	if err != nil || len(page.Sessions) != 20 {
		t.Fatalf("List = %d sessions, %v; want 20", len(page.Sessions), err)
	}
	for _, s := range page.Sessions {
		if s.Status != session.StatusDone {
			t.Errorf("session %s is %s", s.ID, s.Status)
		}
	}
}

// The same against one PostgreSQL database (TOOLWIRE_TEST_POSTGRES_URL;
// .ci/with-postgres starts a server). Without one the test fails in CI
// and is skipped elsewhere.
func TestParallelPostgres(t *testing.T) {
	url := sessiontest.PostgresURL(t, func(ctx context.Context, url string) error {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		return conn.Ping(ctx)
	})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("tw_cli_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	e := newCrashEnv(t)
	e.db = url + sep + "search_path=" + schema
	parallelRuns(t, e)
	var done int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+schema+".toolwire_sessions WHERE status = 'done'").Scan(&done); err != nil || done != 20 {
		t.Errorf("%d sessions done, %v; want 20", done, err)
	}
}
