package servertest

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/dsn"
	"github.com/toolwire/toolwire/temporal"
	"github.com/toolwire/toolwire/temporal/internal/fixture"
)

var update = flag.Bool("update", false, "write the recorded workflow histories into ../testdata/histories")

// A rig is an embedded Temporal server, the conformance model server,
// and the fixture agent's counters.
type rig struct {
	ts    *temporaltest.TestServer
	c     client.Client
	model *llmtest.Server
	dir   string
	queue string
}

func newRig(t *testing.T, turns ...llmtest.Turn) *rig {
	t.Helper()
	r := &rig{ts: temporaltest.NewServer(temporaltest.WithT(t)), model: llmtest.NewServer(t, turns...), dir: t.TempDir(),
		queue: "q-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))}
	t.Cleanup(r.model.Close)
	r.c = r.ts.GetDefaultClient()
	return r
}

// runtime builds the fixture agent's runtime, with cfg.
func (r *rig) runtime(t testing.TB, cfg *temporal.Config) *temporal.Runtime {
	t.Helper()
	m, c, err := fixture.New(r.dir, r.model.URL+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := temporal.New([]temporal.Agent{{Name: fixture.Name, Model: m, Config: c}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// worker starts a worker in this process.
func (r *rig) worker(t *testing.T, cfg *temporal.Config) {
	t.Helper()
	rt := r.runtime(t, cfg)
	r.ts.NewWorker(r.queue, func(w worker.Registry) { rt.Register(w) })
}

func (r *rig) start(t *testing.T, question string) string {
	t.Helper()
	run, err := temporal.Start(context.Background(), r.c, temporal.StartOptions{TaskQueue: r.queue, Agent: fixture.Name, Question: question})
	if err != nil {
		t.Fatal(err)
	}
	return run.GetID()
}

// result waits for the session's latest run to end.
func (r *rig) result(t *testing.T, id string) temporal.SessionResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var res temporal.SessionResult
	if err := r.c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		t.Fatalf("session %s: %v", id, err)
	}
	return res
}

// watch collects the session's events until it ends or waits.
func (r *rig) watch(t *testing.T, id string, after int) []temporal.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out []temporal.Event
	for e, err := range temporal.Watch(ctx, r.c, id, after, 20*time.Millisecond) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// record fetches the history of the session's run, replays it with the
// current code, and with -update writes it for the replay test of the
// temporal module.
func (r *rig) record(t *testing.T, rt *temporal.Runtime, id, runID, name string) {
	t.Helper()
	record(t, r.c, rt, id, runID, name)
}

// record is rig.record with a client of its own.
func record(t *testing.T, c client.Client, rt *temporal.Runtime, id, runID, name string) {
	t.Helper()
	ctx := context.Background()
	var h historypb.History
	it := c.GetWorkflowHistory(ctx, id, runID, false, 0)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	rep := worker.NewWorkflowReplayer()
	rt.RegisterWorkflow(rep)
	if err := rep.ReplayWorkflowHistory(nil, &h); err != nil {
		t.Errorf("replaying the history of %s: %v", name, err)
	}
	if !*update {
		return
	}
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "testdata", "histories", name+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func types(evs []temporal.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// A session on a real server: each effect an activity, the events
// streamed in order, the answer, a history the provider takes; a message
// to the ended session continues it under the same id.
func TestSessionOnServer(t *testing.T) {
	r := newRig(t,
		llmtest.Turn{Text: "Doing a, b and c.", Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a"), fixture.Call(fixture.Charge, "b"), fixture.Call(fixture.Book, "c")}},
		llmtest.Turn{Text: "done: a, b, c"},
		llmtest.Turn{Text: "yes, all three"})
	r.worker(t, nil)
	id := r.start(t, "do a, b, c")
	evs := r.watch(t, id, 0)
	want := []string{"turn", "text", "call", "call", "call", "result", "result", "result", "turn", "done"}
	if got := types(evs); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	res := r.result(t, id)
	if res.Stop != string(toolwire.Answered) || res.Answer != "done: a, b, c" {
		t.Fatalf("result = %s %q, want answered %q", res.Stop, res.Answer, "done: a, b, c")
	}
	final := fixture.History(t, res.State)
	queried, err := temporal.History(context.Background(), r.c, id)
	if err != nil || len(queried) != len(final) || queried[len(queried)-1].Text() != "done: a, b, c" {
		t.Errorf("the messages query = %d messages, %v; want the final history's %d", len(queried), err, len(final))
	}
	for _, name := range []string{fixture.Lookup, fixture.Charge, fixture.Book + ".effects"} {
		if n := len(fixture.Counted(t, r.dir, name)); n != 1 {
			t.Errorf("%s ran %d times, want 1", name, n)
		}
	}
	first := r.c.GetWorkflow(context.Background(), id, "").GetRunID()
	r.record(t, r.runtime(t, nil), id, first, "answers")

	if err := temporal.Message(context.Background(), r.c, id, r.queue, "all three?"); err != nil {
		t.Fatal(err)
	}
	res = r.result(t, id)
	msgs := fixture.History(t, res.State)
	if res.Answer != "yes, all three" || msgs[len(msgs)-2].Text() != "all three?" {
		t.Errorf("continued session: %q after %q, want %q after the new question", res.Answer, msgs[len(msgs)-2].Text(), "yes, all three")
	}
}

// A call that needs approval: the session waits (an update refuses a bad
// edit, an approval with a message runs it), the call runs once.
func TestApprovalOnServer(t *testing.T) {
	r := newRig(t,
		llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Notify, "ops")}},
		llmtest.Turn{Text: "notified"})
	r.worker(t, nil)
	id := r.start(t, "notify ops")
	evs := r.watch(t, id, 0)
	if len(evs) == 0 || evs[len(evs)-1].Type != "approval" {
		t.Fatalf("events = %v, want to end with approval", types(evs))
	}
	ctx := context.Background()
	pending, err := temporal.Pending(ctx, r.c, id)
	if err != nil || len(pending) != 1 || pending[0].Tool != fixture.Notify {
		t.Fatalf("pending = %+v, %v; want the notify call", pending, err)
	}
	err = temporal.Decide(ctx, r.c, id, temporal.Decisions{Calls: map[string]temporal.Decision{pending[0].ID: {Kind: "edit", Args: []byte(`{"item":1}`)}}})
	if err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("a bad edit: %v, want refused naming the schema", err)
	}
	if err := temporal.Decide(ctx, r.c, id, temporal.Decisions{Calls: map[string]temporal.Decision{pending[0].ID: {Kind: "approve"}}, Message: "thanks"}); err != nil {
		t.Fatal(err)
	}
	res := r.result(t, id)
	if res.Stop != string(toolwire.Answered) {
		t.Errorf("stop = %s, want answered", res.Stop)
	}
	fixture.History(t, res.State)
	if n := len(fixture.Counted(t, r.dir, fixture.Notify)); n != 1 {
		t.Errorf("notify ran %d times, want 1", n)
	}
	r.record(t, r.runtime(t, nil), id, "", "approval")
}

// Past the history limit the workflow continues as new with the state
// carried over: the session answers, the events number on, and no step
// is lost.
func TestContinueAsNewOnServer(t *testing.T) {
	turns := []llmtest.Turn{}
	for i := range 4 {
		turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, string(rune('a'+i)))}})
	}
	turns = append(turns, llmtest.Turn{Text: "looked up four"})
	r := newRig(t, turns...)
	cfg := &temporal.Config{HistoryEvents: 12}
	r.worker(t, cfg)
	id := r.start(t, "look up four")
	first := r.c.GetWorkflow(context.Background(), id, "").GetRunID()
	res := r.result(t, id)
	if res.Stop != string(toolwire.Answered) || res.Turns != 5 {
		t.Fatalf("result = %s in %d turns, want answered in 5", res.Stop, res.Turns)
	}
	msgs := fixture.History(t, res.State)
	if n := len(fixture.Counted(t, r.dir, fixture.Lookup)); n != 4 {
		t.Errorf("lookup ran %d times, want 4", n)
	}
	if last := r.c.GetWorkflow(context.Background(), id, "").GetRunID(); last == first {
		t.Error("the workflow never continued as new")
	}
	if n := len(msgs); n != 11 {
		t.Errorf("the history has %d messages, want 11 (system, question, 4 rounds, answer)", n)
	}
	evs := r.watch(t, id, 0)
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq <= evs[i-1].Seq {
			t.Errorf("event numbers go %d then %d", evs[i-1].Seq, evs[i].Seq)
		}
	}
	r.record(t, r.runtime(t, cfg), id, first, "continued")
}

// A session that names an agent no worker runs fails, and Watch says why
// instead of waiting for events that never come.
func TestUnknownAgentOnServer(t *testing.T) {
	r := newRig(t)
	r.worker(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := temporal.Start(ctx, r.c, temporal.StartOptions{TaskQueue: r.queue, Agent: "nobody", Question: "hello?"})
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for _, err := range temporal.Watch(ctx, r.c, run.GetID(), 0, 20*time.Millisecond) {
		last = err
	}
	if last == nil || !strings.Contains(last.Error(), `no agent is named "nobody"`) || !strings.Contains(last.Error(), "failed") {
		t.Errorf("Watch ended with %v, want the workflow's failure naming the agent", last)
	}
}

// A session whose state is larger than the server takes in one payload
// (2 MB): with the payload codec on the client and the workers, the
// history holds references only, and the session answers.
func TestPayloadCodecOnServer(t *testing.T) {
	dir := t.TempDir()
	store := openStore(t, filepath.Join(dir, "payloads.db"))
	const limit = 64 << 10
	codec, err := temporal.NewPayloadCodec(store, limit)
	if err != nil {
		t.Fatal(err)
	}
	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), codec)
	model := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a")}}, llmtest.Turn{Text: "read it all"})
	defer model.Close()
	r := &rig{ts: temporaltest.NewServer(temporaltest.WithT(t), temporaltest.WithBaseClientOptions(client.Options{DataConverter: dc})),
		model: model, dir: dir, queue: "payloads"}
	r.c = r.ts.GetDefaultClient()
	r.worker(t, nil)
	question := "Read this: " + strings.Repeat("lorem ipsum dolor sit amet ", 3<<20/27) // 3 MB
	id := r.start(t, question)
	res := r.result(t, id)
	if res.Stop != string(toolwire.Answered) || res.Answer != "read it all" {
		t.Fatalf("result = %s %q (%s), want answered", res.Stop, res.Answer, res.Message)
	}
	refs, largest := 0, 0
	it := r.c.GetWorkflowHistory(context.Background(), id, "", false, 0)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range payloadsOf(e) {
			if string(p.GetMetadata()["encoding"]) == "toolwire/ref" {
				refs++
			}
			largest = max(largest, proto.Size(p))
		}
	}
	if refs < 3 || largest > limit {
		t.Errorf("the history has %d references and a payload of %d bytes; want the question's and the states' as references, none over %d", refs, largest, limit)
	}
}

// payloadsOf returns the payloads of a history event's inputs and results.
func payloadsOf(e *historypb.HistoryEvent) []*commonpb.Payload {
	var out []*commonpb.Payload
	add := func(ps *commonpb.Payloads) { out = append(out, ps.GetPayloads()...) }
	add(e.GetWorkflowExecutionStartedEventAttributes().GetInput())
	add(e.GetActivityTaskScheduledEventAttributes().GetInput())
	add(e.GetActivityTaskCompletedEventAttributes().GetResult())
	add(e.GetWorkflowExecutionCompletedEventAttributes().GetResult())
	add(e.GetWorkflowExecutionContinuedAsNewEventAttributes().GetInput())
	return out
}

// A session that ended on a failed model call is continued without a
// message by making that call again; one that answered is not.
func TestRetryEndedSessionOnServer(t *testing.T) {
	r := newRig(t, llmtest.Turn{Error: &llmtest.Error{Kind: llm.Overloaded}}, llmtest.Turn{Text: "back"})
	r.worker(t, nil)
	id := r.start(t, "hello?")
	if res := r.result(t, id); res.Stop != string(toolwire.ModelError) {
		t.Fatalf("stop = %s, want model_error", res.Stop)
	}
	ctx := context.Background()
	if err := temporal.Message(ctx, r.c, id, r.queue, ""); err != nil {
		t.Fatal(err)
	}
	if res := r.result(t, id); res.Stop != string(toolwire.Answered) || res.Answer != "back" {
		t.Fatalf("after the retry: %s %q, want answered %q", res.Stop, res.Answer, "back")
	}
	if err := temporal.Message(ctx, r.c, id, r.queue, ""); err == nil || !strings.Contains(err.Error(), "nothing to make again") {
		t.Errorf("retrying an answered session: %v, want refused", err)
	}
}

// openStore opens the SQLite session store at path, as the plugin opens
// its --db, for the test's life.
func openStore(t *testing.T, path string) session.Store {
	t.Helper()
	s, closeStore, err := dsn.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeStore)
	return s
}
