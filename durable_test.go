package toolwire_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

func memStore(t testing.TB) *memory.Store {
	s, err := memory.New(nil)
	must(t, err)
	return s
}

// bookTool needs approval and counts its runs.
func bookTool(ran *atomic.Int32) tool.Tool {
	type in struct {
		City string `json:"city" minLength:"1"`
	}
	return tool.MustFunc("book_trip", "Books a trip.", func(ctx context.Context, a in) (string, error) {
		ran.Add(1)
		return "booked " + a.City, nil
	}, &tool.FuncOptions{RequiresApproval: true, Idempotency: tool.Level0})
}

// A run with Config.Sessions is stored: every message, in order, and a
// state that continues it.
func TestSessionRun(t *testing.T) {
	srv := llmtest.NewServer(t, calls(paris), llmtest.Turn{Text: "18°C."})
	store := memStore(t)
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(weatherTool()), Sessions: store, Name: "weather"})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	must(t, err)
	if res.Session == "" || res.Session != res.State.ID {
		t.Fatalf("Result.Session = %q, want the run's id %q", res.Session, res.State.ID)
	}
	snap, err := store.Load(context.Background(), res.Session)
	must(t, err)
	if got, want := renderAll(snap.Messages), renderAll(res.State.Messages); got != want {
		t.Errorf("stored messages:\n%s\nwant:\n%s", got, want)
	}
	if snap.Session.Status != session.StatusDone || snap.Session.Agent != "weather" || snap.Session.Title != "Weather in Paris?" {
		t.Errorf("session = %+v", snap.Session)
	}
	if len(snap.Calls) != 0 {
		t.Errorf("the last step has call records %+v", snap.Calls)
	}
	tr, err := store.Show(context.Background(), res.Session)
	must(t, err)
	if len(tr.Calls) != 1 || tr.Calls[0].Result == nil || tr.Calls[0].Result.Status != llm.StatusSuccess || tr.Calls[0].Idempotency != tool.Level2 || tr.Calls[0].Attempt != 1 {
		t.Errorf("call records = %+v, want get_weather's attempt 1, finished", tr.Calls)
	}
	for _, s := range tr.Steps {
		if _, err := toolwire.ParseCheckpoint(s.State); err != nil {
			t.Errorf("step %d: %v", s.Number, err)
		}
	}
}

func renderAll(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role) + ": " + oneLine(m.Text(), 60))
		for _, c := range m.ToolCalls() {
			b.WriteString(" call " + c.ID + " " + c.Name + string(c.Input))
		}
		for _, r := range m.ToolResults() {
			b.WriteString(" result " + r.CallID + " " + string(r.Status))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A call that needs approval pauses the run after the turn's other calls
// ran; another agent over the same store (another process) resumes it:
// approved, rejected with a reason, edited; the person's message comes
// after every result.
func TestPauseResume(t *testing.T) {
	tests := []struct {
		name     string
		decision toolwire.Decision
		wantRuns int32
		want     string // in the book_trip result
	}{
		{"approve", toolwire.Approve(), 1, "book_trip(city=Paris): done"},
		{"reject", toolwire.Reject("too expensive"), 0, "rejected_by_user"},
		{"edit", toolwire.Edit([]byte(`{"city":"Lyon"}`)), 1, "book_trip(city=Lyon): done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, calls(paris, call("book_trip", `{"city":"Paris"}`)), llmtest.Turn{Text: "Done."})
			store := memStore(t)
			var ran atomic.Int32
			cfg := func() *toolwire.Config {
				return &toolwire.Config{Tools: registry(weatherTool(), bookTool(&ran)), Sessions: store}
			}
			a, _ := newAgent(t, dialects(true)[0].new(t, srv), cfg())
			res, err := a.Run(context.Background(), "Book Paris if it is sunny.")
			if !errors.Is(err, toolwire.Paused) {
				t.Fatalf("Run = %v, want paused", err)
			}
			snap, _ := store.Load(context.Background(), res.Session)
			if snap.Session.Status != session.StatusPaused {
				t.Errorf("status = %s, want paused", snap.Session.Status)
			}
			callID := res.State.Next.Calls[1].Call.ID
			b, checker := newAgent(t, dialects(true)[0].new(t, srv), cfg())
			// No decision: a clear error, nothing written.
			if _, err := b.Resume(context.Background(), res.Session, nil); err == nil || !strings.Contains(err.Error(), "wait(s) for a decision") {
				t.Errorf("Resume without decisions = %v", err)
			}
			res2, err := b.Resume(context.Background(), res.Session, &toolwire.Decisions{Calls: map[string]toolwire.Decision{callID: tt.decision}, Message: "Thanks!"})
			must(t, err)
			if res2.Answer != "Done." || ran.Load() != tt.wantRuns {
				t.Errorf("Resume = %+v, ran %d; want Done. and %d runs", res2, ran.Load(), tt.wantRuns)
			}
			snap, _ = store.Load(context.Background(), res.Session)
			msgs := snap.Messages
			n := len(msgs)
			// ... user, assistant(calls), tool(results), user("Thanks!"), assistant("Done.")
			if msgs[n-3].Role != llm.RoleTool || msgs[n-2].Role != llm.RoleUser || msgs[n-2].Text() != "Thanks!" {
				t.Fatalf("stored messages:\n%s", renderAll(msgs))
			}
			rs := msgs[n-3].ToolResults()
			if len(rs) != 2 || !strings.Contains(resultLine(rs[1]), tt.want) {
				t.Errorf("book_trip result = %s, want %q in it", resultLine(rs[1]), tt.want)
			}
			if tt.name == "edit" && !strings.Contains(resultLine(rs[1]), "edited") {
				t.Errorf("the edited call's result does not say so: %s", resultLine(rs[1]))
			}
			if vs := transcript.Check(msgs, transcript.OpenAIChat); !transcript.Accepted(vs) {
				t.Errorf("Check = %v", vs)
			}
			_ = checker
		})
	}
}

// Edited arguments are validated before anything is written.
func TestResumeEditInvalid(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("book_trip", `{"city":"Paris"}`)), llmtest.Turn{Text: "Done."})
	store := memStore(t)
	var ran atomic.Int32
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(bookTool(&ran)), Sessions: store})
	res, _ := a.Run(context.Background(), "Book Paris.")
	id := res.State.Next.Calls[0].Call.ID
	before, _ := store.Load(context.Background(), res.Session)
	for _, args := range []string{`{"city":""}`, `{"city":`} {
		_, err := a.Resume(context.Background(), res.Session, &toolwire.Decisions{Calls: map[string]toolwire.Decision{id: toolwire.Edit([]byte(args))}})
		var re *toolwire.ResumeError
		if !errors.As(err, &re) {
			t.Errorf("Resume with edit %s = %v, want a ResumeError", args, err)
		}
	}
	after, _ := store.Load(context.Background(), res.Session)
	if after.Session.Version != before.Session.Version || ran.Load() != 0 {
		t.Errorf("a refused edit wrote (version %d → %d) or ran (%d)", before.Session.Version, after.Session.Version, ran.Load())
	}
}

// Crash recovery by idempotency level: a finished call's stored result is
// used; a started level_2 call runs again, a level_1 call runs again with
// its stored key; a level_0 call is answered interrupted and never runs
// again; a call that never started runs.
func TestRecover(t *testing.T) {
	var runs [3]atomic.Int32
	keys := make(chan string, 4)
	type in struct {
		N int `json:"n"`
	}
	mk := func(name string, level tool.Idempotency, i int) tool.Tool {
		return tool.MustFunc(name, "A tool.", func(ctx context.Context, a in) (string, error) {
			runs[i].Add(1)
			if level == tool.Level1 {
				ci, _ := tool.CallInfoFrom(ctx)
				keys <- ci.IdempotencyKey
			}
			return name + " ran", nil
		}, &tool.FuncOptions{Idempotency: level})
	}
	reg := func() *toolwire.Config {
		return &toolwire.Config{Tools: registry(mk("pay", tool.Level0, 0), mk("charge", tool.Level1, 1), mk("look", tool.Level2, 2))}
	}
	srv := llmtest.NewServer(t, calls(call("pay", `{"n":1}`), call("charge", `{"n":2}`), call("look", `{"n":3}`), call("look", `{"n":4}`), call("pay", `{"n":5}`)), llmtest.Turn{Text: "ok"})
	store := memStore(t)
	// Crash: the store refuses the commit of the tools step, as a process
	// killed before it would leave it.
	crash := &crashingStore{Store: store}
	cfg := reg()
	cfg.Sessions = crash
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), cfg)
	st := a.Start("go")
	_, err := a.RunState(context.Background(), st)
	if err == nil {
		t.Fatal("the run did not fail on the crashing commit")
	}
	ctx := context.Background()
	snap, _ := store.Load(ctx, st.ID)
	// Make the records say what a crash at different points leaves:
	// pay(1) started, not finished; charge started, not finished; look(3)
	// finished; look(4) started, not finished; pay(5) never started.
	var calls []session.Call
	for _, c := range snap.Calls {
		if strings.Contains(string(c.Arguments), "5") {
			continue
		}
		calls = append(calls, c)
	}
	var key string
	for _, c := range calls {
		if c.Tool == "charge" {
			key = c.IdempotencyKey
		}
	}
	if len(calls) != 4 || key == "" {
		t.Fatalf("started records = %+v", calls)
	}
	<-keys
	store2 := memStore(t)
	_, _ = store2.Create(ctx, session.Session{ID: st.ID})
	tr, _ := store.Show(ctx, st.ID)
	s2, err := store2.Commit(ctx, &session.Step{Session: st.ID, Version: 1, Number: 1, Messages: snap.Messages, State: tr.Steps[len(tr.Steps)-1].State})
	must(t, err)
	for _, c := range calls {
		c.Step, c.Result = 0, nil
		if strings.Contains(string(c.Arguments), "3") {
			r := llm.ToolResult{CallID: c.ID, Name: c.Tool, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "stored look result"}}}
			must(t, store2.Record(ctx, st.ID, s2.Version, c))
			c.Result = &r
		}
		must(t, store2.Record(ctx, st.ID, s2.Version, c))
	}
	for i := range runs {
		runs[i].Store(0)
	}
	cfg = reg()
	cfg.Sessions = store2
	b, _ := newAgent(t, dialects(true)[0].new(t, srv), cfg)
	rec, err := b.Recover(ctx, st.ID)
	must(t, err)
	var statuses []string
	for _, pc := range rec.Next.Calls {
		s := "run"
		if pc.Result != nil {
			s = string(pc.Result.Status) + ":" + oneLine(pc.Result.Content[0].(llm.Text).Text, 30)
		}
		statuses = append(statuses, s)
	}
	t.Logf("recovered: %v", statuses)
	res, err := b.Resume(ctx, st.ID, nil)
	must(t, err)
	if res.Answer != "ok" {
		t.Fatalf("Resume = %+v", res)
	}
	if runs[0].Load() != 1 || runs[1].Load() != 1 || runs[2].Load() != 1 {
		t.Errorf("runs after recovery: pay %d (want 1: only the one never started), charge %d (want 1), look %d (want 1: only the unfinished one)", runs[0].Load(), runs[1].Load(), runs[2].Load())
	}
	if got := <-keys; got != key {
		t.Errorf("charge ran again with key %q, want the stored %q", got, key)
	}
	snap, _ = store2.Load(ctx, st.ID)
	if vs := transcript.Check(snap.Messages, transcript.OpenAIChat); !transcript.Accepted(vs) {
		t.Errorf("recovered session: Check = %v", vs)
	}
	var results []llm.ToolResult
	for _, m := range snap.Messages {
		results = append(results, m.ToolResults()...)
	}
	want := []string{"interrupted", "charge(n=2): done", "stored look result", "look(n=4): done", "pay(n=5): done"}
	for i, r := range results {
		if !strings.Contains(resultLine(r), want[i]) {
			t.Errorf("result %d = %s, want %q in it", i, resultLine(r), want[i])
		}
	}
	if r := resultLine(results[0]); !strings.Contains(r, "verify") {
		t.Errorf("the interrupted result suggests no verification: %s", r)
	}
}

// crashingStore fails the commit of every step after the first tool
// calls were recorded, as a crash before it would.
type crashingStore struct {
	*memory.Store
	recorded atomic.Bool // Record is called by the calls of a turn at once
}

func (c *crashingStore) Record(ctx context.Context, id string, v int64, calls ...session.Call) error {
	c.recorded.Store(true)
	return c.Store.Record(ctx, id, v, calls...)
}

func (c *crashingStore) Commit(ctx context.Context, s *session.Step) (session.Session, error) {
	if c.recorded.Load() {
		return session.Session{}, errors.New("crash")
	}
	return c.Store.Commit(ctx, s)
}

var _ = toolresult.Interrupted

// A session may pause several times; each resume, by a new agent (as
// another process would), answers the calls waiting then.
func TestSeveralInterrupts(t *testing.T) {
	srv := llmtest.NewServer(t,
		calls(call("book_trip", `{"city":"Paris"}`)),
		calls(paris, call("book_trip", `{"city":"Lyon"}`)),
		llmtest.Turn{Text: "Booked both."})
	store := memStore(t)
	var ran atomic.Int32
	agent := func() *toolwire.Agent {
		a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(weatherTool(), bookTool(&ran)), Sessions: store})
		return a
	}
	ctx := context.Background()
	res, err := agent().Run(ctx, "Book Paris, then Lyon.")
	if !errors.Is(err, toolwire.Paused) {
		t.Fatalf("Run = %v, want paused", err)
	}
	id := res.Session
	for i, want := range []string{"paused", "answered"} {
		pending := res.State.Next.Calls[len(res.State.Next.Calls)-1].Call.ID
		res, err = agent().Resume(ctx, id, &toolwire.Decisions{Calls: map[string]toolwire.Decision{pending: toolwire.Approve()}})
		if string(res.Stop) != want {
			t.Fatalf("resume %d = %s, %v; want %s", i+1, res.Stop, err, want)
		}
	}
	if ran.Load() != 2 || res.Answer != "Booked both." {
		t.Errorf("book_trip ran %d times, answer %q", ran.Load(), res.Answer)
	}
	snap, _ := store.Load(ctx, id)
	if vs := transcript.Check(snap.Messages, transcript.OpenAIChat); !transcript.Accepted(vs) {
		t.Errorf("Check = %v", vs)
	}
	if got := renderAll(snap.Messages); strings.Count(got, "tool:") != 2 {
		t.Errorf("stored:\n%s", got)
	}
}

// A result offloaded before a pause is read back with read_result by the
// agent that resumes the session: the ref is the session's.
func TestOffloadedSurvivesResume(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("search_orders", `{}`), call("book_trip", `{"city":"Paris"}`)))
	store := memStore(t)
	var ran atomic.Int32
	cfg := func() *toolwire.Config {
		return &toolwire.Config{Tools: registry(ordersTool(), bookTool(&ran)), Sessions: store}
	}
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), cfg())
	res, err := a.Run(context.Background(), "Refunded orders?")
	if !errors.Is(err, toolwire.Paused) {
		t.Fatalf("Run = %v", err)
	}
	ref := regexp.MustCompile(`r-[0-9a-z]{14}`).FindString(resultLine(*res.State.Next.Calls[0].Result) + string(mustText(res.State.Next.Calls[0].Result)))
	if ref == "" {
		t.Fatalf("no session ref in %s", resultLine(*res.State.Next.Calls[0].Result))
	}
	srv.Add(calls(call("read_result", `{"ref":"`+ref+`","offset":0,"limit":2}`)), llmtest.Turn{Text: "ok"})
	b, _ := newAgent(t, dialects(true)[0].new(t, srv), cfg())
	res, err = b.Resume(context.Background(), res.Session, &toolwire.Decisions{Calls: map[string]toolwire.Decision{res.State.Next.Calls[1].Call.ID: toolwire.Reject("no")}})
	must(t, err)
	msgs := res.State.Messages
	rr := msgs[len(msgs)-2].ToolResults()[0]
	if rr.Name != "read_result" || rr.Status != llm.StatusSuccess {
		t.Errorf("read_result after resume = %s", resultLine(rr))
	}
}

func mustText(r *llm.ToolResult) string {
	if t, ok := r.Content[0].(llm.Text); ok {
		return t.Text
	}
	return ""
}

// TestContinueStoredRun: a cancelled run of an agent with Sessions is
// continued from its Result.State, as Result documents, in the same
// session; a state that is not the session's latest is refused.
func TestContinueStoredRun(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("wait", `{}`), paris), llmtest.Turn{Text: "Resumed: 18°C."})
	wait, started := waitTool()
	store := memStore(t)
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(wait, weatherTool()), Sessions: store})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	res, err := a.Run(ctx, "Wait, then the weather in Paris.")
	if !errors.Is(err, toolwire.Cancelled) {
		t.Fatalf("Run error = %v, want cancelled", err)
	}
	stale := a.Start("Wait, then the weather in Paris.")
	stale.ID = res.Session
	if _, err := a.RunState(context.Background(), stale); err == nil || !strings.Contains(err.Error(), "not the session's latest") {
		t.Errorf("RunState(a stale state of session %s) = %v, want it refused as not the latest", res.Session, err)
	}

	res, err = a.RunState(context.Background(), res.State)
	if err != nil || res.Answer != "Resumed: 18°C." {
		t.Fatalf("RunState(the cancelled run's state) = %+v, %v; want the run continued", res, err)
	}
	snap, err := store.Load(context.Background(), res.Session)
	must(t, err)
	if got, want := renderAll(snap.Messages), renderAll(res.State.Messages); got != want {
		t.Errorf("stored messages after Continue:\n%s\nwant:\n%s", got, want)
	}
	if snap.Session.Status != session.StatusDone {
		t.Errorf("session status = %s, want done", snap.Session.Status)
	}
}

// TestResumeRetriesModelError: a stored run that ended on a model failure
// (an outage past the client's retries) is resumed without a new
// message: Resume makes the failed call again. A run that answered still
// needs a message.
func TestResumeRetriesModelError(t *testing.T) {
	srv := llmtest.NewServer(t, calls(paris), llmtest.Turn{Error: &llmtest.Error{Kind: llm.Auth}}, llmtest.Turn{Text: "18°C."})
	store := memStore(t)
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(weatherTool()), Sessions: store})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if !errors.Is(err, toolwire.ModelError) || !errors.Is(err, llm.Auth) {
		t.Fatalf("Run = %v, want a model_error wrapping the auth failure", err)
	}
	res, err = a.Resume(context.Background(), res.Session, nil)
	if err != nil || res.Answer != "18°C." {
		t.Fatalf("Resume after a model error = %+v, %v; want the call made again and answered", res, err)
	}
	if _, err := a.Resume(context.Background(), res.Session, nil); err == nil || !strings.Contains(err.Error(), "give a new message") {
		t.Errorf("Resume of an answered run = %v, want it to ask for a new message", err)
	}
	snap, err := store.Load(context.Background(), res.Session)
	must(t, err)
	if got, want := renderAll(snap.Messages), renderAll(res.State.Messages); got != want {
		t.Errorf("stored messages:\n%s\nwant:\n%s", got, want)
	}
}
