package servertest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/session/dsn"
	"github.com/toolwire/toolwire/temporal"
	"github.com/toolwire/toolwire/temporal/internal/fixture"
	"github.com/toolwire/toolwire/transcript"
)

// The environment of a worker process: the test binary, run again.
const (
	envWorker    = "TOOLWIRE_TEMPORAL_TEST_WORKER" // host:port of the server
	envNamespace = "TOOLWIRE_TEMPORAL_TEST_NAMESPACE"
	envQueue     = "TOOLWIRE_TEMPORAL_TEST_QUEUE"
	envDir       = "TOOLWIRE_TEMPORAL_TEST_DIR"
	envModel     = "TOOLWIRE_TEMPORAL_TEST_MODEL"
	envDB        = "TOOLWIRE_TEMPORAL_TEST_DB" // a SQLite file: the agent's session store, when set
)

// faultConfig makes a lost worker noticed within a second.
var faultConfig = &temporal.Config{Heartbeat: time.Second, RetryInterval: 100 * time.Millisecond}

func TestMain(m *testing.M) {
	if hp := os.Getenv(envWorker); hp != "" {
		if err := runWorker(hp); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runWorker is a worker process: the fixture agent on the queue, until
// it is killed.
func runWorker(hostPort string) error {
	quiet := log.NewStructuredLogger(slog.New(slog.DiscardHandler))
	c, err := client.Dial(client.Options{HostPort: hostPort, Namespace: os.Getenv(envNamespace), Logger: quiet})
	if err != nil {
		return err
	}
	defer c.Close()
	m, cfg, err := fixture.New(os.Getenv(envDir), os.Getenv(envModel))
	if err != nil {
		return err
	}
	if path := os.Getenv(envDB); path != "" {
		s, closeStore, err := dsn.Open(context.Background(), path)
		if err != nil {
			return err
		}
		defer closeStore()
		cfg.Sessions = s
	}
	rt, err := temporal.New([]temporal.Agent{{Name: fixture.Name, Model: m, Config: cfg}}, faultConfig)
	if err != nil {
		return err
	}
	w := worker.New(c, os.Getenv(envQueue), worker.Options{StickyScheduleToStartTimeout: time.Second})
	rt.Register(w)
	return w.Run(worker.InterruptCh())
}

// startWorker starts a worker process, with the environment env added;
// the test kills what is left of it when it ends.
func startWorker(t *testing.T, ts *temporaltest.TestServer, queue, dir, modelURL string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), envWorker+"="+ts.GetFrontendHostPort(), envNamespace+"="+ts.GetDefaultNamespace(),
		envQueue+"="+queue, envDir+"="+dir, envModel+"="+modelURL), env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// eventually polls f until it reports done, for at most a minute.
func eventually(t *testing.T, what string, f func() (bool, error)) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		done, err := f()
		if err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// lastWorkflowWorker is the pid of the worker that ran the session's
// latest workflow task (an SDK worker's identity is "pid@host@...").
func lastWorkflowWorker(t *testing.T, c client.Client, id string) int {
	t.Helper()
	pid := 0
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := e.GetWorkflowTaskStartedEventAttributes(); a != nil {
			p, err := strconv.Atoi(strings.Split(a.GetIdentity(), "@")[0])
			if err != nil {
				t.Fatalf("worker identity %q: %v", a.GetIdentity(), err)
			}
			pid = p
		}
	}
	return pid
}

// Two worker processes on one task queue; the one running an effect is
// killed with SIGKILL in the middle of it. The session completes on the
// other: a level_0 call ran at most once (the counter file says so) and
// is answered interrupted; a level_1 call's effect happened once, its
// attempts sharing one key; a model call is made again; a pause for
// approval survives. No tool message is lost or duplicated, and the
// final history passes the provider's rules (toolwire check).
func TestWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes and kills them")
	}
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	c := ts.GetDefaultClient()
	tests := []struct {
		name  string
		file  string // the recorded history, for the replay test
		turns []llmtest.Turn
		hold  string // the tool (or "model") held while its worker is killed; "" kills during the approval wait
		count string // its counter, when not named after it
		check func(t *testing.T, dir string, results []llm.ToolResult)
	}{{
		name:  "level_0 call",
		file:  "lost-level0",
		turns: []llmtest.Turn{{Calls: []llmtest.Call{fixture.Call(fixture.Charge, "b"), fixture.Call(fixture.Lookup, "a")}}, {Text: "charged"}},
		hold:  fixture.Charge,
		check: func(t *testing.T, dir string, rs []llm.ToolResult) {
			if n := len(fixture.Counted(t, dir, fixture.Charge)); n != 1 {
				t.Errorf("charge (level_0) ran %d times, want exactly 1", n)
			}
			if rs[0].Status != llm.StatusError || !strings.Contains(rs[0].Text(), "interrupted") {
				t.Errorf("charge's result = %s %q, want an interrupted error", rs[0].Status, rs[0].Text())
			}
			if rs[1].Status != llm.StatusSuccess {
				t.Errorf("lookup's result = %s, want success", rs[1].Status)
			}
		},
	}, {
		name:  "level_1 call",
		file:  "lost-level1",
		turns: []llmtest.Turn{{Calls: []llmtest.Call{fixture.Call(fixture.Book, "c")}}, {Text: "booked"}},
		hold:  fixture.Book,
		count: fixture.Book + ".attempts",
		check: func(t *testing.T, dir string, rs []llm.ToolResult) {
			keys := fixture.Counted(t, dir, fixture.Book+".attempts")
			if len(keys) != 2 || keys[0] != keys[1] {
				t.Errorf("book (level_1) attempts had keys %q, want two with one key", keys)
			}
			if n := len(fixture.Counted(t, dir, fixture.Book+".effects")); n != 1 {
				t.Errorf("book's effect happened %d times, want once", n)
			}
			if rs[0].Status != llm.StatusSuccess {
				t.Errorf("book's result = %s %q, want success", rs[0].Status, rs[0].Text())
			}
		},
	}, {
		name:  "model call",
		turns: []llmtest.Turn{{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a")}}, {Text: "found"}},
		hold:  "model",
		check: func(t *testing.T, dir string, rs []llm.ToolResult) {
			if n := len(fixture.Counted(t, dir, fixture.Lookup)); n != 1 {
				t.Errorf("lookup ran %d times, want 1", n)
			}
		},
	}, {
		name:  "approval wait",
		turns: []llmtest.Turn{{Calls: []llmtest.Call{fixture.Call(fixture.Notify, "ops")}}, {Text: "notified"}},
		check: func(t *testing.T, dir string, rs []llm.ToolResult) {
			if n := len(fixture.Counted(t, dir, fixture.Notify)); n != 1 {
				t.Errorf("notify ran %d times, want 1", n)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewServer(t, tt.turns...)
			defer model.Close()
			dir := t.TempDir()
			queue := "faults-" + strings.ReplaceAll(tt.name, " ", "-")
			if tt.hold != "" {
				if err := os.WriteFile(filepath.Join(dir, "hold-"+tt.hold), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			workers := map[int]*exec.Cmd{}
			for range 2 {
				cmd := startWorker(t, ts, queue, dir, model.URL+"/v1")
				workers[cmd.Process.Pid] = cmd
			}
			ctx := context.Background()
			run, err := temporal.Start(ctx, c, temporal.StartOptions{TaskQueue: queue, Agent: fixture.Name, Question: tt.name})
			if err != nil {
				t.Fatal(err)
			}
			id := run.GetID()
			victim := 0
			if tt.hold != "" {
				count := tt.count
				if count == "" {
					count = tt.hold
				}
				eventually(t, tt.hold+" to start", func() (bool, error) {
					pids, err := fixture.Pids(dir, count)
					if len(pids) > 0 {
						victim = pids[0]
					}
					return victim != 0, err
				})
			} else {
				eventually(t, "the approval wait", func() (bool, error) {
					p, err := temporal.Pending(ctx, c, id)
					return len(p) == 1, err
				})
				victim = lastWorkflowWorker(t, c, id)
			}
			cmd, ours := workers[victim]
			if !ours {
				t.Fatalf("pid %d is none of the workers %v", victim, workers)
			}
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if tt.hold != "" {
				if err := os.Remove(filepath.Join(dir, "hold-"+tt.hold)); err != nil {
					t.Fatal(err)
				}
			} else {
				p, err := temporal.Pending(ctx, c, id)
				if err != nil || len(p) != 1 {
					t.Fatalf("pending after the kill = %v, %v", p, err)
				}
				if err := temporal.Decide(ctx, c, id, temporal.Decisions{Calls: map[string]temporal.Decision{p[0].ID: {Kind: "approve"}}}); err != nil {
					t.Fatal(err)
				}
			}
			var res temporal.SessionResult
			rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			if err := c.GetWorkflow(rctx, id, "").Get(rctx, &res); err != nil {
				t.Fatal(err)
			}
			if res.Stop != string(toolwire.Answered) {
				t.Errorf("stop = %s (%s), want answered", res.Stop, res.Message)
			}
			msgs := fixture.History(t, res.State)
			// Every body the provider received passes toolwire check (the
			// command runs wire.Check), the last one holding the whole
			// history but the answer.
			reqs := model.Requests()
			for i, rq := range reqs {
				rep, err := wire.Check(rq.Body, transcript.OpenAIChat)
				if err != nil || !rep.Accepted() || rq.Rejected != "" {
					t.Errorf("request %d of %d: check = %v, %v; the server: %q", i+1, len(reqs), rep, err, rq.Rejected)
				}
			}
			var rs []llm.ToolResult
			tools := 0
			for _, m := range msgs {
				if m.Role == llm.RoleTool {
					tools++
					rs = append(rs, m.ToolResults()...)
				}
			}
			if want := len(tt.turns[0].Calls); tools != 1 || len(rs) != want {
				t.Fatalf("the history has %d tool messages with %d results, want 1 with %d", tools, len(rs), want)
			}
			tt.check(t, dir, rs)
			if tt.file != "" {
				m, cfg, err := fixture.New(dir, model.URL+"/v1")
				if err != nil {
					t.Fatal(err)
				}
				rt, err := temporal.New([]temporal.Agent{{Name: fixture.Name, Model: m, Config: cfg}}, faultConfig)
				if err != nil {
					t.Fatal(err)
				}
				record(t, c, rt, id, "", tt.file)
			}
		})
	}
}
