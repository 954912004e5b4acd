package toolwire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/tool"
)

// Responses with Store continues each turn by previous_response_id and
// sends only the new items.
func TestResponsesPreviousResponseID(t *testing.T) {
	srv := llmtest.NewServer(t, calls(paris), calls(call("get_weather", `{"city":"北京"}`)), llmtest.Turn{Text: "Mild and cold."})
	m, err := openai.NewResponses("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1", RetryBackoff: time.Millisecond}, Store: true})
	must(t, err)
	a, _ := newAgent(t, m, weatherCfg(t))
	res, err := a.Run(context.Background(), "Weather in Paris and 北京?")
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, req := range reqs {
		var body struct {
			Prev string `json:"previous_response_id"`
		}
		must(t, json.Unmarshal(req.Body, &body))
		if (i == 0) != (body.Prev == "") {
			t.Errorf("request %d: previous_response_id %q", i+1, body.Prev)
		}
	}
	checkGolden(t, "previous-response-id", srv, res)
}

// TestPreviousResponseIDSurvivesRestart: the stored answer a Responses
// run continues is in its State: saved as JSON after the first turn and
// continued by another agent with another client (another process), the
// next request still sends only the new items.
func TestPreviousResponseIDSurvivesRestart(t *testing.T) {
	srv := llmtest.NewServer(t, calls(paris), llmtest.Turn{Text: "18°C."})
	open := func() *toolwire.Agent {
		m, err := openai.NewResponses("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1", RetryBackoff: time.Millisecond}, Store: true})
		must(t, err)
		a, _ := newAgent(t, m, weatherCfg(t))
		return a
	}
	a := open()
	s := a.Start("Weather in Paris?")
	for s.Next.Kind != toolwire.CallModel || s.Turn == 0 {
		var err error
		s, _, err = a.Step(s, a.Perform(context.Background(), s))
		must(t, err)
	}
	if s.Previous == nil || s.Previous.ID == "" {
		t.Fatalf("after a stored answer, State.Previous = %+v, want its id", s.Previous)
	}
	b, err := json.Marshal(s)
	must(t, err)
	var back toolwire.State
	must(t, json.Unmarshal(b, &back))
	res, err := open().RunState(context.Background(), &back)
	if err != nil || res.Answer != "18°C." {
		t.Fatalf("RunState after a restart = %+v, %v", res, err)
	}
	var body struct {
		Prev  string           `json:"previous_response_id"`
		Input []jsontext.Value `json:"input"`
	}
	must(t, json.Unmarshal(srv.Requests()[1].Body, &body))
	if body.Prev != s.Previous.ID || len(body.Input) != 1 {
		t.Errorf("the request after the restart continues %q with %d items, want %q with the one tool result", body.Prev, len(body.Input), s.Previous.ID)
	}
}

// waitTool returns a read-only tool whose first call waits until it is
// cancelled, and a channel closed when that call starts; later calls
// return at once.
func waitTool() (tool.Tool, <-chan struct{}) {
	started := make(chan struct{})
	var first sync.Once
	return tool.MustFunc("wait", "Waits.", func(ctx context.Context, _ struct{}) (string, error) {
		waits := false
		first.Do(func() { waits = true })
		if !waits {
			return "waited", nil
		}
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}, &tool.FuncOptions{Idempotency: tool.Level2}), started
}

// Cancelling the context while a read-only tool runs stops the run
// cleanly: the call is left to run again, as after a crash (RecoveryOf),
// so the state still wants the tools and no result was sent for it;
// continuing the state, also after JSON, runs it and goes on.
func TestCancel(t *testing.T) {
	for _, d := range dialects(true) {
		t.Run(d.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, calls(call("wait", `{}`), paris), llmtest.Turn{Text: "Resumed: 18°C."})
			wait, started := waitTool()
			a, _ := newAgent(t, d.new(t, srv), &toolwire.Config{Tools: registry(wait, weatherTool())})
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-started; cancel() }()
			res, err := a.Run(ctx, "Wait, then the weather in Paris.")
			if !errors.Is(err, toolwire.Cancelled) || !errors.Is(err, context.Canceled) {
				t.Fatalf("Run error = %v, want cancelled", err)
			}
			st := res.State
			if st.Next.Kind != toolwire.RunTools || st.Next.Calls[0].Result != nil || st.Next.Calls[0].Attempts != 1 {
				t.Fatalf("state wants %s (wait answered: %v, attempts %d), want the tools, with wait left to run after 1 attempt", st.Next.Kind, st.Next.Calls[0].Result != nil, st.Next.Calls[0].Attempts)
			}
			if last := st.Messages[len(st.Messages)-1]; last.Role != llm.RoleAssistant {
				t.Fatalf("last message = %+v, want the calls, not yet answered", last)
			}
			if !strings.Contains(res.Message, "wait (") {
				t.Errorf("Result.Message = %q, want it to name the wait call", res.Message)
			}
			checkState(t, st)
			// Continue from a copy of the state that went through JSON.
			b, err := json.Marshal(st)
			must(t, err)
			var back toolwire.State
			must(t, json.Unmarshal(b, &back))
			res, err = a.RunState(context.Background(), &back)
			if err != nil || res.Answer != "Resumed: 18°C." {
				t.Fatalf("RunState = %+v, %v", res, err)
			}
			checkState(t, res.State)
			var got []string
			for _, m := range res.State.Messages {
				for _, r := range m.ToolResults() {
					got = append(got, resultLine(r))
				}
			}
			if len(got) != 2 || !strings.HasPrefix(got[0], "success: wait(): done") {
				t.Errorf("results = %q, want wait's (run again) and the weather's", got)
			}
		})
	}
}

// A tool that needs approval, with no approver, is not run: the run
// pauses with the call pending, the turn's other calls answered.
func TestApprovalPauses(t *testing.T) {
	srv := llmtest.NewServer(t, calls(paris, call("book_trip", `{"city":"Paris"}`)))
	type in struct {
		City string `json:"city"`
	}
	ran := false
	book := tool.MustFunc("book_trip", "Books a trip.", func(ctx context.Context, a in) (string, error) {
		ran = true
		return "booked", nil
	}, &tool.FuncOptions{RequiresApproval: true, Idempotency: tool.Level1})
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(weatherTool(), book)})
	res, err := a.Run(context.Background(), "Book Paris if it is sunny.")
	if !errors.Is(err, toolwire.Paused) || res.Stop != toolwire.Paused {
		t.Fatalf("Run = %+v, %v; want paused", res, err)
	}
	if ran {
		t.Error("the tool that needs approval ran")
	}
	next := res.State.Next
	if next.Kind != toolwire.AwaitApproval || len(next.Calls) != 2 || next.Calls[0].Result == nil || next.Calls[1].Result != nil || !next.Calls[1].Approval || next.Calls[1].Key == "" {
		t.Fatalf("next = %+v, want the weather answered and book_trip pending approval with a key", next)
	}
	checkState(t, res.State)
}

// Config.Output: an answer that breaks the schema gets one corrective
// turn; RunTyped decodes the one that matches.
func TestOutputSchema(t *testing.T) {
	type forecast struct {
		City  string `json:"city" minLength:"1"`
		TempC int    `json:"temp_c"`
	}
	schema, err := toolwire.SchemaFor[forecast]()
	must(t, err)
	srv := llmtest.NewServer(t, calls(paris), llmtest.Turn{Text: "It is 18°C in Paris."}, llmtest.Turn{Text: "```json\n{\"city\":\"Paris\",\"temp_c\":18}\n```"})
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(weatherTool()), Output: schema})
	got, res, err := toolwire.RunTyped[forecast](context.Background(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got != (forecast{City: "Paris", TempC: 18}) || string(res.Output) != `{"city":"Paris","temp_c":18}` {
		t.Errorf("RunTyped = %+v, %s", got, res.Output)
	}
	checkGolden(t, "output-schema", srv, res)

	srv = llmtest.NewServer(t, llmtest.Turn{Text: "18°C"}, llmtest.Turn{Text: `{"city":""}`})
	a, _ = newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Output: schema})
	_, res, err = toolwire.RunTyped[forecast](context.Background(), a, "Weather in Paris?")
	if !errors.Is(err, toolwire.InvalidOutput) || !strings.Contains(res.Message, "temp_c") {
		t.Fatalf("RunTyped error = %v (%+v), want invalid_output naming temp_c", err, res)
	}
}

// Stream yields the text as it streams, each call, each result as sent,
// a summary per turn, each step and the result; the log has one line per
// turn.
func TestStreamEventsAndLog(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "Looking.", Calls: []llmtest.Call{paris}, Chunk: 3}, llmtest.Turn{Text: "18°C in Paris.", Chunk: 3})
	var logs bytes.Buffer
	cfg := weatherCfg(t)
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), cfg)
	var kinds []string
	var text strings.Builder
	for ev, err := range a.Stream(context.Background(), "Weather in Paris?") {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case toolwire.TextEvent:
			text.WriteString(ev.Text)
			if len(kinds) == 0 || kinds[len(kinds)-1] != "text" {
				kinds = append(kinds, "text")
			}
		case toolwire.CallEvent:
			kinds = append(kinds, "call "+ev.Call.Name)
		case toolwire.ResultEvent:
			kinds = append(kinds, "result "+string(ev.Result.Status))
		case toolwire.TurnEvent:
			kinds = append(kinds, "turn")
		case toolwire.StepEvent:
			kinds = append(kinds, "step")
		case toolwire.DoneEvent:
			kinds = append(kinds, "done "+string(ev.Result.Stop))
		}
	}
	want := "text,call get_weather,step,result success,turn,step,text,turn,step,done answered"
	if got := strings.Join(kinds, ","); got != want {
		t.Errorf("events = %s\nwant     %s", got, want)
	}
	if text.String() != "Looking.18°C in Paris." {
		t.Errorf("text = %q", text.String())
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log has %d lines, want one per turn:\n%s", len(lines), logs.String())
	}
	for _, want := range []string{"msg=turn turn=1 added=2 ", "call_ids=call_1_0 tools=get_weather:success:", "truncated=false fitted=false input_tokens=", "encoded=2 reused=0"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("log line %q lacks %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], "encoded=2 reused=2") || !strings.Contains(lines[1], "stop=answered") {
		t.Errorf("second turn's log line %q: want the first two messages reused and the stop", lines[1])
	}
}

// Step is pure: the same state and outcome give the same next state, and
// the state given is not changed.
func TestStepIsPure(t *testing.T) {
	a, err := toolwire.New(fakeModel{}, &toolwire.Config{Tools: registry(weatherTool())})
	must(t, err)
	s := a.Start("Weather in Paris?")
	s.ID = "run_fixed"
	before, _ := json.Marshal(s)
	out := toolwire.ModelOutcome{Response: &llm.Response{Message: llm.Assistant(llm.ToolCall{ID: "c1", Name: "get_weather", Input: []byte(`{"city":"Paris"}`)})}}
	n1, _, err := a.Step(s, out)
	must(t, err)
	n2, _, err := a.Step(s, out)
	must(t, err)
	after, _ := json.Marshal(s)
	j1, _ := json.Marshal(n1)
	j2, _ := json.Marshal(n2)
	if string(before) != string(after) || string(j1) != string(j2) {
		t.Errorf("Step is not pure:\nbefore %s\nafter  %s\nnext   %s\nnext   %s", before, after, j1, j2)
	}
	if n1.Next.Kind != toolwire.RunTools || len(n1.Next.Calls) != 1 {
		t.Errorf("next = %+v, want the call to run", n1.Next)
	}
	if _, _, err := a.Step(n1, out); err == nil {
		t.Error("Step took a model outcome for a state that wants tools")
	}
}

// fakeModel is a model without wire rules, for tests that only step.
type fakeModel struct{}

func (fakeModel) Stream(context.Context, *llm.Request) iter.Seq2[llm.Event, error] {
	return func(func(llm.Event, error) bool) {}
}
func (fakeModel) Dialect() string { return "" }

// With an approver, the executor asks it and the run goes on.
func TestApprovalWithApprover(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("book_trip", `{"city":"Paris"}`)), llmtest.Turn{Text: "Declined."})
	type in struct {
		City string `json:"city"`
	}
	book := tool.MustFunc("book_trip", "Books a trip.", func(ctx context.Context, a in) (string, error) {
		t.Error("a declined call ran")
		return "", nil
	}, &tool.FuncOptions{RequiresApproval: true, Idempotency: tool.Level1})
	var asked []string
	approver := tool.ApproverFunc(func(ctx context.Context, spec tool.Spec, c llm.ToolCall, args []byte) (bool, string, error) {
		asked = append(asked, c.Name+" "+string(args))
		return false, "not this week", nil
	})
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(book), Executor: &tool.Config{Approver: approver}})
	res, err := a.Run(context.Background(), "Book Paris.")
	if err != nil || res.Answer != "Declined." {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if len(asked) != 1 || asked[0] != `book_trip {"city":"Paris"}` {
		t.Errorf("the approver was asked %q", asked)
	}
	checkGolden(t, "approval-rejected", srv, res)
}

// Breaking out of Stream stops the run at once: no more requests, no
// goroutine left (goleak checks in TestMain).
func TestStreamBreak(t *testing.T) {
	srv := llmtest.NewServer(t, calls(paris), llmtest.Turn{Text: "18°C."})
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), weatherCfg(t))
	for ev := range a.Stream(context.Background(), "Weather in Paris?") {
		if _, ok := ev.(toolwire.CallEvent); ok {
			break
		}
	}
	if n := len(srv.Requests()); n != 1 || srv.Remaining() != 1 {
		t.Errorf("%d requests, %d turns left; want 1 and 1", n, srv.Remaining())
	}
}
