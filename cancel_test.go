package toolwire_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// actTool is a tool of one idempotency level that counts its runs (a run
// is a side effect: it may take effect as soon as it starts) and the
// idempotency keys it got. With block set, its first run waits until its
// context is done, and started is closed when it begins.
type actTool struct {
	level   tool.Idempotency
	block   bool
	started chan struct{}
	runs    atomic.Int32
	mu      sync.Mutex
	keys    []string
}

func newActTool(level tool.Idempotency, block bool) *actTool {
	return &actTool{level: level, block: block, started: make(chan struct{})}
}

func (a *actTool) tool() tool.Tool {
	type in struct {
		N int `json:"n"`
	}
	return tool.MustFunc("act", "Acts.", func(ctx context.Context, _ in) (string, error) {
		n := a.runs.Add(1)
		ci, _ := tool.CallInfoFrom(ctx)
		a.mu.Lock()
		a.keys = append(a.keys, ci.IdempotencyKey)
		a.mu.Unlock()
		if a.block && n == 1 {
			close(a.started)
			<-ctx.Done()
			return "", ctx.Err()
		}
		return "acted", nil
	}, &tool.FuncOptions{Idempotency: a.level})
}

// crashAt is a store whose process dies at a call to act: before it
// starts (its started record is never written) or while it runs (the
// started record is written, the finished record never is); nothing is
// committed after that, as kill -9 at that point would leave the
// session.
type crashAt struct {
	*memory.Store
	running bool // die while act runs, not before it starts
	dead    atomic.Bool
}

func (c *crashAt) Record(ctx context.Context, id string, v int64, calls ...session.Call) error {
	for _, cl := range calls {
		if cl.Tool == "act" && (cl.Result != nil) == c.running {
			c.dead.Store(true)
		}
	}
	if c.dead.Load() {
		return errors.New("the process died")
	}
	return c.Store.Record(ctx, id, v, calls...)
}

func (c *crashAt) Commit(ctx context.Context, s *session.Step) (session.Session, error) {
	if c.dead.Load() {
		return session.Session{}, errors.New("the process died")
	}
	return c.Store.Commit(ctx, s)
}

// TestCancelAgreesWithCrash: a run interrupted at a call, by cancelling
// its context (Ctrl-C) or by killing the process (kill -9), resumes the
// same way: the model is sent the same messages next, and the tool runs
// as often. A call interrupted before it started runs on resume; one
// interrupted while it ran follows RecoveryOf its level — a level_0 call
// never runs again (it is answered interrupted), a level_2 call runs
// again, a level_1 call runs again with the same idempotency key.
func TestCancelAgreesWithCrash(t *testing.T) {
	for _, tc := range []struct {
		level    tool.Idempotency
		running  bool   // interrupted while act runs, not before it starts
		runs     int32  // runs of act in all, the interrupted one included
		contains string // in act's result sent after the resume
	}{
		{tool.Level0, true, 1, "[interrupted]"},
		{tool.Level1, true, 2, "act(n=1): done"},
		{tool.Level2, true, 2, "act(n=1): done"},
		{tool.Level0, false, 1, "act(n=1): done"},
		{tool.Level1, false, 1, "act(n=1): done"},
		{tool.Level2, false, 1, "act(n=1): done"},
	} {
		when := "before it starts"
		if tc.running {
			when = "while it runs"
		}
		t.Run(string(tc.level)+"/"+when, func(t *testing.T) {
			type path struct {
				sent string // the messages of the request after the resume
				runs int32
				keys []string
			}
			// interrupt runs the question until it is interrupted at act,
			// then resumes it with a new agent, as a new process would.
			interrupt := func(t *testing.T, crash bool) path {
				srv := llmtest.NewServer(t, calls(call("act", `{"n":1}`), paris), llmtest.Turn{Text: "Done."})
				act := newActTool(tc.level, !crash && tc.running)
				store := memStore(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				cfg := &toolwire.Config{Tools: registry(act.tool(), weatherTool()), Sessions: store}
				switch {
				case crash:
					cfg.Sessions = &crashAt{Store: store, running: tc.running}
				case tc.running:
					go func() { <-act.started; cancel() }()
				default: // Ctrl-C once the model asked for act, before it runs
					cfg.Hooks = []toolwire.Hook{toolwire.HookFunc(func(_ context.Context, e toolwire.Event) {
						if ce, ok := e.(toolwire.CallEvent); ok && ce.Call.Name == "act" {
							cancel()
						}
					})}
				}
				a, _ := newAgent(t, dialects(false)[0].new(t, srv), cfg)
				st := a.Start("Act, and the weather in Paris.")
				_, err := a.RunState(ctx, st)
				switch {
				case crash && err == nil:
					t.Fatal("the run did not stop when its process died")
				case !crash && !errors.Is(err, toolwire.Cancelled):
					t.Fatalf("Run error = %v, want cancelled", err)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Fatalf("the model got %d requests before the resume, want 1", n)
				}
				p := path{}
				b, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(act.tool(), weatherTool()), Sessions: store})
				res, err := b.Resume(context.Background(), st.ID, nil)
				if err != nil || res.Answer != "Done." {
					t.Fatalf("Resume = %+v, %v; want the answer", res, err)
				}
				reqs := srv.Requests()
				var buf bytes.Buffer
				for _, m := range reqs[len(reqs)-1].Messages(t) {
					renderMessage(&buf, m)
				}
				p.sent, p.runs = buf.String(), act.runs.Load()
				act.mu.Lock()
				p.keys = slices.Clone(act.keys)
				act.mu.Unlock()
				return p
			}
			crash := interrupt(t, true)
			ctrlC := interrupt(t, false)
			if ctrlC.sent != crash.sent {
				t.Errorf("after Ctrl-C, the model was sent:\n%s\nafter kill -9:\n%s", ctrlC.sent, crash.sent)
			}
			if !strings.Contains(crash.sent, tc.contains) {
				t.Errorf("after kill -9, the model was sent:\n%s\nwant %q in act's result", crash.sent, tc.contains)
			}
			for _, p := range []struct {
				name string
				path
			}{{"Ctrl-C", ctrlC}, {"kill -9", crash}} {
				if p.runs != tc.runs {
					t.Errorf("after %s and a resume, act ran %d times, want %d", p.name, p.runs, tc.runs)
				}
				if tc.level == tool.Level1 && (len(p.keys) != int(tc.runs) || p.keys[0] == "" || p.keys[0] != p.keys[len(p.keys)-1]) {
					t.Errorf("after %s, act's idempotency keys = %q, want the same key %d time(s)", p.name, p.keys, tc.runs)
				}
			}
		})
	}
}

// A tools outcome keeps, through JSON, whether cancellation cut each
// call short: replayed, Step decides the same.
func TestCancelledOutcomeRoundTrip(t *testing.T) {
	for _, c := range []tool.Cancellation{"", tool.CancelledBeforeStart, tool.CancelledWhileRunning} {
		in := toolwire.ToolsOutcome{Outcomes: []tool.Outcome{{
			Result:    toolresult.Failure(toolresult.Cancelled, "the call was cancelled before it finished").Result("call_1", "act"),
			Envelope:  toolresult.Failure(toolresult.Cancelled, "the call was cancelled before it finished"),
			Cancelled: c,
		}}}
		b, err := toolwire.MarshalInput(in)
		must(t, err)
		back, err := toolwire.ParseInput(b)
		must(t, err)
		if got := back.(toolwire.ToolsOutcome).Outcomes[0].Cancelled; got != c {
			t.Errorf("ParseInput(MarshalInput(outcome cancelled %q)) is cancelled %q, want %q\n%s", c, got, c, b)
		}
	}
	if _, err := toolwire.ParseInput([]byte(`{"kind":"tools","results":{"version":1,"messages":[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","name":"a","status":"error","content":[{"type":"text","text":"x"}]}]}]},"calls":[{"envelope":{"status":"error","summary":"x","error":{"type":"cancelled","message":"x"}},"cancelled":"later"}]}`)); err == nil || !strings.Contains(err.Error(), "later") {
		t.Errorf("ParseInput(cancelled %q) = %v, want an error naming it", "later", err)
	}
}

// cancelAtStart is a store that cancels the run just as the started
// record of act is written, which then fails with the context's error.
type cancelAtStart struct {
	*memory.Store
	cancel context.CancelFunc
}

func (c *cancelAtStart) Record(ctx context.Context, id string, v int64, calls ...session.Call) error {
	for _, cl := range calls {
		if cl.Tool == "act" && cl.Result == nil {
			c.cancel()
		}
	}
	return c.Store.Record(ctx, id, v, calls...)
}

// A run cancelled just as a call's start is recorded stops as cancelled,
// not on the store's error: the call did not start, and runs on resume.
func TestCancelAsStartIsRecorded(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("act", `{"n":1}`)), llmtest.Turn{Text: "Done."})
	act := newActTool(tool.Level0, false)
	store := memStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(act.tool()), Sessions: &cancelAtStart{Store: store, cancel: cancel}})
	res, err := a.Run(ctx, "Act.")
	if !errors.Is(err, toolwire.Cancelled) || act.runs.Load() != 0 {
		t.Fatalf("Run = %v with act run %d times, want cancelled with act not run", err, act.runs.Load())
	}
	b, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(act.tool()), Sessions: store})
	if res, err = b.Resume(context.Background(), res.Session, nil); err != nil || res.Answer != "Done." || act.runs.Load() != 1 {
		t.Errorf("Resume = %+v, %v with act run %d times, want the answer with act run once", res, err, act.runs.Load())
	}
}
