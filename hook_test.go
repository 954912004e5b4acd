package toolwire_test

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// recordHook keeps a line for each event it is told.
type recordHook struct {
	mu     sync.Mutex
	events []string
	runs   map[string]bool
}

func (h *recordHook) Observe(ctx context.Context, e toolwire.Event) {
	line := fmt.Sprintf("%T", e)
	switch e := e.(type) {
	case toolwire.ToolStartEvent:
		line += " " + e.Call.ID + " " + e.Call.Name + " " + string(e.Call.Input)
	case toolwire.ToolDoneEvent:
		line += " " + e.Call.ID + " " + string(e.Result.Status)
		if e.ErrorType != "" {
			line += " " + string(e.ErrorType)
		}
	case toolwire.ResultEvent:
		line += " " + e.Result.CallID + " " + string(e.Result.Status) + " " + string(e.ErrorType)
	case toolwire.RunStartEvent:
		line += fmt.Sprintf(" turn %d, model %s", e.Turn, e.Model)
	case toolwire.RunEndEvent:
		line += fmt.Sprintf(" turn %d, result %v, err %v", e.Turn, e.Result != nil, e.Err)
	case toolwire.ModelCallEvent:
		line += fmt.Sprintf(" turn %d, %d messages", e.Turn, len(e.Request.Messages))
	case toolwire.ModelDoneEvent:
		line += fmt.Sprintf(" turn %d, failure %v", e.Turn, e.Failure)
	case toolwire.InterruptEvent:
		line += " " + string(e.Reason)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, line)
	if h.runs == nil {
		h.runs = map[string]bool{}
	}
	h.runs[toolwire.RunID(ctx)] = true
}

// TestHooks: two hooks at once are told the same events in the same
// order: every model call before and after, each tool call as it starts
// (with its id, name and arguments) and ends, the turns, and a pause.
func TestHooks(t *testing.T) {
	srv := llmtest.NewServer(t, calls(paris), calls(call("book_trip", `{"city":"Paris"}`)))
	var one, two recordHook
	var booked atomic.Int32
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(weatherTool(), bookTool(&booked)),
		Hooks: []toolwire.Hook{&one, &two}})
	res, err := a.Run(context.Background(), "Book Paris if it is sunny.")
	if res == nil || res.Stop != toolwire.Paused {
		t.Fatalf("Run = %+v, %v; want paused", res, err)
	}
	if !slices.Equal(one.events, two.events) {
		t.Errorf("two hooks saw different events:\n%v\n%v", one.events, two.events)
	}
	if len(one.events) < 2 || one.events[0] != "toolwire.RunStartEvent turn 0, model gpt-4.1" ||
		one.events[len(one.events)-1] != "toolwire.RunEndEvent turn 2, result true, err toolwire: paused in turn 2: book_trip (call_2_0) wait(s) for a person's approval" {
		t.Errorf("a drive is not bracketed by RunStartEvent and RunEndEvent:\n%v", one.events)
	}
	for _, want := range []string{
		"toolwire.TurnStartEvent",
		"toolwire.ModelCallEvent turn 1, 1 messages",
		"toolwire.ModelDoneEvent turn 1, failure <nil>",
		"toolwire.ToolStartEvent call_1_0 get_weather {\"city\":\"Paris\"}",
		"toolwire.ToolDoneEvent call_1_0 success",
		"toolwire.TurnEvent",
		"toolwire.InterruptEvent paused",
		"toolwire.DoneEvent",
	} {
		if !slices.Contains(one.events, want) {
			t.Errorf("the hook was not told %q; it was told:\n%v", want, one.events)
		}
	}
	order := func(prefix string) int {
		return slices.IndexFunc(one.events, func(s string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix })
	}
	if !(order("toolwire.ModelCallEvent") < order("toolwire.ModelDoneEvent") && order("toolwire.ModelDoneEvent") < order("toolwire.ToolStartEvent") &&
		order("toolwire.ToolStartEvent") < order("toolwire.ToolDoneEvent") && order("toolwire.ToolDoneEvent") < order("toolwire.InterruptEvent")) {
		t.Errorf("events out of order:\n%v", one.events)
	}
	if len(one.runs) != 1 || one.runs[""] {
		t.Errorf("RunID in the hook's context = %v, want the run's id", one.runs)
	}
}

// TestHookRunBounds: a drive the caller stops early still ends with one
// RunEndEvent, without a result; a tool's failed attempt names its error
// type.
func TestHookRunBounds(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("get_weather", `{"town":"Paris"}`)), llmtest.Turn{Text: "Done."})
	var h recordHook
	a, _ := newAgent(t, dialects(true)[0].new(t, srv), &toolwire.Config{Tools: registry(weatherTool()), Hooks: []toolwire.Hook{&h}})
	for ev, err := range a.Stream(context.Background(), "Weather?") {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(toolwire.ResultEvent); ok {
			break
		}
	}
	starts, ends := 0, 0
	for _, e := range h.events {
		starts += strings.Count(e, "RunStartEvent")
		ends += strings.Count(e, "RunEndEvent")
	}
	if starts != 1 || ends != 1 || h.events[len(h.events)-1] != "toolwire.RunEndEvent turn 1, result false, err <nil>" {
		t.Errorf("a drive stopped early is told %d starts and %d ends, last %q; want one each, last without a result:\n%v",
			starts, ends, h.events[len(h.events)-1], h.events)
	}
	if !slices.Contains(h.events, "toolwire.ResultEvent call_1_0 error invalid_arguments") {
		t.Errorf("the failed call's error type is not told:\n%v", h.events)
	}
}

// TestNoHookNoEvents: with no hook, Perform builds no event for hooks: a
// model call allocates as much as it does with a hook that is never
// installed — and less than with one.
func TestNoHookNoEvents(t *testing.T) {
	allocs := func(hooks []toolwire.Hook) float64 {
		a, err := toolwire.New(textModel{}, &toolwire.Config{Hooks: hooks})
		must(t, err)
		s := a.Start("Hello?")
		return testing.AllocsPerRun(50, func() { a.Perform(context.Background(), s) })
	}
	none := allocs(nil)
	one := allocs([]toolwire.Hook{toolwire.HookFunc(func(context.Context, toolwire.Event) {})})
	if !(none < one) {
		t.Errorf("a model call allocates %v with no hook and %v with one; want fewer with none", none, one)
	}
}

// textModel answers "Hi." at once, without I/O.
type textModel struct{}

func (textModel) Stream(context.Context, *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		_ = yield(llm.TextDelta{Text: "Hi."}, nil) && yield(llm.Finish{Reason: llm.FinishStop}, nil)
	}
}
func (textModel) Dialect() string { return "" }
