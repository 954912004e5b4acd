package temporal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/memory"
	"github.com/toolwire/toolwire/temporal/internal/fixture"
)

// The model activity publishes the text streamed so far to the session
// store while the call streams, under the session's id and the number of
// its last event before the call; the workflow's "text" event has the
// whole text; once the call ends, its streamed text — and what a lost
// attempt left — is deleted.
func TestModelActivityPublishesTextAsItStreams(t *testing.T) {
	const id, text = "run_stream", "Hello, streaming world"
	store, err := memory.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t,
		llmtest.Turn{Text: text, Chunk: 4, Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a")}},
		llmtest.Turn{Text: "done"})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	m, c, err := fixture.New(dir, srv.URL+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	c.Sessions = store
	rt, err := New([]Agent{{Name: fixture.Name, Model: m, Config: c}}, &Config{TextInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hooks) != 0 {
		t.Errorf("New added %d hooks to the caller's Config, want none (a copy of its own)", len(c.Hooks))
	}
	// What a lost attempt of an earlier call left.
	ctx := context.Background()
	if _, err := store.Create(ctx, session.Session{ID: streamSession(id)}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PutResult(ctx, streamSession(id), session.Offloaded{Ref: streamRef(id, 99), Data: []byte(`{"call":"7.1","text":"left"}`)}); err != nil {
		t.Fatal(err)
	}
	// The model pauses after its first fragment until the poller saw it
	// in the store.
	hold := filepath.Join(dir, "hold-text")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	seen := make(chan streamRecord, 1)
	go func() {
		defer os.Remove(hold)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			rec, ok, err := streamed(ctx, store, id, 1) // event 1 is the first turn
			if err != nil {
				t.Error(err)
				break
			}
			if ok && rec.Text != "" {
				seen <- rec
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
		close(seen)
	}()

	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	rt.Register(env)
	env.SetTestTimeout(time.Minute) // past the poller's deadline, so that it says what it missed
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: id})
	env.ExecuteWorkflow(WorkflowName, SessionInput{Agent: fixture.Name, Question: "look a up"})
	res := finished(t, env)

	rec, ok := <-seen
	if !ok {
		t.Fatal("the store held no streamed text while the model call was paused after its first fragment")
	}
	if rec.Text != "Hell" || rec.Call == "" {
		t.Errorf("streamed while paused = %+v, want the first fragment %q and the attempt that streamed it", rec, "Hell")
	}
	if res.Stop != string(toolwire.Answered) || res.Answer != "done" {
		t.Errorf("result = %s %q, want answered %q", res.Stop, res.Answer, "done")
	}
	v, err := env.QueryWorkflow(QueryEvents, 0)
	if err != nil {
		t.Fatal(err)
	}
	var evs Events
	if err := v.Get(&evs); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range evs.Events {
		if e.Type == "text" {
			var d textData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			texts = append(texts, d.Text)
		}
	}
	if !slices.Equal(texts, []string{text}) {
		t.Errorf("text events = %q, want the whole text once: %q", texts, text)
	}
	if _, err := store.Load(ctx, streamSession(id)); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("the streamed text's session after the calls: %v, want deleted (%v)", err, session.ErrNotFound)
	}
}

// An agent whose store cannot keep results and delete sessions, or a
// negative TextInterval, publishes nothing; the caller's Config is left
// as it was.
func TestPublishes(t *testing.T) {
	store, err := memory.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  *toolwire.Config
		rc   *Config
		want bool
	}{
		{"no config", nil, nil, false},
		{"no store", &toolwire.Config{}, nil, false},
		{"a store without results", &toolwire.Config{Sessions: storeOnly{store}}, nil, false},
		{"a store", &toolwire.Config{Sessions: store}, nil, true},
		{"a store, publishing off", &toolwire.Config{Sessions: store}, &Config{TextInterval: -1}, false},
	} {
		if _, got := publishes(tc.cfg, tc.rc.withDefaults()); got != tc.want {
			t.Errorf("%s: publishes = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// storeOnly is a session.Store without the optional capabilities.
type storeOnly struct{ session.Store }

// Follow's reconciliation: deltas give what grew; a new attempt, or a
// text that is not how the final text begins, restarts; the first event
// after the deltas says how much of its text they gave.
func TestFollowReconciles(t *testing.T) {
	type step struct {
		rec *streamRecord // a read of the store, or
		ev  *Event        // an event of the workflow
	}
	rec := func(call, text string) step { return step{rec: &streamRecord{Call: call, Text: text}} }
	ev := func(typ, data string) step { return step{ev: &Event{Seq: 9, Type: typ, Data: []byte(data)}} }
	for _, tc := range []struct {
		name  string
		steps []step
		want  []string // "delta:TEXT", "restart:TEXT", or "TYPE:STREAMED"
	}{
		{"the text streams, then its event",
			[]step{rec("5.1", "Hel"), rec("5.1", "Hel"), rec("5.1", "Hello wo"), ev("text", `{"text":"Hello world"}`), ev("call", `{}`)},
			[]string{"delta:Hel", "delta:lo wo", "text:8", "call:0"}},
		{"every fragment streamed",
			[]step{rec("5.1", "Hello"), ev("text", `{"text":"Hello"}`)},
			[]string{"delta:Hello", "text:5"}},
		{"the answer",
			[]step{rec("5.1", "The answer"), ev("done", `{"stop":"answered","answer":"The answer is 42."}`)},
			[]string{"delta:The answer", "done:10"}},
		{"a stop that is not an answer: its answer is not the stream's",
			[]step{rec("5.1", "Still"), ev("done", `{"stop":"max_turns","answer":"Still working"}`)},
			[]string{"delta:Still", "done:0"}},
		{"nothing streamed: the text comes whole",
			[]step{ev("text", `{"text":"Hello"}`)},
			[]string{"text:0"}},
		{"a new attempt starts over",
			[]step{rec("5.1", "Hello wor"), rec("5.2", "Hi"), rec("5.2", "Hi there"), ev("text", `{"text":"Hi there"}`)},
			[]string{"delta:Hello wor", "restart:Hi", "delta: there", "text:8"}},
		{"a final text that does not begin with the stream",
			[]step{rec("5.1", "Hello"), ev("text", `{"text":"Goodbye"}`)},
			[]string{"delta:Hello", "restart:", "text:0"}},
		{"a stream with no text event after it (calls only)",
			[]step{rec("5.1", "  "), ev("call", `{}`), ev("result", `{}`)},
			[]string{"delta:  ", "call:0", "result:0"}},
	} {
		var s textState
		var got []string
		for _, st := range tc.steps {
			if st.rec != nil {
				if d, ok := s.add(9, *st.rec); ok {
					got = append(got, deltaString(t, d))
				}
				continue
			}
			e := *st.ev
			if d, ok := s.settle(&e); ok {
				got = append(got, deltaString(t, d.Data))
			}
			got = append(got, e.Type+":"+strconv.Itoa(e.Streamed))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Follow yields %q, want %q", tc.name, got, tc.want)
		}
	}
}

func deltaString(t *testing.T, b []byte) string {
	t.Helper()
	var d DeltaData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.Restart {
		return "restart:" + d.Text
	}
	return "delta:" + d.Text
}
