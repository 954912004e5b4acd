package modeltest

import (
	"context"
	"testing"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
)

// answerText is a text answer with what encoders get wrong: non-ASCII,
// HTML-like characters, quotes, a newline and a character outside the
// Basic Multilingual Plane.
const answerText = "Paris: 18°C, <sunny> & \"dry\".\n北京: 6°C, 有风。 🌬"

// testText: a text answer arrives as text deltas, in a valid order, and
// assembles to the text, with usage and the finish reason "stop"; Generate
// gives what the Accumulator makes of the stream.
func testText(t *testing.T, h *Harness) {
	turn := Turn{Text: answerText, Chunk: 5}
	b := h.open(t, turn, turn)
	req := ask("Weather in Paris and Beijing?")
	events := stream(t, b.Model, req)
	deltas := 0
	for _, ev := range events {
		if _, ok := ev.(llm.TextDelta); ok {
			deltas++
		}
	}
	if deltas == 0 {
		t.Errorf("Stream() yielded no TextDelta for a text answer: %s", describeAll(events))
	}
	streamed, err := accumulate(events)
	if err != nil {
		t.Fatalf("Accumulator.Response() error = %v, want none", err)
	}
	checkText(t, streamed.Message, answerText)
	if streamed.Finish.Reason != llm.FinishStop {
		t.Errorf("finish = %+v, want reason %q", streamed.Finish, llm.FinishStop)
	}
	if u := streamed.Usage; u.InputTokens <= 0 || u.OutputTokens <= 0 {
		t.Errorf("usage = %+v, want input and output tokens counted", u)
	}
	whole := generate(t, b.Model, req)
	if !sameAnswer(whole, streamed) {
		t.Errorf("Generate() = %+v\nwant what the Accumulator made of the stream: %+v", whole, streamed)
	}
	h.accepted(t, b, 2)
}

// checkText fails t unless m is an assistant message of text parts only
// that say want.
func checkText(t *testing.T, m llm.Message, want string) {
	t.Helper()
	if m.Role != llm.RoleAssistant {
		t.Errorf("message role = %q, want %q", m.Role, llm.RoleAssistant)
	}
	for i, p := range m.Parts {
		if _, ok := p.(llm.Text); !ok {
			t.Errorf("message part %d = %#v, want only text parts", i, p)
		}
	}
	if got := m.Text(); got != want {
		t.Errorf("message text = %q, want %q", got, want)
	}
}

// testUsage: the usage the provider reports reaches the Response, in
// llm's meaning.
func testUsage(t *testing.T, h *Harness) {
	h.need(t, ExactUsage)
	want := llm.Usage{InputTokens: 1234, OutputTokens: 56, CacheReadTokens: 1000, CacheWriteTokens: 200, ReasoningTokens: 20}
	b := h.open(t, Turn{Text: "ok", Usage: want})
	got := generate(t, b.Model, ask("hi")).Usage
	// Not every provider reports cache writes or reasoning apart: those
	// are checked when reported.
	if got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens || got.CacheReadTokens != want.CacheReadTokens ||
		(got.CacheWriteTokens != 0 && got.CacheWriteTokens != want.CacheWriteTokens) ||
		(got.ReasoningTokens != 0 && got.ReasoningTokens != want.ReasoningTokens) {
		t.Errorf("usage = %+v, want %+v (cache writes and reasoning may be 0 when the provider does not report them)", got, want)
	}
}

// testReasoning: the provider's reasoning arrives as a Reasoning part of
// the model's dialect, and the history that carries it back, with the
// call it led to and its result, is accepted.
func testReasoning(t *testing.T, h *Harness) {
	h.need(t, Reasoning)
	const thought = "The user wants the weather: call get_weather for Paris."
	b := h.open(t,
		Turn{Reasoning: thought, Calls: []Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
		Turn{Text: "18°C and sunny."})
	req := ask("Weather in Paris?")
	first := generate(t, b.Model, req)
	// A provider may carry a signature in a part of its own (Gemini's
	// thought signature on a call): the parts' texts are joined.
	var rs []llm.Reasoning
	text := ""
	for _, p := range first.Message.Parts {
		if r, ok := p.(llm.Reasoning); ok {
			rs = append(rs, r)
			text += r.Text
			if r.Provider != b.Model.Dialect() {
				t.Errorf("reasoning part %+v: Provider %q, want the model's dialect %q, to which alone it is replayed", r, r.Provider, b.Model.Dialect())
			}
		}
	}
	if text != thought {
		t.Errorf("reasoning parts = %+v, want the text %q", rs, thought)
	}
	calls := first.Message.ToolCalls()
	if len(calls) != 1 {
		t.Fatalf("tool calls = %+v, want 1", calls)
	}
	req.Messages = append(req.Messages, first.Message, llm.Tool(result(calls[0], llm.StatusSuccess, "18°C, sunny")))
	checkText(t, generate(t, b.Model, req).Message, "18°C and sunny.")
	h.accepted(t, b, 2)
}

// result returns a result of c with one text part.
func result(c llm.ToolCall, s llm.Status, text string) llm.ToolResult {
	return llm.ToolResult{CallID: c.ID, Name: c.Name, Status: s, Content: []llm.Part{llm.Text{Text: text}}}
}

// parallel are four parallel calls: arguments with what encoders get
// wrong, the same tool twice, and a call without arguments.
var parallel = []Call{
	{ID: "call_w1", Name: "get_weather", Args: `{"city":"Paris","units":"celsius","days":3,"tags":["wind","rain"],"note":"say \"hi\" <b>&amp;</b> 北京 🌧\n"}`},
	{ID: "call_w2", Name: "get_weather", Args: `{"city":"北京"}`},
	{ID: "call_t1", Name: "get_time", Args: `{"tz":"Europe/Paris"}`},
	{ID: "call_l1", Name: "list_cities", Args: `{}`},
}

// testToolCalls: parallel calls, their arguments streamed in small
// fragments and interleaved where the protocol allows it, assemble in
// order with their ids, names and arguments, and finish with "tool_calls".
func testToolCalls(t *testing.T, h *Harness) {
	turn := Turn{Text: "Let me check.", Calls: parallel, Chunk: 3, Interleave: true}
	b := h.open(t, turn, turn)
	req := ask("Weather in Paris and Beijing, and the time in Paris?")
	events := stream(t, b.Model, req)
	for _, ev := range events {
		if d, ok := ev.(llm.ToolCallDelta); ok && d.Index < -1 {
			t.Errorf("ToolCallDelta %+v: Index %d, want a position or -1 for none", d, d.Index)
		}
	}
	streamed, err := accumulate(events)
	if err != nil {
		t.Fatalf("Accumulator.Response() error = %v, want none (events: %s)", err, describeAll(events))
	}
	if got := streamed.Message.Text(); got != "Let me check." {
		t.Errorf("message text = %q, want %q", got, "Let me check.")
	}
	checkCalls(t, streamed.Message.ToolCalls(), parallel)
	if streamed.Finish.Reason != llm.FinishToolCalls {
		t.Errorf("finish = %+v, want reason %q", streamed.Finish, llm.FinishToolCalls)
	}
	whole := generate(t, b.Model, req)
	if !sameAnswer(whole, streamed) {
		t.Errorf("Generate() = %+v\nwant what the Accumulator made of the stream: %+v", whole, streamed)
	}
	h.accepted(t, b, 2)
}

// checkCalls fails t unless got are the calls want, in order: the ids
// given (made ones non-empty; the Accumulator merges fragments of one id,
// so two calls that arrive whole have two), the names, and the arguments
// as valid JSON of the same value.
func checkCalls(t *testing.T, got []llm.ToolCall, want []Call) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("tool calls = %+v, want %d", got, len(want))
	}
	for i, c := range got {
		w := want[i]
		switch {
		case c.ID == "":
			t.Errorf("call %d has no id", i)
		case w.ID != "" && c.ID != w.ID:
			t.Errorf("call %d id = %q, want %q as the provider sent it", i, c.ID, w.ID)
		}
		if c.Name != w.Name {
			t.Errorf("call %d name = %q, want %q", i, c.Name, w.Name)
		}
		if err := jsonx.Valid(c.Input); err != nil {
			t.Errorf("call %d arguments %s are not valid JSON: %v", i, c.Input, err)
		} else if !sameJSON(c.Input, []byte(w.Args)) {
			t.Errorf("call %d arguments = %s, want %s", i, c.Input, w.Args)
		}
	}
}

// testToolCallIDs: calls the provider sends without ids, or with ids
// left to the server, get ids that are unique, also for two calls that
// are the same, and results that name them are accepted.
func testToolCallIDs(t *testing.T, h *Harness) {
	same := Call{Name: "get_weather", Args: `{"city":"Paris"}`}
	calls := []Call{same, same, {Name: "get_time", Args: `{"tz":"Europe/Paris"}`}}
	b := h.open(t, Turn{Calls: calls}, Turn{Text: "Done."})
	req := ask("Weather in Paris, twice, and the time?")
	first := generate(t, b.Model, req)
	got := first.Message.ToolCalls()
	checkCalls(t, got, calls)
	tool := llm.Message{Role: llm.RoleTool}
	for _, c := range got {
		tool.Parts = append(tool.Parts, result(c, llm.StatusSuccess, "ok"))
	}
	req.Messages = append(req.Messages, first.Message, tool)
	checkText(t, generate(t, b.Model, req).Message, "Done.")
	h.accepted(t, b, 2)
}

// testConversation: a conversation of three requests, each the history
// so far with the model's own answer and the tool results appended as
// they are, is accepted and answered turn by turn.
func testConversation(t *testing.T, h *Harness) {
	b := h.open(t,
		Turn{Text: "Checking both.", Calls: []Call{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_time", Args: `{"tz":"Europe/Paris"}`}}},
		Turn{Text: "Paris: 18°C and sunny; the time service failed."},
		Turn{Text: "Tomorrow: 20°C."})
	req := ask("Weather and time in Paris?")
	first := generate(t, b.Model, req)
	calls := first.Message.ToolCalls()
	if len(calls) != 2 || first.Finish.Reason != llm.FinishToolCalls {
		t.Fatalf("answer 1 = %+v, want 2 calls and the finish reason %q", first, llm.FinishToolCalls)
	}
	req.Messages = append(req.Messages, first.Message, llm.Tool(
		result(calls[0], llm.StatusSuccess, `{"temp_c":18,"sky":"sunny","note":"<b>&amp;</b> 北京"}`),
		result(calls[1], llm.StatusError, "error: the time service is unavailable")))
	second := generate(t, b.Model, req)
	checkText(t, second.Message, "Paris: 18°C and sunny; the time service failed.")
	req.Messages = append(req.Messages, second.Message, llm.User("And tomorrow?"))
	checkText(t, generate(t, b.Model, req).Message, "Tomorrow: 20°C.")
	h.accepted(t, b, 3)
}

// history is a conversation the model did not write: calls with ids of
// no provider's style, results with each status, a result with no
// content, and text after them.
func history() []llm.Message {
	return []llm.Message{
		llm.System("You are a weather assistant."),
		llm.User("What should I wear in Beijing today? <b>&amp;</b>"),
		llm.Assistant(llm.Text{Text: "Let me check."},
			llm.ToolCall{ID: "call_h1", Name: "get_weather", Input: []byte(`{"city":"Beijing","units":"celsius"}`)},
			llm.ToolCall{ID: "call_h2", Name: "get_time", Input: []byte(`{"tz":"Asia/Shanghai"}`)},
			llm.ToolCall{ID: "call_h3", Name: "list_cities", Input: []byte(`{}`)}),
		llm.Tool(
			llm.ToolResult{CallID: "call_h1", Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: `{"temp_c":6,"wind":"strong"}`}}},
			llm.ToolResult{CallID: "call_h2", Name: "get_time", Status: llm.StatusError, Content: []llm.Part{llm.Text{Text: "the time service is unavailable"}}},
			llm.ToolResult{CallID: "call_h3", Name: "list_cities", Status: llm.StatusPartial, Content: []llm.Part{llm.Text{Text: "Beijing, Paris (the list is incomplete)"}}}),
		llm.Assistant(llm.Text{Text: "6°C and windy: wear a warm coat."}),
		llm.User("Thanks! And Paris?"),
	}
}

// repeat returns n copies of turn.
func repeat(turn Turn, n int) []Turn {
	turns := make([]Turn, n)
	for i := range turns {
		turns[i] = turn
	}
	return turns
}

// testHistory: a history the model did not write is accepted.
func testHistory(t *testing.T, h *Harness) {
	// The history holds two answers: a model that answers by position
	// looks for the third turn.
	b := h.open(t, repeat(Turn{Text: "Paris: 18°C."}, 3)...)
	resp := generate(t, b.Model, &llm.Request{Messages: history(), Tools: tools})
	checkText(t, resp.Message, "Paris: 18°C.")
	h.accepted(t, b, 1)
}

// testOptions: a request with each option set is accepted and answered.
func testOptions(t *testing.T, h *Harness) {
	temp := 0.2
	for _, tt := range []struct {
		name string
		edit func(*llm.Request)
	}{
		{"temperature", func(r *llm.Request) { r.Temperature = &temp }},
		{"zero temperature", func(r *llm.Request) { zero := 0.0; r.Temperature = &zero }},
		{"max output tokens", func(r *llm.Request) { r.MaxOutputTokens = 2048 }},
		{"named tool", func(r *llm.Request) { r.ToolChoice = llm.ToolChoice{Name: "get_weather"} }},
		{"a tool required", func(r *llm.Request) { r.ToolChoice = llm.ToolChoice{Mode: llm.ToolRequired} }},
		{"no tool", func(r *llm.Request) { r.ToolChoice = llm.ToolChoice{Mode: llm.ToolNone} }},
		{"effort", func(r *llm.Request) { r.Effort = llm.EffortLow; r.MaxOutputTokens = 8192 }},
		{"no tools", func(r *llm.Request) { r.Tools = nil }},
		{"strict tool", func(r *llm.Request) {
			r.Tools = []llm.ToolSpec{{Name: "get_time", Description: "Current local time in a time zone.", Strict: true,
				Parameters: []byte(`{"type":"object","properties":{"tz":{"type":"string"}},"required":["tz"],"additionalProperties":false}`)}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := h.open(t, Turn{Text: "ok"})
			req := ask("hi")
			tt.edit(req)
			checkText(t, generate(t, b.Model, req).Message, "ok")
			h.accepted(t, b, 1)
		})
	}
}

// testInvalidRequest: a request that Validate refuses is an error, before
// any event and without being sent; a message no provider could take is
// an error too, never a panic.
func testInvalidRequest(t *testing.T, h *Harness) {
	hot := 3.0
	for _, tt := range []struct {
		name string
		edit func(*llm.Request)
		// sent is set when the model may find the fault only by sending
		// the request: it is then judged by the server.
		sent bool
	}{
		{name: "temperature out of range", edit: func(r *llm.Request) { r.Temperature = &hot }},
		{name: "negative max output tokens", edit: func(r *llm.Request) { r.MaxOutputTokens = -1 }},
		{name: "unknown effort", edit: func(r *llm.Request) { r.Effort = "extreme" }},
		{name: "unknown tool choice", edit: func(r *llm.Request) { r.ToolChoice = llm.ToolChoice{Mode: "sometimes"} }},
		{name: "choice of an unknown tool", edit: func(r *llm.Request) { r.ToolChoice = llm.ToolChoice{Name: "get_stock_price"} }},
		{name: "tool required without tools", edit: func(r *llm.Request) { r.Tools = nil; r.ToolChoice = llm.ToolChoice{Mode: llm.ToolRequired} }},
		{name: "a nil part", sent: true, edit: func(r *llm.Request) {
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{nil}})
		}},
		{name: "a result of no call", sent: true, edit: func(r *llm.Request) {
			r.Messages = append(r.Messages, llm.Tool(llm.ToolResult{CallID: "call_none", Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "ok"}}}))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.sent {
				h.need(t, Wire)
			}
			b := h.open(t, Turn{Text: "never answered"})
			req := ask("hi")
			tt.edit(req)
			r := consume(t, b.Model.Stream(context.Background(), req), nil)
			if r.err == nil || len(r.events) > 0 {
				t.Errorf("Stream() = %s, %v; want an error and no event", describeAll(r.events), r.err)
			}
			if reqs := h.requests(b); !tt.sent && len(reqs) > 0 {
				t.Errorf("the server received %d requests, want none: a request Validate refuses is not sent", len(reqs))
			}
		})
	}
}
