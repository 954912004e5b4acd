// Package sessiontest is the conformance suite of [session.Store]: every
// implementation runs [Exercise], and the database stores run [Processes]
// too, as river's drivers run riverdrivertest.
//
//	func TestConformance(t *testing.T) {
//		sessiontest.Exercise(t, func(t *testing.T, c sessiontest.Config) session.Store {
//			s, err := memory.New(&memory.Config{Retention: c.Retention, Now: c.Now})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		}, nil)
//	}
//
// The suite uses real stores only: what it checks is what a store does,
// not what it was told. Its clock is a fake one the store is given, so no
// test depends on timing.
package sessiontest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/toolresult/storetest"
)

// Config is what the suite opens a store with.
type Config struct {
	// Retention is the store's retention setting.
	Retention session.Retention
	// Now is the store's clock.
	Now func() time.Time
}

// Options gives the suite what only the test of one store can do. A nil
// *Options, or a nil field, skips the tests that need it.
type Options struct {
	// Exec runs a SQL statement, with "?" placeholders, on the database
	// of a store opened by the suite. The suite uses it to corrupt stored
	// rows of the toolwire schema.
	Exec func(t *testing.T, s session.Store, query string, args ...any)
	// Reopen opens a new store over the database of s, as a restarted
	// process would, with the same configuration.
	Reopen func(t *testing.T, s session.Store) (session.Store, error)
}

// Exercise runs the conformance suite. open must return a new, empty store
// for each call, configured with c; the suite calls it once per test.
func Exercise(t *testing.T, open func(t *testing.T, c Config) session.Store, opts *Options) {
	if opts == nil {
		opts = &Options{}
	}
	h := &harness{open: open, opts: opts}
	for _, tc := range []struct {
		name string
		f    func(*testing.T, *harness)
	}{
		{"Create", testCreate},
		{"Model", testModel},
		{"MessagesRoundTrip", testMessagesRoundTrip},
		{"OrderAcrossSteps", testOrderAcrossSteps},
		{"LargeStep", testLargeStep},
		{"WritesAreCopies", testWritesAreCopies},
		{"State", testState},
		{"Versions", testVersions},
		{"InvalidStepWritesNothing", testInvalidStep},
		{"CallRecords", testCallRecords},
		{"CallRecordsInStep", testCallRecordsInStep},
		{"ParallelCallRecords", testParallelCallRecords},
		{"RacingCommits", testRacingCommits},
		{"RacingCallStarts", testRacingCallStarts},
		{"ParallelSessions", testParallelSessions},
		{"List", testList},
		{"Show", testShow},
		{"Delete", testDelete},
		{"Results", testResults},
		{"ResultStore", testResultStore},
		{"Retention", testRetention},
		{"PruneOn", testPruneOn},
		{"Cancelled", testCancelled},
		{"Corrupt", testCorrupt},
		{"HostileRows", testHostileRows},
		{"Reopen", testReopen},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, h) })
	}
}

type harness struct {
	open func(*testing.T, Config) session.Store
	opts *Options
}

// store opens a store with a fake clock, and retention if given.
func (h *harness) store(t *testing.T, ret ...session.Retention) (session.Store, *clock) {
	t.Helper()
	c := newClock()
	cfg := Config{Now: c.Now}
	if len(ret) > 0 {
		cfg.Retention = ret[0]
	}
	return h.open(t, cfg), c
}

// clock is a fake clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 14, 15, 9, 26, 535000000, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Conversation returns messages that use every kind of part, the
// non-ASCII and HTML-like text, invalid JSON in a call's arguments, and
// binary image data that a store must keep exactly.
func Conversation() []llm.Message {
	return []llm.Message{
		llm.System("You are a weather assistant."),
		llm.User("北京今天适合穿什么衣服? <b>&amp;</b>"),
		llm.Assistant(
			llm.Reasoning{Provider: "anthropic", Text: "Check the weather first.", Signature: "c2lnbmF0dXJl"},
			llm.Text{Text: "Let me check."},
			llm.ToolCall{ID: "call_1", Name: "get_weather", Input: jsontext.Value(`{"city": "Beijing",  "units":"celsius"}`)},
			llm.ToolCall{ID: "call_2", Name: "get_weather", Input: jsontext.Value(`{"city": "Par`)},
		),
		llm.Tool(
			llm.ToolResult{CallID: "call_1", Name: "get_weather", Status: llm.StatusSuccess,
				Content: []llm.Part{llm.Text{Text: `{"status":"success","summary":"12°C and windy"}`}}},
			llm.ToolResult{CallID: "call_2", Name: "get_weather", Status: llm.StatusError,
				Content: []llm.Part{llm.Text{Text: "malformed arguments"}, llm.Image{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff, 1}}}},
		),
		llm.Assistant(
			llm.Opaque{Provider: "anthropic", Kind: "search_result", Data: jsontext.Value(`{"type":"search_result","source":"https://example.com/?a=1&b=2"}`)},
			llm.Text{Text: "Wear a warm coat."},
		),
	}
}

// encode renders messages in the persistence format, the form in which
// the suite compares them.
func encode(t *testing.T, msgs []llm.Message) []byte {
	t.Helper()
	b, err := llm.Conversation{Messages: msgs}.MarshalJSON()
	if err != nil {
		t.Fatalf("encode messages: %v", err)
	}
	return b
}

func sameMessages(t *testing.T, what string, got, want []llm.Message) {
	t.Helper()
	if g, w := encode(t, got), encode(t, want); !bytes.Equal(g, w) {
		t.Errorf("%s: messages differ:\n got %s\nwant %s", what, brief(g), brief(w))
	}
}

func brief(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

func create(t *testing.T, s session.Store, id string) session.Session {
	t.Helper()
	sess, err := s.Create(context.Background(), session.Session{ID: id, Title: "title of " + id, Agent: "weather"})
	if err != nil {
		t.Fatalf("Create(%q) = %v", id, err)
	}
	return sess
}

func commit(t *testing.T, s session.Store, st *session.Step) session.Session {
	t.Helper()
	sess, err := s.Commit(context.Background(), st)
	if err != nil {
		t.Fatalf("Commit(%s, version %d, step %d) = %v", st.Session, st.Version, st.Number, err)
	}
	return sess
}

func load(t *testing.T, s session.Store, id string) *session.Snapshot {
	t.Helper()
	snap, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("Load(%q) = %v", id, err)
	}
	return snap
}

// conflict checks that err is a *session.ConflictError with these fields.
func conflict(t *testing.T, what string, err error, want session.ConflictError) {
	t.Helper()
	var ce *session.ConflictError
	switch {
	case !errors.Is(err, session.ErrConflict):
		t.Errorf("%s = %v, want an error wrapping session.ErrConflict", what, err)
	case !errors.As(err, &ce):
		t.Errorf("%s = %v, want a *session.ConflictError", what, err)
	case *ce != want:
		t.Errorf("%s = %+v, want %+v", what, *ce, want)
	case !strings.Contains(err.Error(), want.Session):
		t.Errorf("%s = %q, want the session's id in the message", what, err)
	}
}

func is(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s = %v, want an error wrapping %v", what, err, target)
	}
}

func textStep(id string, version int64, number int, texts ...string) *session.Step {
	st := &session.Step{Session: id, Version: version, Number: number}
	for _, s := range texts {
		st.Messages = append(st.Messages, llm.User(s))
	}
	return st
}

func testCreate(t *testing.T, h *harness) {
	s, clk := h.store(t)
	ctx := context.Background()
	got := create(t, s, "s1")
	want := session.Session{ID: "s1", Title: "title of s1", Agent: "weather", Status: session.StatusRunning,
		Version: 1, Created: clk.Now(), Updated: clk.Now()}
	if got != want {
		t.Errorf("Create = %+v, want %+v", got, want)
	}
	snap := load(t, s, "s1")
	if snap.Session != want || len(snap.Messages) != 0 || snap.State != nil || len(snap.Calls) != 0 {
		t.Errorf("Load of a new session = %+v, want the session alone", snap)
	}
	made, err := s.Create(ctx, session.Session{Status: session.StatusPaused})
	if err != nil || !strings.HasPrefix(made.ID, "s-") || made.Status != session.StatusPaused {
		t.Errorf("Create without an id = %+v, %v, want a made-up id s-… and status paused", made, err)
	}
	other, err := s.Create(ctx, session.Session{})
	if err != nil || other.ID == made.ID {
		t.Errorf("Create without an id twice = %q and %q, %v: want two ids", made.ID, other.ID, err)
	}
	commit(t, s, textStep("s1", 1, 1, "hello"))
	_, err = s.Create(ctx, session.Session{ID: "s1"})
	conflict(t, "Create of an existing session", err, session.ConflictError{Session: "s1", Read: 0, Current: 2})
	for _, bad := range []session.Session{
		{ID: "has space"}, {ID: strings.Repeat("x", 129)}, {ID: "ok", Status: "sleeping"},
	} {
		_, err := s.Create(ctx, bad)
		is(t, fmt.Sprintf("Create(%+v)", bad), err, session.ErrInvalid)
	}
	_, err = s.Load(ctx, "nope")
	is(t, `Load("nope")`, err, session.ErrNotFound)
}

// modelString shows a session's model with its temperature's value, for
// comparisons and messages.
func modelString(m session.Model) string {
	temp := "nil"
	if m.Options.Temperature != nil {
		temp = fmt.Sprint(*m.Options.Temperature)
	}
	o := m.Options
	return fmt.Sprintf("{Spec:%q BaseURL:%q Temperature:%s MaxOutputTokens:%d Effort:%q Timeout:%v IdleTimeout:%v MaxTurns:%d}",
		m.Spec, m.BaseURL, temp, o.MaxOutputTokens, o.Effort, o.Timeout, o.IdleTimeout, o.MaxTurns)
}

func testModel(t *testing.T, h *harness) {
	s, _ := h.store(t)
	ctx := context.Background()
	temp, zero := 0.25, 0.0
	full := session.Model{Spec: "openai:gpt-4o", BaseURL: "http://127.0.0.1:8080/v1", Options: session.ModelOptions{
		Temperature: &temp, MaxOutputTokens: 2048, Effort: llm.EffortLow, Timeout: 90 * time.Second, IdleTimeout: time.Minute, MaxTurns: 7}}
	for _, tc := range []struct {
		id    string
		model session.Model
	}{
		{"full", full},
		{"none", session.Model{}},
		{"zero-temperature", session.Model{Spec: "anthropic:claude-sonnet-4-5", Options: session.ModelOptions{Temperature: &zero}}},
		{"replay", session.Model{Spec: "replay:testdata/turns.json"}},
		{"user-no-password", session.Model{Spec: "openai:m", BaseURL: "https://proxy@gw.example/v1"}},
	} {
		want := modelString(tc.model)
		in := session.Session{ID: tc.id, Model: tc.model}
		if tc.model.Options.Temperature != nil {
			v := *tc.model.Options.Temperature
			in.Model.Options.Temperature = &v
		}
		got, err := s.Create(ctx, in)
		if err != nil {
			t.Fatalf("Create(model %s) = %v", want, err)
		}
		if in.Model.Options.Temperature != nil {
			*in.Model.Options.Temperature = 1.5 // the store kept a copy
		}
		if g := modelString(got.Model); g != want {
			t.Errorf("Create(model %s).Model = %s, want it unchanged", want, g)
		}
		if g := modelString(load(t, s, tc.id).Session.Model); g != want {
			t.Errorf("Load(%q).Session.Model = %s, want %s", tc.id, g, want)
		}
		next := commit(t, s, textStep(tc.id, 1, 1, "hello"))
		if g := modelString(next.Model); g != want {
			t.Errorf("Commit(%q).Model = %s, want %s", tc.id, g, want)
		}
		snap := load(t, s, tc.id)
		if snap.Session.Model.Options.Temperature != nil {
			*snap.Session.Model.Options.Temperature = 1.75 // a copy: the store's is unchanged
		}
		if g := modelString(load(t, s, tc.id).Session.Model); g != want {
			t.Errorf("Load(%q) after a commit = %s, want %s", tc.id, g, want)
		}
		if c, ok := s.(session.Catalog); ok {
			tr, err := c.Show(ctx, tc.id)
			if err != nil {
				t.Fatalf("Show(%q) = %v", tc.id, err)
			}
			if g := modelString(tr.Session.Model); g != want {
				t.Errorf("Show(%q).Session.Model = %s, want %s", tc.id, g, want)
			}
			page, err := c.List(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ps := range page.Sessions {
				if ps.ID == tc.id && modelString(ps.Model) != want {
					t.Errorf("List: session %s has model %s, want %s", tc.id, modelString(ps.Model), want)
				}
			}
		}
	}
	bigTemp, negTemp := 2.5, -0.1
	for _, bad := range []struct {
		model session.Model
		want  string // a part of the error's text
	}{
		{session.Model{Spec: "openai:m", BaseURL: "https://user:s3cr3t@gw.example/v1"}, "password"},
		{session.Model{Spec: "openai:m", BaseURL: "gw.example/v1"}, "base URL"},
		{session.Model{Spec: "openai:m", BaseURL: "ftp://gw.example/v1"}, "base URL"},
		{session.Model{Spec: "bad\nspec"}, "model"},
		{session.Model{Spec: strings.Repeat("m", 2000)}, "model"},
		{session.Model{Options: session.ModelOptions{Temperature: &bigTemp}}, "temperature"},
		{session.Model{Options: session.ModelOptions{Temperature: &negTemp}}, "temperature"},
		{session.Model{Options: session.ModelOptions{MaxOutputTokens: -1}}, "max output tokens"},
		{session.Model{Options: session.ModelOptions{Effort: "huge"}}, "effort"},
		{session.Model{Options: session.ModelOptions{Timeout: -time.Second}}, "timeout"},
		{session.Model{Options: session.ModelOptions{IdleTimeout: -time.Second}}, "timeout"},
		{session.Model{Options: session.ModelOptions{MaxTurns: -2}}, "max turns"},
	} {
		_, err := s.Create(ctx, session.Session{Model: bad.model})
		what := fmt.Sprintf("Create(model %.200s)", modelString(bad.model))
		is(t, what, err, session.ErrInvalid)
		if err != nil && (!strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "s3cr3t")) {
			t.Errorf("%s = %v, want an error about the %s that does not repeat the password", what, err, bad.want)
		}
	}
}

func testMessagesRoundTrip(t *testing.T, h *harness) {
	s, clk := h.store(t)
	create(t, s, "s1")
	clk.Advance(time.Second)
	msgs := Conversation()
	got := commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: msgs, Status: session.StatusDone})
	if got.Version != 2 || got.Step != 1 || got.Messages != len(msgs) || got.Status != session.StatusDone || !got.Updated.Equal(clk.Now()) {
		t.Errorf("Commit = %+v, want version 2, step 1, %d messages, done, updated now", got, len(msgs))
	}
	snap := load(t, s, "s1")
	sameMessages(t, "Load", snap.Messages, msgs)
	if snap.Session != got {
		t.Errorf("Load.Session = %+v, want %+v", snap.Session, got)
	}
	calls := snap.Messages[2].ToolCalls()
	if len(calls) != 2 || string(calls[1].Input) != `{"city": "Par` || string(calls[0].Input) != `{"city": "Beijing",  "units":"celsius"}` {
		t.Errorf("Load: tool call inputs = %q, want them verbatim", calls)
	}
	res := snap.Messages[3].ToolResults()
	if len(res) != 2 || len(res[1].Content) != 2 {
		t.Fatalf("Load: tool results = %+v", res)
	}
	if img, ok := res[1].Content[1].(llm.Image); !ok || !bytes.Equal(img.Data, []byte{0x89, 'P', 'N', 'G', 0, 0xff, 1}) {
		t.Errorf("Load: image = %+v, want its bytes exactly", res[1].Content[1])
	}
	if txt := snap.Messages[1].Text(); txt != "北京今天适合穿什么衣服? <b>&amp;</b>" {
		t.Errorf("Load: user text = %q", txt)
	}
}

func testOrderAcrossSteps(t *testing.T, h *harness) {
	s, _ := h.store(t)
	create(t, s, "s1")
	var want []llm.Message
	version := int64(1)
	for step := 1; step <= 40; step++ {
		st := &session.Step{Session: "s1", Version: version, Number: step * 2} // numbers need not be consecutive
		for i := range step%3 + 1 {
			m := llm.User(fmt.Sprintf("step %d message %d", step, i))
			if step%5 == 0 {
				m = Conversation()[2] // an assistant turn with calls
			}
			st.Messages = append(st.Messages, m)
		}
		want = append(want, st.Messages...)
		version = commit(t, s, st).Version
	}
	snap := load(t, s, "s1")
	sameMessages(t, "Load after 40 steps", snap.Messages, want)
	if snap.Session.Messages != len(want) || snap.Session.Step != 80 || snap.Session.Version != 41 {
		t.Errorf("Load.Session = %+v, want %d messages, step 80, version 41", snap.Session, len(want))
	}
	// A step without messages commits too.
	commit(t, s, &session.Step{Session: "s1", Version: 41, Number: 81, State: jsontext.Value(`{}`)})
	sameMessages(t, "Load after an empty step", load(t, s, "s1").Messages, want)
}

// testLargeStep writes more messages and call records in one step, and in
// one Record, than a store may bind in one statement.
func testLargeStep(t *testing.T, h *harness) {
	s, _ := h.store(t)
	create(t, s, "s1")
	var msgs []llm.Message
	var calls []session.Call
	for i := range 700 {
		msgs = append(msgs, Turn(i, 1, 50)...)
		calls = append(calls, benchCalls(msgs[len(msgs)-2:])...)
	}
	started := make([]session.Call, len(calls))
	for i, c := range calls {
		c.Result, c.ID = nil, c.ID+"-next"
		started[i] = c
	}
	sess := commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: msgs, Calls: calls})
	if err := s.Record(context.Background(), "s1", sess.Version, started...); err != nil {
		t.Fatalf("Record of %d calls = %v", len(started), err)
	}
	snap := load(t, s, "s1")
	sameMessages(t, "Load", snap.Messages, msgs)
	if len(snap.Calls) != 2*len(calls) || len(snap.Unfinished()) != len(calls) {
		t.Errorf("Load.Calls = %d records, %d unfinished; want %d and %d", len(snap.Calls), len(snap.Unfinished()), 2*len(calls), len(calls))
	}
	for i, c := range snap.Calls[:len(calls)] {
		if c.ID != calls[i].ID || c.Result == nil {
			t.Fatalf("Load.Calls[%d] = %s, want %s finished: records in the order written", i, c.ID, calls[i].ID)
		}
	}
}

func testWritesAreCopies(t *testing.T, h *harness) {
	s, _ := h.store(t)
	ctx := context.Background()
	create(t, s, "s1")
	input := []byte(`{"a":1}`)
	state := []byte(`{"turn":1}`)
	msgs := []llm.Message{llm.Assistant(llm.ToolCall{ID: "c1", Name: "t", Input: input})}
	args := []byte(`{"x":1}`)
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: msgs, State: state,
		Calls: []session.Call{{ID: "c1", Tool: "t", Attempt: 1, Arguments: args}}})
	data := []byte("raw data")
	ref, err := s.(session.Results).PutResult(ctx, "s1", session.Offloaded{Tool: "t", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	input[1], state[1], args[1], data[0] = 'X', 'X', 'X', 'X'
	msgs[0].Parts[0] = llm.Text{Text: "changed"}
	snap := load(t, s, "s1")
	if got := string(snap.Messages[0].ToolCalls()[0].Input); got != `{"a":1}` {
		t.Errorf("Load: input = %s after the caller changed its slice, want {\"a\":1}", got)
	}
	if string(snap.State) != `{"turn":1}` || string(snap.Calls[0].Arguments) != `{"x":1}` {
		t.Errorf("Load: state %s, arguments %s after the caller changed its slices", snap.State, snap.Calls[0].Arguments)
	}
	snap.State[1], snap.Calls[0].Arguments[1] = 'Y', 'Y'
	again := load(t, s, "s1")
	if string(again.State) != `{"turn":1}` || string(again.Calls[0].Arguments) != `{"x":1}` {
		t.Errorf("Load: state %s, arguments %s after the reader changed its copy", again.State, again.Calls[0].Arguments)
	}
	r, err := s.(session.Results).Result(ctx, "s1", ref)
	if err != nil || string(r.Data) != "raw data" {
		t.Errorf("Result = %q, %v after the caller changed its slice, want raw data", r.Data, err)
	}
}

func testState(t *testing.T, h *harness) {
	s, _ := h.store(t)
	create(t, s, "s1")
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, State: jsontext.Value(`{"turn": 1, "pending": ["c1"]}`)})
	if got := string(load(t, s, "s1").State); got != `{"turn": 1, "pending": ["c1"]}` {
		t.Errorf("Load.State = %s, want the state as written", got)
	}
	commit(t, s, &session.Step{Session: "s1", Version: 2, Number: 2, State: jsontext.Value(`"second"`)})
	if got := string(load(t, s, "s1").State); got != `"second"` {
		t.Errorf("Load.State = %s, want the latest step's", got)
	}
	commit(t, s, &session.Step{Session: "s1", Version: 3, Number: 3})
	if got := load(t, s, "s1").State; got != nil {
		t.Errorf("Load.State = %s, want nil: the latest step stored none", got)
	}
}

func testVersions(t *testing.T, h *harness) {
	s, _ := h.store(t)
	ctx := context.Background()
	create(t, s, "s1")
	commit(t, s, textStep("s1", 1, 1, "one"))
	before := load(t, s, "s1")
	_, err := s.Commit(ctx, textStep("s1", 1, 2, "stale"))
	conflict(t, "Commit at a stale version", err, session.ConflictError{Session: "s1", Read: 1, Current: 2})
	_, err = s.Commit(ctx, textStep("s1", 7, 2, "future"))
	conflict(t, "Commit at a version never reached", err, session.ConflictError{Session: "s1", Read: 7, Current: 2})
	_, err = s.Commit(ctx, textStep("s1", 2, 1, "same step number"))
	is(t, "Commit of a step number not after the latest", err, session.ErrInvalid)
	_, err = s.Commit(ctx, textStep("nope", 1, 1, "x"))
	is(t, "Commit to a missing session", err, session.ErrNotFound)
	after := load(t, s, "s1")
	sameMessages(t, "Load after refused commits", after.Messages, before.Messages)
	if after.Session != before.Session {
		t.Errorf("Load.Session after refused commits = %+v, want %+v", after.Session, before.Session)
	}
	if got := commit(t, s, textStep("s1", 2, 9, "two")); got.Version != 3 || got.Step != 9 {
		t.Errorf("Commit = %+v, want version 3, step 9", got)
	}
}

func testInvalidStep(t *testing.T, h *harness) {
	s, _ := h.store(t)
	ctx := context.Background()
	create(t, s, "s1")
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: Conversation()[:2],
		Calls: []session.Call{{ID: "c0", Tool: "t", Attempt: 1}}})
	before := load(t, s, "s1")
	ok := func() *session.Step {
		return &session.Step{Session: "s1", Version: 2, Number: 2, Messages: []llm.Message{llm.User("fine")}, State: jsontext.Value(`{}`)}
	}
	result := &llm.ToolResult{CallID: "c1", Name: "t", Status: llm.StatusSuccess}
	for _, tc := range []struct {
		name   string
		change func(*session.Step)
	}{
		{"state not JSON", func(st *session.Step) { st.State = jsontext.Value(`{"turn":`) }},
		{"state two values", func(st *session.Step) { st.State = jsontext.Value(`{} {}`) }},
		{"tool message without result", func(st *session.Step) {
			st.Messages = append(st.Messages, llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.Text{Text: "x"}}})
		}},
		{"message call without id", func(st *session.Step) {
			st.Messages = append(st.Messages, llm.Assistant(llm.ToolCall{Name: "t", Input: jsontext.Value(`{}`)}))
		}},
		{"nil part", func(st *session.Step) {
			st.Messages = append(st.Messages, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{nil}})
		}},
		{"unknown role", func(st *session.Step) { st.Messages = append(st.Messages, llm.Message{Role: "robot"}) }},
		{"unknown status", func(st *session.Step) { st.Status = "sleeping" }},
		{"version 0", func(st *session.Step) { st.Version = 0 }},
		{"step 0", func(st *session.Step) { st.Number = 0 }},
		{"no session id", func(st *session.Step) { st.Session = "" }},
		{"call without id", func(st *session.Step) { st.Calls = []session.Call{{Tool: "t", Attempt: 1}} }},
		{"call without tool", func(st *session.Step) { st.Calls = []session.Call{{ID: "c1", Attempt: 1}} }},
		{"call attempt 0", func(st *session.Step) { st.Calls = []session.Call{{ID: "c1", Tool: "t"}} }},
		{"call of unknown level", func(st *session.Step) {
			st.Calls = []session.Call{{ID: "c1", Tool: "t", Attempt: 1, Idempotency: "level_9"}}
		}},
		{"result of another call", func(st *session.Step) {
			st.Calls = []session.Call{{ID: "c2", Tool: "t", Attempt: 1, Result: result}}
		}},
		{"result of unknown status", func(st *session.Step) {
			st.Calls = []session.Call{{ID: "c1", Tool: "t", Attempt: 1, Result: &llm.ToolResult{CallID: "c1", Name: "t", Status: "meh"}}}
		}},
		{"negative duration", func(st *session.Step) {
			st.Calls = []session.Call{{ID: "c1", Tool: "t", Attempt: 1, Result: result, Duration: -time.Second}}
		}},
		{"call already started", func(st *session.Step) {
			st.Calls = []session.Call{{ID: "c1", Tool: "t", Attempt: 1}, {ID: "c0", Tool: "t", Attempt: 1}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := ok()
			tc.change(st)
			_, err := s.Commit(ctx, st)
			if err == nil {
				t.Fatalf("Commit = nil, want an error")
			}
			if !errors.Is(err, session.ErrInvalid) && !errors.Is(err, session.ErrConflict) {
				t.Errorf("Commit = %v, want an error wrapping ErrInvalid (or ErrConflict)", err)
			}
			after := load(t, s, "s1")
			sameMessages(t, "Load after a refused step", after.Messages, before.Messages)
			if after.Session != before.Session || len(after.Calls) != 1 || string(after.State) != string(before.State) {
				t.Errorf("Load after a refused step = %+v, want it unchanged", after)
			}
		})
	}
	_, err := s.Commit(ctx, nil)
	is(t, "Commit(nil)", err, session.ErrInvalid)
	if _, err := s.Commit(ctx, ok()); err != nil {
		t.Errorf("Commit of the valid step = %v", err)
	}
}

func result(id string, status llm.Status, text string) *llm.ToolResult {
	return &llm.ToolResult{CallID: id, Name: "pay", Status: status, Content: []llm.Part{llm.Text{Text: text}}}
}

func sameResult(t *testing.T, what string, got, want *llm.ToolResult) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Errorf("%s: result = %+v, want %+v", what, got, want)
		return
	}
	if got != nil {
		sameMessages(t, what, []llm.Message{llm.Tool(*got)}, []llm.Message{llm.Tool(*want)})
	}
}

func testCallRecords(t *testing.T, h *harness) {
	s, clk := h.store(t)
	ctx := context.Background()
	create(t, s, "s1")
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: []llm.Message{
		llm.Assistant(llm.ToolCall{ID: "c1", Name: "pay", Input: jsontext.Value(`{"amount":5}`)}),
	}})
	clk.Advance(time.Second)
	started := clk.Now()
	start := session.Call{ID: "c1", Tool: "pay", Idempotency: tool.Level1, IdempotencyKey: "key-1", Attempt: 1,
		Arguments: jsontext.Value(`{"amount":5}`)}
	if err := s.Record(ctx, "s1", 2, start); err != nil {
		t.Fatalf("Record(started) = %v", err)
	}
	snap := load(t, s, "s1")
	if snap.Session.Version != 2 {
		t.Errorf("Record moved the version to %d, want 2", snap.Session.Version)
	}
	want := start
	want.Step, want.Started = 1, started
	if len(snap.Calls) != 1 || !sameCall(snap.Calls[0], want) {
		t.Fatalf("Load.Calls = %+v, want [%+v]", snap.Calls, want)
	}
	if u := snap.Unfinished(); len(u) != 1 || u[0].ID != "c1" {
		t.Errorf("Unfinished() = %+v, want c1", u)
	}
	err := s.Record(ctx, "s1", 2, start)
	conflict(t, "Record of an attempt already started", err, session.ConflictError{Session: "s1", Read: 2, Current: 2, Call: "c1", Attempt: 1})

	clk.Advance(time.Second)
	fin := start
	fin.Result, fin.Duration = result("c1", llm.StatusError, "card declined, retryable"), 1500*time.Millisecond
	if err := s.Record(ctx, "s1", 2, fin); err != nil {
		t.Fatalf("Record(finished) = %v", err)
	}
	err = s.Record(ctx, "s1", 2, fin)
	conflict(t, "Record of an attempt already finished", err, session.ConflictError{Session: "s1", Read: 2, Current: 2, Call: "c1", Attempt: 1})
	retry := start
	retry.Attempt = 2
	retryFin := retry
	retryFin.Result = result("c1", llm.StatusSuccess, "paid")
	if err := s.Record(ctx, "s1", 2, retry, retryFin); err != nil {
		t.Fatalf("Record(attempt 2 started and finished) = %v", err)
	}
	alone := session.Call{ID: "c9", Tool: "pay", Attempt: 1, Result: &llm.ToolResult{CallID: "c9", Name: "pay", Status: llm.StatusError}}
	if err := s.Record(ctx, "s1", 2, alone); err != nil {
		t.Fatalf("Record(finished, never started) = %v", err)
	}
	snap = load(t, s, "s1")
	if len(snap.Calls) != 3 || len(snap.Unfinished()) != 0 {
		t.Fatalf("Load.Calls = %+v, want 3 finished records", snap.Calls)
	}
	wantFin := fin
	wantFin.Step, wantFin.Started, wantFin.Finished = 1, started, started.Add(time.Second)
	if !sameCall(snap.Calls[0], wantFin) {
		t.Errorf("Load.Calls[0] = %+v, want %+v", snap.Calls[0], wantFin)
	}
	sameResult(t, "Load.Calls[0]", snap.Calls[0].Result, fin.Result)
	if c := snap.Calls[1]; c.Attempt != 2 || c.Result == nil || c.Result.Status != llm.StatusSuccess || c.IdempotencyKey != "key-1" {
		t.Errorf("Load.Calls[1] = %+v, want attempt 2, success, the same key", c)
	}
	if c := snap.Calls[2]; c.ID != "c9" || c.Started != c.Finished || c.Result == nil {
		t.Errorf("Load.Calls[2] = %+v, want c9 started and finished at once", c)
	}

	err = s.Record(ctx, "s1", 1, session.Call{ID: "c2", Tool: "pay", Attempt: 1})
	conflict(t, "Record at a stale version", err, session.ConflictError{Session: "s1", Read: 1, Current: 2})
	err = s.Record(ctx, "nope", 1, session.Call{ID: "c2", Tool: "pay", Attempt: 1})
	is(t, "Record in a missing session", err, session.ErrNotFound)
	err = s.Record(ctx, "s1", 2, session.Call{ID: "c2", Tool: "pay", Attempt: 1}, session.Call{ID: "c1", Tool: "pay", Attempt: 1})
	conflict(t, "Record of a batch with one conflict", err, session.ConflictError{Session: "s1", Read: 2, Current: 2, Call: "c1", Attempt: 1})
	if n := len(load(t, s, "s1").Calls); n != 3 {
		t.Errorf("Load.Calls has %d records after a refused batch, want 3: nothing of the batch is written", n)
	}

	// The next step's snapshot leaves the calls of the previous step out.
	commit(t, s, &session.Step{Session: "s1", Version: 2, Number: 2, Messages: []llm.Message{llm.Tool(*retryFin.Result)}})
	if err := s.Record(ctx, "s1", 3, session.Call{ID: "c3", Tool: "pay", Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	snap = load(t, s, "s1")
	if len(snap.Calls) != 1 || snap.Calls[0].ID != "c3" || snap.Calls[0].Step != 2 {
		t.Errorf("Load.Calls after step 2 = %+v, want only c3 of step 2", snap.Calls)
	}
	if err := s.Record(ctx, "s1", 3, session.Call{ID: "c4", Tool: "pay", Attempt: 1, Step: 7}); err != nil {
		t.Fatal(err)
	}
	if calls := load(t, s, "s1").Calls; len(calls) != 2 || calls[1].Step != 7 {
		t.Errorf("Load.Calls = %+v, want c3 and c4 (step 7, later than the latest)", calls)
	}
}

// sameCall compares two records, their results for presence only.
func sameCall(a, b session.Call) bool {
	if !bytes.Equal(a.Arguments, b.Arguments) || (a.Result == nil) != (b.Result == nil) {
		return false
	}
	a.Result, b.Result, a.Arguments, b.Arguments = nil, nil, nil, nil
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func testCallRecordsInStep(t *testing.T, h *harness) {
	s, clk := h.store(t)
	create(t, s, "s1")
	call := llm.ToolCall{ID: "c1", Name: "pay", Input: jsontext.Value(`{}`)}
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: []llm.Message{llm.Assistant(call)},
		Calls: []session.Call{{ID: "c1", Tool: "pay", Attempt: 1, Arguments: call.Input}}})
	clk.Advance(time.Second)
	res := result("c1", llm.StatusSuccess, "ok")
	// The step that answers the call finishes its record, which belongs to step 1.
	commit(t, s, &session.Step{Session: "s1", Version: 2, Number: 2, Messages: []llm.Message{llm.Tool(*res)},
		Calls: []session.Call{{ID: "c1", Tool: "pay", Attempt: 1, Step: 1, Result: res, Duration: time.Millisecond}}})
	snap := load(t, s, "s1")
	if len(snap.Calls) != 0 {
		t.Errorf("Load.Calls = %+v, want none: the only record belongs to step 1", snap.Calls)
	}
	tr, err := show(s, "s1")
	if err != nil {
		t.Skip(err)
	}
	if len(tr.Calls) != 1 || tr.Calls[0].Step != 1 || tr.Calls[0].Result == nil || !tr.Calls[0].Finished.Equal(clk.Now()) {
		t.Errorf("Show.Calls = %+v, want c1 of step 1, finished now", tr.Calls)
	}
}

func show(s session.Store, id string) (*session.Trace, error) {
	c, ok := s.(session.Catalog)
	if !ok {
		return nil, errors.New("the store is not a session.Catalog")
	}
	return c.Show(context.Background(), id)
}

func testParallelCallRecords(t *testing.T, h *harness) {
	s, _ := h.store(t)
	ctx := context.Background()
	create(t, s, "s1")
	var parts []llm.Part
	for i := range 8 {
		parts = append(parts, llm.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "pay", Input: jsontext.Value(`{}`)})
	}
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: []llm.Message{llm.Assistant(parts...)}})
	errs := parallel(8, func(i int) error {
		c := session.Call{ID: fmt.Sprintf("c%d", i), Tool: "pay", Attempt: 1}
		if err := s.Record(ctx, "s1", 2, c); err != nil {
			return err
		}
		c.Result = result(c.ID, llm.StatusSuccess, "done")
		return s.Record(ctx, "s1", 2, c)
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("Record of call %d = %v", i, err)
		}
	}
	if snap := load(t, s, "s1"); len(snap.Calls) != 8 || len(snap.Unfinished()) != 0 || snap.Session.Version != 2 {
		t.Errorf("Load = %d calls, %d unfinished, version %d: want 8 finished at version 2", len(snap.Calls), len(snap.Unfinished()), snap.Session.Version)
	}
}

func testRacingCommits(t *testing.T, h *harness) {
	s, _ := h.store(t)
	create(t, s, "s1")
	commit(t, s, textStep("s1", 1, 1, "first"))
	errs := parallel(8, func(i int) error {
		_, err := s.Commit(context.Background(), textStep("s1", 2, 2, fmt.Sprintf("writer %d", i)))
		return err
	})
	won := -1
	for i, err := range errs {
		if err == nil {
			if won >= 0 {
				t.Errorf("writers %d and %d both committed at version 2", won, i)
			}
			won = i
			continue
		}
		conflict(t, fmt.Sprintf("Commit of writer %d", i), err, session.ConflictError{Session: "s1", Read: 2, Current: 3})
	}
	if won < 0 {
		t.Fatal("no writer committed")
	}
	snap := load(t, s, "s1")
	want := append(textStep("", 0, 0, "first").Messages, llm.User(fmt.Sprintf("writer %d", won)))
	sameMessages(t, "Load after the race", snap.Messages, want)
}

func testRacingCallStarts(t *testing.T, h *harness) {
	s, _ := h.store(t)
	create(t, s, "s1")
	errs := parallel(8, func(i int) error {
		return s.Record(context.Background(), "s1", 1, session.Call{ID: "pay-1", Tool: "pay", Attempt: 1, IdempotencyKey: fmt.Sprint(i)})
	})
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
			continue
		}
		conflict(t, fmt.Sprintf("Record of writer %d", i), err, session.ConflictError{Session: "s1", Read: 1, Current: 1, Call: "pay-1", Attempt: 1})
	}
	if won != 1 {
		t.Errorf("%d writers started call pay-1 attempt 1, want exactly 1", won)
	}
	if n := len(load(t, s, "s1").Calls); n != 1 {
		t.Errorf("Load.Calls has %d records, want 1", n)
	}
}

// parallel runs f(0), ..., f(n-1) at once and returns their errors, in
// that order.
func parallel(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errs
}

// Turn returns the messages of one agent turn with n parallel tool calls:
// the assistant message with the calls and the tool message with their
// results, each result about size bytes of JSON.
func Turn(turn, n, size int) []llm.Message {
	calls := make([]llm.Part, n)
	results := make([]llm.ToolResult, n)
	for i := range n {
		id := fmt.Sprintf("call_%d_%d", turn, i)
		calls[i] = llm.ToolCall{ID: id, Name: "lookup", Input: jsontext.Value(fmt.Sprintf(`{"key":"k%d","limit":%d}`, i, 10+i))}
		var b strings.Builder
		b.WriteString(`{"status":"success","summary":"lookup returned records","data":[`)
		for j := 0; b.Len() < size; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"key":"k%d","name":"record-%06d","value":%d,"active":true}`, j, i, j, j*7919%100000)
		}
		b.WriteString("]}")
		results[i] = llm.ToolResult{CallID: id, Name: "lookup", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: b.String()}}}
	}
	return []llm.Message{llm.Assistant(calls...), llm.Tool(results...)}
}

func testParallelSessions(t *testing.T, h *harness) {
	s, _ := h.store(t)
	Shared(t, s)
}

// Shared writes 20 sessions in parallel, each through one of stores in
// turn, and reads each back through the next: several stores over one
// database stand for several processes sharing it. Every write must
// succeed (no "database is locked"), and every session must read back
// whole, in order.
func Shared(t *testing.T, stores ...session.Store) {
	t.Helper()
	const sessions, steps = 20, 8
	errs := parallel(sessions, func(i int) error {
		s, ctx, id := stores[i%len(stores)], context.Background(), fmt.Sprintf("par-%02d", i)
		sess, err := s.Create(ctx, session.Session{ID: id})
		for step := 1; err == nil && step <= steps; step++ {
			calls := make([]session.Call, 4)
			for k := range calls {
				calls[k] = session.Call{ID: fmt.Sprintf("call_%d_%d", step, k), Tool: "lookup", Attempt: 1}
			}
			if err = s.Record(ctx, id, sess.Version, calls...); err != nil {
				break
			}
			sess, err = s.Commit(ctx, &session.Step{Session: id, Version: sess.Version, Number: step,
				Messages: Turn(step, 4, 200), State: jsontext.Value(fmt.Sprintf(`{"step":%d}`, step))})
		}
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("session %d: %v", i, err)
		}
	}
	var want []llm.Message
	for step := 1; step <= steps; step++ {
		want = append(want, Turn(step, 4, 200)...)
	}
	for i := range sessions {
		id := fmt.Sprintf("par-%02d", i)
		snap := load(t, stores[(i+1)%len(stores)], id)
		sameMessages(t, "Load("+id+")", snap.Messages, want)
		if string(snap.State) != fmt.Sprintf(`{"step":%d}`, steps) || snap.Session.Version != steps+1 {
			t.Errorf("Load(%s) = state %s at version %d, want step %d at version %d", id, snap.State, snap.Session.Version, steps, steps+1)
		}
	}
}

// capability returns s as T, the optional interface a test needs, or skips
// the test.
func capability[T any](t *testing.T, s session.Store) T {
	t.Helper()
	c, ok := s.(T)
	if !ok {
		var zero *T
		t.Skipf("the store is not a %T", zero)
	}
	return c
}

func catalog(t *testing.T, s session.Store) session.Catalog {
	return capability[session.Catalog](t, s)
}

func results(t *testing.T, s session.Store) session.Results {
	return capability[session.Results](t, s)
}

func pruner(t *testing.T, s session.Store) session.Pruner { return capability[session.Pruner](t, s) }

func testList(t *testing.T, h *harness) {
	s, clk := h.store(t)
	c := catalog(t, s)
	ctx := context.Background()
	if p, err := c.List(ctx, nil); err != nil || len(p.Sessions) != 0 || p.Next != "" {
		t.Errorf("List of an empty store = %+v, %v", p, err)
	}
	for i := range 7 {
		clk.Advance(time.Second)
		create(t, s, fmt.Sprintf("s%d", i))
		if i == 3 {
			create(t, s, "s3b") // created at the same time as s3: the greater id first
		}
	}
	want := []string{"s6", "s5", "s4", "s3b", "s3", "s2", "s1", "s0"}
	var got []string
	opts := &session.ListOptions{Limit: 3}
	for pages := 0; ; pages++ {
		p, err := c.List(ctx, opts)
		if err != nil {
			t.Fatalf("List(%+v) = %v", opts, err)
		}
		if len(p.Sessions) > 3 || pages > 3 {
			t.Fatalf("List(%+v) = %d sessions on page %d", opts, len(p.Sessions), pages)
		}
		for _, sess := range p.Sessions {
			got = append(got, sess.ID)
		}
		if p.Next == "" {
			break
		}
		opts = &session.ListOptions{Limit: 3, Cursor: p.Next}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("List in pages of 3 = %v, want %v", got, want)
	}
	p, err := c.List(ctx, &session.ListOptions{})
	if err != nil || len(p.Sessions) != len(want) || p.Next != "" || p.Sessions[0].Title != "title of s6" {
		t.Errorf("List with the default limit = %+v, %v", p, err)
	}
	for _, bad := range []session.ListOptions{{Limit: -1}, {Limit: 1001}, {Cursor: "garbage"}} {
		_, err := c.List(ctx, &bad)
		is(t, fmt.Sprintf("List(%+v)", bad), err, session.ErrInvalid)
	}
}

func testShow(t *testing.T, h *harness) {
	s, clk := h.store(t)
	c := catalog(t, s)
	ctx := context.Background()
	create(t, s, "s1")
	msgs := Conversation()
	t0 := clk.Now()
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: msgs[:3], State: jsontext.Value(`{"n":1}`),
		Calls: []session.Call{{ID: "call_1", Tool: "get_weather", Attempt: 1}, {ID: "call_2", Tool: "get_weather", Attempt: 1}}})
	clk.Advance(time.Second)
	r, ok := s.(session.Results)
	var ref string
	if ok {
		var err error
		if ref, err = r.PutResult(ctx, "s1", session.Offloaded{Tool: "get_weather", Kind: "json", MediaType: "application/json",
			Data: []byte(`[1,2,3]`), Rules: jsontext.Value(`{"top":5}`)}); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, s, &session.Step{Session: "s1", Version: 2, Number: 2, Messages: msgs[3:], Status: session.StatusDone})
	tr, err := c.Show(ctx, "s1")
	if err != nil {
		t.Fatalf("Show = %v", err)
	}
	sameMessages(t, "Show", tr.Messages, msgs)
	wantSteps := []session.StepRecord{
		{Number: 1, Version: 2, Status: session.StatusRunning, First: 0, Messages: 3, State: jsontext.Value(`{"n":1}`), Created: t0},
		{Number: 2, Version: 3, Status: session.StatusDone, First: 3, Messages: 2, Created: t0.Add(time.Second)},
	}
	if fmt.Sprint(tr.Steps) != fmt.Sprint(wantSteps) {
		t.Errorf("Show.Steps = %+v, want %+v", tr.Steps, wantSteps)
	}
	if len(tr.Calls) != 2 || tr.Calls[0].ID != "call_1" || tr.Calls[1].ID != "call_2" {
		t.Errorf("Show.Calls = %+v, want call_1 and call_2 in order", tr.Calls)
	}
	if ok {
		want := []session.Offloaded{{Ref: ref, Session: "s1", Tool: "get_weather", Kind: "json", MediaType: "application/json",
			Rules: jsontext.Value(`{"top":5}`), Size: 7, Created: t0.Add(time.Second)}}
		if fmt.Sprint(tr.Results) != fmt.Sprint(want) {
			t.Errorf("Show.Results = %+v, want %+v (no data)", tr.Results, want)
		}
	}
	_, err = c.Show(ctx, "nope")
	is(t, `Show("nope")`, err, session.ErrNotFound)
}

func testDelete(t *testing.T, h *harness) {
	s, _ := h.store(t)
	c := catalog(t, s)
	ctx := context.Background()
	var refs []string
	for _, id := range []string{"keep", "gone"} {
		create(t, s, id)
		commit(t, s, &session.Step{Session: id, Version: 1, Number: 1, Messages: Conversation(), State: jsontext.Value(`1`),
			Calls: []session.Call{{ID: "call_1", Tool: "get_weather", Attempt: 1}}})
		if r, ok := s.(session.Results); ok {
			ref, err := r.PutResult(ctx, id, session.Offloaded{Tool: "t", Data: []byte(id)})
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, ref)
		}
	}
	if err := c.Delete(ctx, "gone"); err != nil {
		t.Fatalf("Delete = %v", err)
	}
	_, err := s.Load(ctx, "gone")
	is(t, "Load of a deleted session", err, session.ErrNotFound)
	_, err = c.Show(ctx, "gone")
	is(t, "Show of a deleted session", err, session.ErrNotFound)
	err = c.Delete(ctx, "gone")
	is(t, "Delete of a deleted session", err, session.ErrNotFound)
	if r, ok := s.(session.Results); ok {
		_, err = r.Result(ctx, "gone", refs[1])
		is(t, "Result of a deleted session", err, session.ErrNotFound)
		if got, err := r.Result(ctx, "keep", refs[0]); err != nil || string(got.Data) != "keep" {
			t.Errorf("Result of the other session = %q, %v", got.Data, err)
		}
	}
	sameMessages(t, "Load of the other session", load(t, s, "keep").Messages, Conversation())
	// The id can be used again, and nothing of the old session is left.
	create(t, s, "gone")
	if err := s.Record(ctx, "gone", 1, session.Call{ID: "call_1", Tool: "get_weather", Attempt: 1}); err != nil {
		t.Errorf("Record in a re-created session = %v, want no leftover record", err)
	}
	commit(t, s, textStep("gone", 1, 1, "again"))
	if tr, err := c.Show(ctx, "gone"); err != nil || len(tr.Messages) != 1 || len(tr.Steps) != 1 || len(tr.Calls) != 1 || len(tr.Results) != 0 {
		t.Errorf("Show of a re-created session = %+v, %v: want only what was written since", tr, err)
	}
	p, err := c.List(ctx, nil)
	if err != nil || len(p.Sessions) != 2 {
		t.Errorf("List = %+v, %v, want 2 sessions", p, err)
	}
}

// testResultStore runs the toolresult.Store conformance suite on a session's
// offloaded results, as the observation pipeline sees them.
func testResultStore(t *testing.T, h *harness) {
	storetest.ExerciseBound(t, func(t *testing.T) toolresult.Store {
		s, _ := h.store(t)
		r := results(t, s)
		create(t, s, "s1")
		return session.ResultStore(r, "s1")
	})
}

func testResults(t *testing.T, h *harness) {
	s, clk := h.store(t)
	r := results(t, s)
	ctx := context.Background()
	create(t, s, "s1")
	create(t, s, "s2")
	data := bytes.Repeat([]byte{0, 1, 2, 0xff, 'x'}, 50000) // 250 KB, not UTF-8
	in := session.Offloaded{Tool: "search_orders", Kind: "json", MediaType: "application/json", Data: data,
		Rules: jsontext.Value(`{"fields":["id","total"],"sort":"-total","max":50}`)}
	ref, err := r.PutResult(ctx, "s1", in)
	if err != nil {
		t.Fatalf("PutResult = %v", err)
	}
	got, err := r.Result(ctx, "s1", ref)
	if err != nil {
		t.Fatalf("Result = %v", err)
	}
	want := in
	want.Ref, want.Session, want.Size, want.Created = ref, "s1", int64(len(data)), clk.Now()
	if !bytes.Equal(got.Data, want.Data) || string(got.Rules) != string(want.Rules) {
		t.Errorf("Result: data (%d bytes) or rules %s differ from those stored", len(got.Data), got.Rules)
	}
	got.Data, want.Data = nil, nil
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Result = %+v, want %+v", got, want)
	}
	_, err = r.Result(ctx, "s2", ref)
	is(t, "Result of another session's ref", err, session.ErrNotFound)
	_, err = r.Result(ctx, "s1", "r-nosuchref")
	is(t, "Result of an unknown ref", err, session.ErrNotFound)
	_, err = r.PutResult(ctx, "nope", in)
	is(t, "PutResult in a missing session", err, session.ErrNotFound)
	_, err = r.PutResult(ctx, "s1", session.Offloaded{Tool: "t", Rules: jsontext.Value(`{`)})
	is(t, "PutResult with rules that are not JSON", err, session.ErrInvalid)
	empty, err := r.PutResult(ctx, "s2", session.Offloaded{Tool: "t"})
	if err != nil {
		t.Fatalf("PutResult of no data = %v", err)
	}
	if got, err := r.Result(ctx, "s2", empty); err != nil || len(got.Data) != 0 || got.Rules != nil || got.Size != 0 {
		t.Errorf("Result of no data = %+v, %v", got, err)
	}
	// A ref the caller chose (as the loop derives them for results that
	// fitting clears): kept under it, replaced in its session, refused in
	// another.
	chosen := "r-chosen0derived"
	for _, data := range []string{"first", "second"} {
		if got, err := r.PutResult(ctx, "s1", session.Offloaded{Ref: chosen, Tool: "t", Data: []byte(data)}); err != nil || got != chosen {
			t.Fatalf("PutResult(ref %s) = %q, %v; want it kept under that ref", chosen, got, err)
		}
	}
	if got, err := r.Result(ctx, "s1", chosen); err != nil || string(got.Data) != "second" {
		t.Errorf("Result(%s) after two PutResults = %q, %v; want the second", chosen, got.Data, err)
	}
	_, err = r.PutResult(ctx, "s2", session.Offloaded{Ref: chosen, Tool: "t", Data: []byte("other")})
	is(t, "PutResult of a ref another session holds", err, session.ErrConflict)
	if got, err := r.Result(ctx, "s1", chosen); err != nil || string(got.Data) != "second" {
		t.Errorf("Result(%s) after another session tried its ref = %q, %v; want it kept", chosen, got.Data, err)
	}
	_, err = r.PutResult(ctx, "s1", session.Offloaded{Ref: "r-../x", Tool: "t"})
	is(t, "PutResult of a ref with a slash", err, session.ErrInvalid)
	seen := map[string]bool{ref: true, empty: true, chosen: true}
	for i := range 50 {
		ref, err := r.PutResult(ctx, fmt.Sprintf("s%d", i%2+1), session.Offloaded{Tool: "t", Data: []byte{byte(i)}})
		if err != nil || seen[ref] || !strings.HasPrefix(ref, "r-") {
			t.Fatalf("PutResult = %q, %v: want a new ref r-…", ref, err)
		}
		seen[ref] = true
	}
}

// put stores results of the given sizes, one second apart, and returns
// their refs.
func put(t *testing.T, s session.Store, clk *clock, id string, sizes ...int) []string {
	t.Helper()
	var refs []string
	for _, n := range sizes {
		ref, err := results(t, s).PutResult(context.Background(), id, session.Offloaded{Tool: "t", Data: bytes.Repeat([]byte("x"), n)})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
		clk.Advance(time.Second)
	}
	return refs
}

// kept reports which refs are still readable, as a string of 0s and 1s.
func kept(t *testing.T, s session.Store, id string, refs []string) string {
	t.Helper()
	var b strings.Builder
	for _, ref := range refs {
		_, err := results(t, s).Result(context.Background(), id, ref)
		switch {
		case err == nil:
			b.WriteByte('1')
		case errors.Is(err, session.ErrNotFound):
			b.WriteByte('0')
		default:
			t.Fatalf("Result(%s) = %v", ref, err)
		}
	}
	return b.String()
}

func testRetention(t *testing.T, h *harness) {
	type stored struct {
		session string
		size    int
		at      time.Duration // after the clock's start
	}
	for _, tc := range []struct {
		name    string
		ret     session.Retention
		results []stored
		prune   time.Duration // when Prune runs
		want    session.Pruned
		kept    string // of results, in order: 1 kept, 0 deleted
	}{
		{"by age", session.Retention{MaxAge: time.Hour},
			[]stored{{"s1", 10, 0}, {"s1", 20, time.Second}, {"s1", 30, time.Hour + time.Second}},
			time.Hour + 2*time.Second, session.Pruned{Results: 2, Bytes: 30}, "001"},
		{"exactly as old as the limit", session.Retention{MaxAge: time.Hour},
			[]stored{{"s1", 1, 0}}, time.Hour, session.Pruned{}, "1"},
		{"by size, across sessions, the oldest first", session.Retention{MaxBytes: 250},
			[]stored{{"s1", 100, 0}, {"s1", 100, time.Second}, {"s2", 100, 2 * time.Second}, {"s1", 100, 3 * time.Second}, {"s1", 50, 4 * time.Second}},
			5 * time.Second, session.Pruned{Results: 2, Bytes: 200}, "00111"},
		{"exactly as large as the limit", session.Retention{MaxBytes: 100},
			[]stored{{"s1", 60, 0}, {"s2", 40, time.Second}}, time.Minute, session.Pruned{}, "11"},
		{"by age, then by size", session.Retention{MaxAge: time.Hour, MaxBytes: 100},
			[]stored{{"s1", 50, 0}, {"s2", 80, time.Hour}, {"s1", 40, time.Hour + time.Second}},
			time.Hour + 2*time.Second, session.Pruned{Results: 2, Bytes: 130}, "001"},
		{"no retention", session.Retention{},
			[]stored{{"s1", 1000, 0}}, 1000 * time.Hour, session.Pruned{}, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clk := h.store(t, tc.ret)
			p, r := pruner(t, s), results(t, s)
			ctx := context.Background()
			create(t, s, "s1")
			create(t, s, "s2")
			start := clk.Now()
			refs := make([]string, len(tc.results))
			for i, st := range tc.results {
				clk.Advance(start.Add(st.at).Sub(clk.Now()))
				var err error
				if refs[i], err = r.PutResult(ctx, st.session, session.Offloaded{Tool: "t", Data: bytes.Repeat([]byte("x"), st.size)}); err != nil {
					t.Fatal(err)
				}
			}
			clk.Advance(start.Add(tc.prune).Sub(clk.Now()))
			if got, err := p.Prune(ctx); err != nil || got != tc.want {
				t.Errorf("Prune = %+v, %v, want %+v", got, err, tc.want)
			}
			var k strings.Builder
			for i, st := range tc.results {
				k.WriteString(kept(t, s, st.session, refs[i:i+1]))
			}
			if k.String() != tc.kept {
				t.Errorf("kept after Prune = %s, want %s", k.String(), tc.kept)
			}
			if got, err := p.Prune(ctx); err != nil || got != (session.Pruned{}) {
				t.Errorf("Prune again = %+v, %v, want nothing", got, err)
			}
		})
	}
}

func testPruneOn(t *testing.T, h *harness) {
	s, clk := h.store(t, session.Retention{MaxAge: time.Minute})
	p := pruner(t, s)
	create(t, s, "s1")
	refs := put(t, s, clk, "s1", 1, 1)
	clk.Advance(time.Hour)
	tick := make(chan time.Time, 2)
	tick <- time.Time{}
	tick <- time.Time{}
	close(tick)
	if err := session.PruneOn(context.Background(), p, tick); err != nil {
		t.Errorf("PruneOn with a closed ticker = %v, want nil", err)
	}
	if k := kept(t, s, "s1", refs); k != "00" {
		t.Errorf("kept after PruneOn = %s, want 00", k)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := session.PruneOn(ctx, p, make(chan time.Time)); !errors.Is(err, context.Canceled) {
		t.Errorf("PruneOn with a cancelled context = %v, want context.Canceled", err)
	}
}

func testCancelled(t *testing.T, h *harness) {
	s, _ := h.store(t)
	create(t, s, "s1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Commit(ctx, textStep("s1", 1, 1, "x"))
	is(t, "Commit with a cancelled context", err, context.Canceled)
	err = s.Record(ctx, "s1", 1, session.Call{ID: "c", Tool: "t", Attempt: 1})
	is(t, "Record with a cancelled context", err, context.Canceled)
	_, err = s.Load(ctx, "s1")
	is(t, "Load with a cancelled context", err, context.Canceled)
	_, err = s.Create(ctx, session.Session{})
	is(t, "Create with a cancelled context", err, context.Canceled)
	snap := load(t, s, "s1")
	if snap.Session.Version != 1 || len(snap.Calls) != 0 {
		t.Errorf("Load after cancelled writes = %+v, want nothing written", snap)
	}
	commit(t, s, textStep("s1", 1, 1, "the store still works"))
}

func testCorrupt(t *testing.T, h *harness) {
	if h.opts.Exec == nil {
		t.Skip("no Options.Exec: the store's rows cannot be reached")
	}
	s, _ := h.store(t)
	ctx := context.Background()
	var ref string
	for _, id := range []string{"msg", "state", "call", "rules", "fine"} {
		create(t, s, id)
		commit(t, s, &session.Step{Session: id, Version: 1, Number: 1, Messages: Conversation(), State: jsontext.Value(`{"ok":true}`),
			Calls: []session.Call{{ID: "call_1", Tool: "pay", Attempt: 1, Result: result("call_1", llm.StatusSuccess, "x")}}})
	}
	ref = put(t, s, newClock(), "rules", 3)[0]
	bad := []byte(`{"version":1,"messages":[{"role":"user","parts":[{"type":"text","text":"cut`)
	h.opts.Exec(t, s, "UPDATE toolwire_messages SET data = ? WHERE session_id = ? AND seq = ?", bad, "msg", 3)
	h.opts.Exec(t, s, "UPDATE toolwire_steps SET state = ? WHERE session_id = ?", []byte(`{"ok":tru`), "state")
	h.opts.Exec(t, s, "UPDATE toolwire_calls SET result = ? WHERE session_id = ?", []byte(`{"version":2,"messages":[]}`), "call")
	h.opts.Exec(t, s, "UPDATE toolwire_results SET rules = ? WHERE session_id = ?", []byte(`not json`), "rules")
	for _, tc := range []struct{ id, item string }{
		{"msg", "message 3"},
		{"state", "state of step 1"},
		{"call", "call call_1 attempt 1"},
	} {
		_, err := s.Load(ctx, tc.id)
		corrupt(t, "Load("+tc.id+")", err, tc.id, tc.item)
		if c, ok := s.(session.Catalog); ok {
			_, err := c.Show(ctx, tc.id)
			corrupt(t, "Show("+tc.id+")", err, tc.id, tc.item)
		}
	}
	_, err := results(t, s).Result(ctx, "rules", ref)
	corrupt(t, "Result", err, "rules", "result "+ref)
	sameMessages(t, "Load of an intact session", load(t, s, "fine").Messages, Conversation())
	load(t, s, "rules")
	if c, ok := s.(session.Catalog); ok {
		if p, err := c.List(ctx, nil); err != nil || len(p.Sessions) != 5 {
			t.Errorf("List = %d sessions, %v, want all 5", len(p.Sessions), err)
		}
	}
	h.opts.Exec(t, s, "DELETE FROM toolwire_messages WHERE session_id = ? AND seq = ?", "fine", 1)
	_, err = s.Load(ctx, "fine")
	corrupt(t, "Load with a message missing", err, "fine", "message 1")
	h.opts.Exec(t, s, "UPDATE toolwire_sessions SET status = ? WHERE id = ?", "sleeping", "rules")
	_, err = s.Load(ctx, "rules")
	corrupt(t, "Load with an unknown status", err, "rules", "status")
}

func corrupt(t *testing.T, what string, err error, id, item string) {
	t.Helper()
	var ce *session.CorruptError
	switch {
	case !errors.Is(err, session.ErrCorrupt) || !errors.As(err, &ce):
		t.Errorf("%s = %v, want a *session.CorruptError", what, err)
	case ce.Session != id || ce.Item != item:
		t.Errorf("%s = %v, want session %s, item %q", what, err, id, item)
	case !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), item):
		t.Errorf("%s = %q, want the session and the item named", what, err)
	}
}

// The reads of a session that testHostileRows checks.
const (
	readLoad = 1 << iota
	readShow
	readResult
)

// testHostileRows sets one column of one stored row to a value that the
// store never writes, as a damaged or hostile database holds it, and
// checks that every read of the session reports a [*session.CorruptError]
// naming the row (its item) and the column with its value, and never
// panics or sizes memory by what a count claims.
func testHostileRows(t *testing.T, h *harness) {
	if h.opts.Exec == nil {
		t.Skip("no Options.Exec: the store's rows cannot be reached")
	}
	s, _ := h.store(t)
	ctx := context.Background()
	msgs := Conversation() // 5 messages: 3 in step 1, 2 in step 2
	// fixture writes a session of two steps, a call record in each, and
	// an offloaded result, and returns the result's ref.
	fixture := func(id string) string {
		create(t, s, id)
		commit(t, s, &session.Step{Session: id, Version: 1, Number: 1, Messages: msgs[:3], State: jsontext.Value(`{"n":1}`),
			Calls: []session.Call{{ID: "call_1", Tool: "pay", Attempt: 1, Result: result("call_1", llm.StatusSuccess, "paid")}}})
		commit(t, s, &session.Step{Session: id, Version: 2, Number: 2, Messages: msgs[3:], State: jsontext.Value(`{"n":2}`),
			Calls: []session.Call{{ID: "call_2", Tool: "pay", Attempt: 1, Duration: time.Second, Result: result("call_2", llm.StatusError, "no")}}})
		if _, ok := s.(session.Results); !ok {
			return ""
		}
		ref, err := results(t, s).PutResult(ctx, id, session.Offloaded{Tool: "pay", Kind: "json", MediaType: "application/json",
			Data: []byte(`[1,2,3]`), Rules: jsontext.Value(`{"top":5}`)})
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	const maxInt64 = int64(math.MaxInt64)
	notUTF8 := []byte("{\"version\":1,\"messages\":[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"text\":\"\xff\"}]}]}")
	twoMessages := encode(t, []llm.Message{llm.User("a"), llm.User("b")})
	otherCall := encode(t, []llm.Message{llm.Tool(*result("call_9", llm.StatusSuccess, "paid"))})
	for i, tc := range []struct {
		name  string
		query string // its last placeholder is the session's id
		value any
		reads int    // which reads must report the row
		item  string // the CorruptError's Item; {ref} is the result's ref
		want  string // in the error's text
	}{
		// The session row.
		{"negative message count", "UPDATE toolwire_sessions SET messages = ? WHERE id = ?", -1, readLoad | readShow, "messages", "toolwire_sessions.messages = -1"},
		{"huge message count", "UPDATE toolwire_sessions SET messages = ? WHERE id = ?", 3000000000, readLoad | readShow, "messages", "toolwire_sessions.messages = 3000000000"},
		{"largest message count", "UPDATE toolwire_sessions SET messages = ? WHERE id = ?", maxInt64, readLoad | readShow, "messages", "toolwire_sessions.messages = 9223372036854775807"},
		{"message count below the rows", "UPDATE toolwire_sessions SET messages = ? WHERE id = ?", 4, readLoad | readShow, "message 4", "toolwire_messages.seq = 4"},
		{"message count above the rows", "UPDATE toolwire_sessions SET messages = ? WHERE id = ?", 6, readLoad | readShow, "message 5", "missing"},
		{"negative step", "UPDATE toolwire_sessions SET step = ? WHERE id = ?", -1, readLoad | readShow, "step", "toolwire_sessions.step = -1"},
		{"step that is not stored", "UPDATE toolwire_sessions SET step = ? WHERE id = ?", 7, readLoad | readShow, "step 7", "missing"},
		{"version zero", "UPDATE toolwire_sessions SET version = ? WHERE id = ?", 0, readLoad | readShow, "version", "toolwire_sessions.version = 0"},
		{"negative version", "UPDATE toolwire_sessions SET version = ? WHERE id = ?", -1, readLoad | readShow, "version", "toolwire_sessions.version = -1"},
		{"last version", "UPDATE toolwire_sessions SET version = ? WHERE id = ?", maxInt64, readLoad | readShow, "version", "toolwire_sessions.version = 9223372036854775807"},
		{"empty status", "UPDATE toolwire_sessions SET status = ? WHERE id = ?", "", readLoad | readShow, "status", `toolwire_sessions.status = ""`},
		// The message rows.
		{"negative seq", "UPDATE toolwire_messages SET seq = ? WHERE session_id = ? AND seq = 0", -1, readLoad | readShow, "message 0", "toolwire_messages.seq = -1"},
		{"huge seq", "UPDATE toolwire_messages SET seq = ? WHERE session_id = ? AND seq = 4", maxInt64, readLoad | readShow, "message 4", "missing (the next stored one is 9223372036854775807)"},
		{"seq out of order", "UPDATE toolwire_messages SET seq = ? WHERE session_id = ? AND seq = 2", 7, readLoad | readShow, "message 2", "missing (the next stored one is 3)"},
		{"message not UTF-8", "UPDATE toolwire_messages SET data = ? WHERE session_id = ? AND seq = 1", notUTF8, readLoad | readShow, "message 1", "toolwire_messages.data"},
		{"two messages in a row", "UPDATE toolwire_messages SET data = ? WHERE session_id = ? AND seq = 1", twoMessages, readLoad | readShow, "message 1", "holds 2 messages"},
		// The step rows.
		{"negative first_seq", "UPDATE toolwire_steps SET first_seq = ? WHERE session_id = ? AND number = 1", -1, readShow, "step 1", "toolwire_steps.first_seq = -1"},
		{"huge first_seq", "UPDATE toolwire_steps SET first_seq = ? WHERE session_id = ? AND number = 2", maxInt64, readShow, "step 2", "toolwire_steps.first_seq = 9223372036854775807"},
		{"first_seq out of order", "UPDATE toolwire_steps SET first_seq = ? WHERE session_id = ? AND number = 2", 0, readShow, "step 2", "toolwire_steps.first_seq = 0"},
		{"negative step message count", "UPDATE toolwire_steps SET messages = ? WHERE session_id = ? AND number = 1", -1, readShow, "step 1", "toolwire_steps.messages = -1"},
		{"huge step message count", "UPDATE toolwire_steps SET messages = ? WHERE session_id = ? AND number = 2", 3000000000, readShow, "step 2", "toolwire_steps.messages = 3000000000"},
		{"step message count beyond the messages", "UPDATE toolwire_steps SET messages = ? WHERE session_id = ? AND number = 2", 3, readShow, "step 2", "toolwire_steps.messages = 3"},
		{"step message count short of the messages", "UPDATE toolwire_steps SET messages = ? WHERE session_id = ? AND number = 2", 1, readShow, "step 2", "toolwire_steps.messages = 1"},
		{"negative step number", "UPDATE toolwire_steps SET number = ? WHERE session_id = ? AND number = 1", -1, readShow, "step -1", "toolwire_steps.number = -1"},
		{"step number beyond the session's", "UPDATE toolwire_steps SET number = ? WHERE session_id = ? AND number = 2", 9, readShow, "step 9", "toolwire_steps.number = 9"},
		{"negative step version", "UPDATE toolwire_steps SET version = ? WHERE session_id = ? AND number = 1", -1, readShow, "step 1", "toolwire_steps.version = -1"},
		{"unknown step status", "UPDATE toolwire_steps SET status = ? WHERE session_id = ? AND number = 1", "sleeping", readShow, "step 1", `toolwire_steps.status = "sleeping"`},
		{"state not UTF-8", "UPDATE toolwire_steps SET state = ? WHERE session_id = ? AND number = 2", []byte("{\"a\":\"\xff\"}"), readLoad | readShow, "state of step 2", "toolwire_steps.state"},
		// The call records.
		{"attempt zero", "UPDATE toolwire_calls SET attempt = ? WHERE session_id = ? AND call_id = 'call_2'", 0, readLoad | readShow, "call call_2 attempt 0", "toolwire_calls.attempt = 0"},
		{"negative attempt", "UPDATE toolwire_calls SET attempt = ? WHERE session_id = ? AND call_id = 'call_2'", -1, readLoad | readShow, "call call_2 attempt -1", "toolwire_calls.attempt = -1"},
		{"negative call step", "UPDATE toolwire_calls SET step = ? WHERE session_id = ? AND call_id = 'call_1'", -1, readShow, "call call_1 attempt 1", "toolwire_calls.step = -1"},
		{"negative duration", "UPDATE toolwire_calls SET duration = ? WHERE session_id = ? AND call_id = 'call_2'", -1, readLoad | readShow, "call call_2 attempt 1", "toolwire_calls.duration = -1"},
		{"unknown idempotency", "UPDATE toolwire_calls SET idempotency = ? WHERE session_id = ? AND call_id = 'call_2'", "level_9", readLoad | readShow, "call call_2 attempt 1", `toolwire_calls.idempotency = "level_9"`},
		{"result of another call", "UPDATE toolwire_calls SET result = ? WHERE session_id = ? AND call_id = 'call_2'", otherCall, readLoad | readShow, "call call_2 attempt 1", "call_9"},
		{"result not UTF-8", "UPDATE toolwire_calls SET result = ? WHERE session_id = ? AND call_id = 'call_2'", notUTF8, readLoad | readShow, "call call_2 attempt 1", "toolwire_calls.result"},
		// The offloaded results.
		{"negative size", "UPDATE toolwire_results SET size = ? WHERE session_id = ?", -1, readShow | readResult, "result {ref}", "toolwire_results.size = -1"},
		{"huge size", "UPDATE toolwire_results SET size = ? WHERE session_id = ?", maxInt64, readShow | readResult, "result {ref}", "toolwire_results.size = 9223372036854775807"},
		{"rules not JSON", "UPDATE toolwire_results SET rules = ? WHERE session_id = ?", []byte("not json"), readShow | readResult, "result {ref}", "toolwire_results.rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("hostile%02d", i)
			ref := fixture(id)
			h.opts.Exec(t, s, tc.query, tc.value, id)
			item := strings.ReplaceAll(tc.item, "{ref}", ref)
			check := func(what string, err error) {
				t.Helper()
				corrupt(t, what, err, id, item)
				if err != nil && !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s = %q, want it to say %q", what, err, tc.want)
				}
			}
			if tc.reads&readLoad != 0 {
				snap, err := s.Load(ctx, id)
				check(fmt.Sprintf("Load(%s)", id), err)
				if snap != nil {
					t.Errorf("Load(%s) returned a snapshot with its error", id)
				}
			}
			if c, ok := s.(session.Catalog); ok && tc.reads&readShow != 0 {
				tr, err := c.Show(ctx, id)
				check(fmt.Sprintf("Show(%s)", id), err)
				if tr != nil {
					t.Errorf("Show(%s) returned a trace with its error", id)
				}
			}
			if r, ok := s.(session.Results); ok && tc.reads&readResult != 0 {
				_, err := r.Result(ctx, id, ref)
				check(fmt.Sprintf("Result(%s, %s)", id, ref), err)
			}
			// A corrupt session can be deleted.
			if c, ok := s.(session.Catalog); ok {
				if err := c.Delete(ctx, id); err != nil {
					t.Errorf("Delete(%s) = %v", id, err)
				}
				_, err := s.Load(ctx, id)
				is(t, fmt.Sprintf("Load(%s) after Delete", id), err, session.ErrNotFound)
			}
		})
	}
	// The hostile rows of the other sessions leave an intact one readable.
	fixture("intact")
	sameMessages(t, "Load of an intact session", load(t, s, "intact").Messages, msgs)
	if c, ok := s.(session.Catalog); ok {
		if _, err := c.Show(ctx, "intact"); err != nil {
			t.Errorf("Show(intact) = %v", err)
		}
	}
}

func testReopen(t *testing.T, h *harness) {
	if h.opts.Reopen == nil {
		t.Skip("no Options.Reopen: the store cannot be reopened")
	}
	s, _ := h.store(t)
	ctx := context.Background()
	create(t, s, "s1")
	commit(t, s, &session.Step{Session: "s1", Version: 1, Number: 1, Messages: Conversation(), State: jsontext.Value(`{"n":1}`)})
	if err := s.Record(ctx, "s1", 2, session.Call{ID: "call_9", Tool: "pay", Idempotency: tool.Level0, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	other, err := h.opts.Reopen(t, s)
	if err != nil {
		t.Fatalf("Reopen = %v", err)
	}
	snap := load(t, other, "s1")
	sameMessages(t, "Load after reopening", snap.Messages, Conversation())
	if u := snap.Unfinished(); string(snap.State) != `{"n":1}` || len(u) != 1 || u[0].ID != "call_9" || u[0].Idempotency != tool.Level0 {
		t.Errorf("Load after reopening = state %s, unfinished %+v", snap.State, u)
	}
	// Two stores over one database: the second writer conflicts.
	commit(t, other, textStep("s1", 2, 2, "from the other store"))
	_, err = s.Commit(ctx, textStep("s1", 2, 2, "stale"))
	conflict(t, "Commit through the first store", err, session.ConflictError{Session: "s1", Read: 2, Current: 3})
	err = s.Record(ctx, "s1", 2, session.Call{ID: "call_9", Tool: "pay", Attempt: 1, Result: result("call_9", llm.StatusSuccess, "paid")})
	conflict(t, "Record through the first store", err, session.ConflictError{Session: "s1", Read: 2, Current: 3})
}
