package temporal

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/temporal/internal/fixture"
)

// setup returns a test environment with the fixture agent registered,
// its model the conformance server answering turns, its counters in the
// returned folder.
func setup(t *testing.T, cfg *Config, turns ...llmtest.Turn) (*testsuite.TestWorkflowEnvironment, string, *llmtest.Server, *Runtime) {
	t.Helper()
	srv := llmtest.NewServer(t, turns...)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	m, c, err := fixture.New(dir, srv.URL+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New([]Agent{{Name: fixture.Name, Model: m, Config: c}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	rt.Register(env)
	return env, dir, srv, rt
}

// finished returns the session's result, failing the test if the
// workflow did not complete.
func finished(t *testing.T, env *testsuite.TestWorkflowEnvironment) SessionResult {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("the workflow failed: %v", err)
	}
	var res SessionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// results are the tool results of msgs, "tool:status:text" each.
func results(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, r := range m.ToolResults() {
			out = append(out, r.Name+":"+string(r.Status)+":"+r.Text())
		}
	}
	return out
}

// A turn with a call of each level runs each call as an activity of its
// own, once, and the session answers with a history the provider takes.
func TestSessionOneActivityPerEffect(t *testing.T) {
	env, dir, srv, _ := setup(t, nil,
		llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a"), fixture.Call(fixture.Charge, "b"), fixture.Call(fixture.Book, "c")}},
		llmtest.Turn{Text: "done: a, b, c"})
	var mu sync.Mutex
	var started []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		mu.Lock()
		defer mu.Unlock()
		started = append(started, info.ActivityType.Name)
	})
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "do a, b, c"})
	res := finished(t, env)
	if res.Stop != string(toolwire.Answered) || res.Answer != "done: a, b, c" || res.Turns != 2 {
		t.Errorf("result = %+v, want answered with %q in 2 turns", res, "done: a, b, c")
	}
	slices.Sort(started)
	if want := []string{ActivityModel, ActivityModel, ActivityTool, ActivityTool, ActivityTool}; !slices.Equal(started, want) {
		t.Errorf("activities = %v, want %v", started, want)
	}
	msgs := fixture.History(t, res.State)
	got := results(msgs)
	if len(got) != 3 || !strings.HasPrefix(got[0], "lookup:success") || !strings.HasPrefix(got[1], "charge:success") || !strings.HasPrefix(got[2], "book:success") {
		t.Errorf("results = %q, want lookup, charge, book in call order, each a success", got)
	}
	for _, name := range []string{fixture.Lookup, fixture.Charge, fixture.Book + ".effects"} {
		if n := len(fixture.Counted(t, dir, name)); n != 1 {
			t.Errorf("%s ran %d times, want 1", name, n)
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
}

// A call that needs approval pauses the session; the waiting call is a
// query; an edit that breaks the schema is refused by the update's
// validator, and an approval runs the call.
func TestSessionApproval(t *testing.T) {
	env, dir, _, _ := setup(t, nil,
		llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a"), fixture.Call(fixture.Notify, "ops")}},
		llmtest.Turn{Text: "notified"})
	var pending []PendingCall
	var badEdit, good error
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryPending)
		if err != nil {
			t.Error(err)
			return
		}
		if err := v.Get(&pending); err != nil {
			t.Error(err)
		}
		if len(pending) != 1 {
			return
		}
		id := pending[0].ID
		env.UpdateWorkflow(UpdateDecide, "bad", &updateResult{err: &badEdit}, Decisions{Calls: map[string]Decision{id: {Kind: "edit", Args: []byte(`{"item":7}`)}}})
		env.UpdateWorkflow(UpdateDecide, "good", &updateResult{err: &good}, Decisions{Calls: map[string]Decision{id: {Kind: "approve"}}, Message: "and tell me when"})
	}, time.Minute)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "notify ops"})
	res := finished(t, env)
	if len(pending) != 1 || pending[0].Tool != fixture.Notify || string(pending[0].Args) != `{"item":"ops"}` {
		t.Fatalf("pending = %+v, want the notify call with its arguments", pending)
	}
	if badEdit == nil || !strings.Contains(badEdit.Error(), "schema") {
		t.Errorf("an edit that breaks the schema: %v, want refused naming the schema", badEdit)
	}
	if good != nil {
		t.Errorf("the approval: %v", good)
	}
	if res.Stop != string(toolwire.Answered) {
		t.Errorf("stop = %s, want answered", res.Stop)
	}
	if n := len(fixture.Counted(t, dir, fixture.Notify)); n != 1 {
		t.Errorf("notify ran %d times, want 1", n)
	}
	msgs := fixture.History(t, res.State)
	// The message comes after the turn's results, never between.
	last := msgs[len(msgs)-2]
	if last.Role != llm.RoleUser || last.Text() != "and tell me when" || msgs[len(msgs)-3].Role != llm.RoleTool {
		t.Errorf("the message is at %v, want after the tool message", roles(msgs))
	}
}

func roles(msgs []llm.Message) []llm.Role {
	out := make([]llm.Role, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}

// updateResult is the testsuite's update callback, keeping the error.
type updateResult struct{ err *error }

func (u *updateResult) Accept()                   {}
func (u *updateResult) Reject(err error)          { *u.err = err }
func (u *updateResult) Complete(_ any, err error) { *u.err = err }

// A worker lost while it runs a call: a level_0 call is answered
// interrupted and never runs again; a level_1 call runs again with the
// same idempotency key and its effect happens once; a level_2 call runs
// again. The model call, lost once, is made again.
func TestSessionLostWorker(t *testing.T) {
	env, dir, _, rt := setup(t, &Config{RetryInterval: time.Millisecond},
		llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a"), fixture.Call(fixture.Charge, "b"), fixture.Call(fixture.Book, "c")}},
		llmtest.Turn{Text: "done"})
	var mu sync.Mutex // the activities run on goroutines of their own
	lostOnce := map[string]bool{}
	lose := func(name string) bool {
		mu.Lock()
		defer mu.Unlock()
		first := !lostOnce[name]
		lostOnce[name] = true
		return first
	}
	// The first attempt of each activity does its work and then "loses
	// its worker": its result never reaches the workflow.
	env.OnActivity(ActivityTool, mock.Anything, mock.Anything).Return(func(ctx context.Context, req ToolRequest) (Outcome, error) {
		out, err := rt.tool(ctx, req)
		if lose(callName(t, req.State)) {
			return Outcome{}, sdktemporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
		}
		return out, err
	})
	env.OnActivity(ActivityModel, mock.Anything, mock.Anything).Return(func(ctx context.Context, req ModelRequest) (Outcome, error) {
		if lose("model") {
			return Outcome{}, errors.New("worker lost")
		}
		return rt.model(ctx, req)
	})
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "do a, b, c"})
	res := finished(t, env)
	got := results(fixture.History(t, res.State))
	if len(got) != 3 || !strings.HasPrefix(got[0], "lookup:success") || !strings.HasPrefix(got[1], "charge:error") ||
		!strings.Contains(got[1], "interrupted") || !strings.HasPrefix(got[2], "book:success") {
		t.Errorf("results = %q, want lookup success, charge interrupted, book success", got)
	}
	if n := len(fixture.Counted(t, dir, fixture.Charge)); n != 1 {
		t.Errorf("charge (level_0) ran %d times, want 1", n)
	}
	if n := len(fixture.Counted(t, dir, fixture.Lookup)); n != 2 {
		t.Errorf("lookup (level_2) ran %d times, want 2", n)
	}
	keys := fixture.Counted(t, dir, fixture.Book+".attempts")
	if len(keys) != 2 || keys[0] != keys[1] || keys[0] == "" {
		t.Errorf("book (level_1) attempts ran with keys %q, want two with one key", keys)
	}
	if n := len(fixture.Counted(t, dir, fixture.Book+".effects")); n != 1 {
		t.Errorf("book's effect happened %d times, want 1", n)
	}
}

// callName is the name of the one call a tool activity's state wants run.
func callName(t *testing.T, b []byte) string {
	t.Helper()
	var st toolwire.State
	if err := st.UnmarshalJSON(b); err != nil || len(st.Next.Calls) != 1 {
		t.Fatalf("a tool activity's state: %v, %d calls", err, len(st.Next.Calls))
	}
	return st.Next.Calls[0].Call.Name
}

// A message signalled while a tool runs waits for the turn's results and
// goes after them, never between a call and its result.
func TestSessionMessageSignal(t *testing.T) {
	env, _, srv, _ := setup(t, nil,
		llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a")}},
		llmtest.Turn{Text: "a, and c too"})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == ActivityTool {
			env.SignalWorkflow(SignalMessage, "also c")
		}
	})
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "look up a"})
	res := finished(t, env)
	msgs := fixture.History(t, res.State)
	want := []llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleUser, llm.RoleAssistant}
	if got := roles(msgs); !slices.Equal(got, want) || msgs[4].Text() != "also c" {
		t.Errorf("roles = %v (message %q), want %v with the message after the tool message", got, msgs[4].Text(), want)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
}

var refPattern = regexp.MustCompile(`\br-[a-z2-7]{14}\b`)

// A result too large for its share of the context is offloaded, by the
// worker that ran the call, to the session store the workers share: the
// workflow's history holds the shaped result and its ref, and
// read_result, run on another worker, reads the rest.
func TestSessionOffloadsToTheSessionStore(t *testing.T) {
	store, err := memory.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Report, "x")}})
	t.Cleanup(srv.Close)
	worker := func() *Runtime {
		m, c, err := fixture.New(t.TempDir(), srv.URL+"/v1")
		if err != nil {
			t.Fatal(err)
		}
		c.Sessions = store
		c.Room = &budget.RoomConfig{MaxResult: 300} // a result's share: the report does not fit
		rt, err := New([]Agent{{Name: fixture.Name, Model: m, Config: c}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	a, b := worker(), worker()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	a.Register(env)
	var mu sync.Mutex
	var outcomes []string // what the tool activities put in the history
	env.OnActivity(ActivityTool, mock.Anything, mock.Anything).Return(func(ctx context.Context, req ToolRequest) (Outcome, error) {
		rt := a
		if callName(t, req.State) == "read_result" {
			rt = b // another worker
		}
		out, err := rt.tool(ctx, req)
		mu.Lock()
		defer mu.Unlock()
		outcomes = append(outcomes, string(out.Input))
		return out, err
	})
	asked := false
	env.OnActivity(ActivityModel, mock.Anything, mock.Anything).Return(func(ctx context.Context, req ModelRequest) (Outcome, error) {
		mu.Lock()
		defer mu.Unlock()
		if ref := refPattern.FindString(string(req.State)); ref != "" && !asked {
			asked = true
			srv.Add(llmtest.Turn{Calls: []llmtest.Call{{Name: "read_result", Args: `{"ref":"` + ref + `","offset":300}`}}}, llmtest.Turn{Text: "read it"})
		}
		return a.model(ctx, req)
	})
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "report on x"})
	res := finished(t, env)
	got := results(fixture.History(t, res.State))
	if !asked || len(got) != 2 {
		t.Fatalf("%d results (a ref seen: %v); want the report's, with a ref, and read_result's", len(got), asked)
	}
	if !strings.HasPrefix(got[1], "read_result:success") || !strings.Contains(got[1], "x-301") {
		t.Errorf("read_result on the other worker = %.300q, want record 301 of the report", got[1])
	}
	if strings.Contains(got[0], "x-301") || strings.Contains(outcomes[0], "x-350") {
		t.Errorf("the history holds the whole report (%d bytes), want its shape and ref", len(outcomes[0]))
	}
}

// With the payload codec, every payload larger than its limit — here the
// states the model activity takes and the report's outcome — is kept in
// the session store, and the session runs as without it.
func TestSessionPayloadCodec(t *testing.T) {
	store, err := memory.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := NewPayloadCodec(store, 2000)
	if err != nil {
		t.Fatal(err)
	}
	env, _, _, _ := setup(t, nil,
		llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Report, "x")}},
		llmtest.Turn{Text: "reported"})
	env.SetDataConverter(converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), codec))
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "report on x"})
	res := finished(t, env)
	if res.Stop != string(toolwire.Answered) || len(results(fixture.History(t, res.State))) != 1 {
		t.Fatalf("result = %s, want answered after the report", res.Stop)
	}
	tr, err := store.Show(context.Background(), PayloadSession)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Results) == 0 {
		t.Error("the store keeps no payload, want the large ones")
	}
	for _, r := range tr.Results {
		if r.Size <= 2000 {
			t.Errorf("kept payload %s of %d bytes, want only those over the limit", r.Ref, r.Size)
		}
	}
}

// Cancelling the workflow while it waits for approval ends it cancelled.
func TestSessionCancelled(t *testing.T) {
	env, dir, _, _ := setup(t, nil, llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Notify, "ops")}})
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "notify ops"})
	if err := env.GetWorkflowError(); !sdktemporal.IsCanceledError(err) {
		t.Errorf("the workflow ended with %v, want cancelled", err)
	}
	if n := len(fixture.Counted(t, dir, fixture.Notify)); n != 0 {
		t.Errorf("notify ran %d times, want never", n)
	}
}
