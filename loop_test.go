package toolwire_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/orders"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// A loopCase is one scripted conversation, run against every dialect it
// applies to, streamed and whole.
type loopCase struct {
	name     string
	only     []string // dialects; nil for all
	stream   int      // 0 both, 1 streamed only, 2 whole only
	turns    []llmtest.Turn
	cfg      func(t *testing.T) *toolwire.Config
	question string
	stop     toolwire.StopReason
	check    func(t *testing.T, res *toolwire.Result, srv *llmtest.Server)
}

func weatherCfg(t *testing.T) *toolwire.Config {
	return &toolwire.Config{System: "Be brief.", Tools: registry(weatherTool())}
}

func call(name, args string) llmtest.Call { return llmtest.Call{Name: name, Args: args} }

func calls(cs ...llmtest.Call) llmtest.Turn { return llmtest.Turn{Calls: cs} }

// latchTools returns a tool whose call n waits until call n+1 has
// finished: eight parallel calls finish in reverse order, and only if
// they all run at once.
func latchTools(t *testing.T) *toolwire.Config {
	var done [9]chan struct{}
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[8])
	type in struct {
		N int `json:"n" minimum:"0" maximum:"7"`
	}
	type out struct {
		N     int `json:"n"`
		Order int `json:"order"`
	}
	var finished atomic.Int32
	step := tool.MustFunc("step", "Runs step n.", func(ctx context.Context, a in) (out, error) {
		select {
		case <-done[a.N+1]:
		case <-ctx.Done():
			return out{}, ctx.Err()
		}
		o := out{N: a.N, Order: int(finished.Add(1))}
		close(done[a.N])
		return o, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	return &toolwire.Config{Tools: registry(step)}
}

func hangTool() tool.Tool {
	type in struct {
		Report string `json:"report"`
	}
	return tool.MustFunc("build_report", "Builds a report.", func(ctx context.Context, a in) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, &tool.FuncOptions{Idempotency: tool.Level2, Timeout: 20 * time.Millisecond})
}

func ordersTool() tool.Tool {
	data := orders.Generate(30000, 1)
	type in struct {
		Status string `json:"status,omitempty"`
	}
	return tool.MustFunc("search_orders", "Searches orders.", func(ctx context.Context, a in) (jsontext.Value, error) {
		return data, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
}

func pageTool() tool.Tool {
	type in struct {
		Page int `json:"page" minimum:"1"`
	}
	type out struct {
		Page  int      `json:"page"`
		Items []string `json:"items"`
	}
	return tool.MustFunc("list_items", "Lists a page of items.", func(ctx context.Context, a in) (out, error) {
		return out{Page: a.Page, Items: []string{"item-" + strconv.Itoa(a.Page*2-1), "item-" + strconv.Itoa(a.Page*2)}}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
}

var paris = call("get_weather", `{"city":"Paris"}`)

var loopCases = []loopCase{
	{name: "parallel8", question: "Run the eight steps.", cfg: latchTools,
		turns: []llmtest.Turn{
			calls(call("step", `{"n":0}`), call("step", `{"n":1}`), call("step", `{"n":2}`), call("step", `{"n":3}`),
				call("step", `{"n":4}`), call("step", `{"n":5}`), call("step", `{"n":6}`), call("step", `{"n":7}`)),
			{Text: "All eight steps ran."}},
		stop: toolwire.Answered,
		check: func(t *testing.T, res *toolwire.Result, srv *llmtest.Server) {
			// Results in call order, though they finished in reverse.
			tm := res.State.Messages[len(res.State.Messages)-2]
			for i, r := range tm.ToolResults() {
				text := r.Content[0].(llm.Text).Text
				if want := `"data":{"n":` + strconv.Itoa(i) + `,"order":` + strconv.Itoa(8-i) + `}`; !strings.Contains(text, want) {
					t.Errorf("result %d = %s, want it to hold %s", i, text, want)
				}
			}
		}},
	{name: "bad-argument", question: "Weather in Paris?", cfg: weatherCfg,
		turns: []llmtest.Turn{calls(call("get_weather", `{"city":"","unit":"C"}`)), calls(paris), {Text: "18°C."}},
		stop:  toolwire.Answered},
	{name: "unknown-tool", question: "Weather in Paris?", cfg: weatherCfg,
		turns: []llmtest.Turn{calls(call("get_wether", `{"city":"Paris"}`)), calls(paris), {Text: "18°C."}},
		stop:  toolwire.Answered},
	{name: "timeout", question: "Build the report.",
		cfg:   func(t *testing.T) *toolwire.Config { return &toolwire.Config{Tools: registry(hangTool())} },
		turns: []llmtest.Turn{calls(call("build_report", `{"report":"q3"}`)), {Text: "The report timed out."}},
		stop:  toolwire.Answered},
	{name: "large-result", question: "How many orders are refunded?",
		// Numbered refs: the scripted read_result names the first, r1.
		cfg: func(t *testing.T) *toolwire.Config {
			return &toolwire.Config{Tools: registry(ordersTool()), Store: toolresult.NewMemoryStore(0).NumberRefs()}
		},
		turns: []llmtest.Turn{calls(call("search_orders", `{}`)),
			calls(call("read_result", `{"ref":"r1","offset":5,"limit":3,"filter":{"status":"refunded"}}`)),
			{Text: "Here are three refunded orders."}},
		stop: toolwire.Answered,
		check: func(t *testing.T, res *toolwire.Result, srv *llmtest.Server) {
			for i, req := range srv.Requests() {
				if len(req.Body) > 64<<10 {
					t.Errorf("request %d is %d bytes: the 3 MB result was not shaped", i+1, len(req.Body))
				}
			}
		}},
	{name: "max-turns", question: "List every item.",
		cfg: func(t *testing.T) *toolwire.Config {
			return &toolwire.Config{Tools: registry(pageTool()), MaxTurns: 3}
		},
		turns: []llmtest.Turn{calls(call("list_items", `{"page":1}`)), calls(call("list_items", `{"page":2}`)), calls(call("list_items", `{"page":3}`))},
		stop:  toolwire.MaxTurns},
	{name: "repeating", question: "Weather in Paris?", cfg: weatherCfg,
		turns: []llmtest.Turn{calls(paris), calls(paris), calls(paris)},
		stop:  toolwire.RepeatedCalls},
	{name: "failing-tool", question: "Weather in Atlantis?", cfg: weatherCfg,
		turns: []llmtest.Turn{calls(call("get_weather", `{"city":"Atlantis"}`)), calls(call("get_weather", `{"city":"Atlantis City"}`)), {Text: "No station there."}},
		stop:  toolwire.Answered},
	{name: "split-interleaved", question: "Weather in Paris and 北京?", cfg: weatherCfg, stream: 1,
		turns: []llmtest.Turn{{Calls: []llmtest.Call{paris, call("get_weather", `{"city":"北京"}`)}, Chunk: 1, Interleave: true}, {Text: "Mild and cold.", Chunk: 1}},
		stop:  toolwire.Answered},
	{name: "index-zero-no-ids", question: "Weather in Paris and 北京?", cfg: weatherCfg, only: []string{"chat"},
		turns: []llmtest.Turn{{Calls: []llmtest.Call{paris, call("get_weather", `{"city":"北京"}`)}, Misbehave: llmtest.IndexZero | llmtest.NoCallIDs}, {Text: "Mild and cold."}},
		stop:  toolwire.Answered},
	{name: "args-as-object", question: "Weather in Paris?", cfg: weatherCfg, only: []string{"chat"},
		turns: []llmtest.Turn{{Calls: []llmtest.Call{paris}, Misbehave: llmtest.ArgsAsObject}, {Text: "Mild."}},
		stop:  toolwire.Answered},
	{name: "duplicate-ids", question: "Weather in Paris and 北京?", cfg: weatherCfg, only: []string{"chat"},
		turns: []llmtest.Turn{{Calls: []llmtest.Call{paris, call("get_weather", `{"city":"北京"}`)}, Misbehave: llmtest.DuplicateIDs}, {Text: "Mild and cold."}},
		stop:  toolwire.Answered},
	{name: "empty-then-answer", question: "Weather in Paris?", cfg: weatherCfg,
		turns: []llmtest.Turn{calls(paris), {Text: "x", Misbehave: llmtest.EmptyMessage}, {Text: "18°C."}},
		stop:  toolwire.Answered},
	{name: "empty-twice", question: "Weather in Paris?", cfg: weatherCfg,
		turns: []llmtest.Turn{{Text: "x", Misbehave: llmtest.EmptyMessage}, {Text: "x", Misbehave: llmtest.EmptyMessage}},
		stop:  toolwire.EmptyAnswer},
	{name: "length-mid-call", question: "Weather in Paris and 北京?", cfg: weatherCfg,
		turns: []llmtest.Turn{{Calls: []llmtest.Call{paris, call("get_weather", `{"city":"北京"}`)}, Misbehave: llmtest.LengthMidCall}, {Text: "Mild; 北京 again later."}},
		stop:  toolwire.Answered},
	{name: "truncated-stream", question: "Weather in Paris?", cfg: weatherCfg, stream: 1,
		turns: []llmtest.Turn{calls(paris), {Text: "It is mild in Paris today, eighteen degrees.", Misbehave: llmtest.Truncate}},
		stop:  toolwire.ModelError,
		check: func(t *testing.T, res *toolwire.Result, srv *llmtest.Server) {
			if !strings.Contains(res.Message, "transport") && !strings.Contains(res.Message, "stream") {
				t.Errorf("message %q does not say the stream broke off", res.Message)
			}
		}},
	{name: "rate-limited-then-answer", question: "Weather in Paris?", cfg: weatherCfg,
		turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}}, calls(paris), {Text: "18°C."}},
		stop:  toolwire.Answered},
	{name: "rate-limited-for-good", question: "Weather in Paris?", cfg: weatherCfg,
		turns: []llmtest.Turn{
			{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}},
			{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}},
			{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}}},
		stop: toolwire.ModelError,
		check: func(t *testing.T, res *toolwire.Result, srv *llmtest.Server) {
			if !strings.Contains(res.Message, "rate-limited") {
				t.Errorf("message %q does not say the provider rate-limited the run", res.Message)
			}
		}},
	{name: "context-length-then-fit", question: "List every item.",
		cfg: func(t *testing.T) *toolwire.Config {
			return &toolwire.Config{Tools: registry(pageTool())}
		},
		turns: []llmtest.Turn{calls(call("list_items", `{"page":1}`)), calls(call("list_items", `{"page":2}`)), calls(call("list_items", `{"page":3}`)),
			{Error: &llmtest.Error{Kind: llm.ContextLength}}, {Text: "Six items."}},
		stop: toolwire.Answered,
		check: func(t *testing.T, res *toolwire.Result, srv *llmtest.Server) {
			if res.State.Fits != 1 {
				t.Errorf("Fits = %d, want 1 (one fit after the context-length error)", res.State.Fits)
			}
		}},
}

func TestLoop(t *testing.T) {
	for _, tc := range loopCases {
		for _, stream := range []bool{true, false} {
			if (tc.stream == 1 && !stream) || (tc.stream == 2 && stream) {
				continue
			}
			for _, d := range dialects(stream) {
				if tc.only != nil && !contains(tc.only, d.name) {
					continue
				}
				t.Run(tc.name+"/"+d.name+streamName(stream), func(t *testing.T) {
					srv := llmtest.NewServer(t, tc.turns...)
					a, _ := newAgent(t, d.new(t, srv), tc.cfg(t))
					res, err := a.Run(context.Background(), tc.question)
					if tc.stop == toolwire.Answered {
						if err != nil {
							t.Fatalf("Run: %v", err)
						}
					} else if !errors.Is(err, tc.stop) {
						t.Fatalf("Run error = %v, want %s", err, string(tc.stop))
					}
					if res == nil || res.Stop != tc.stop {
						t.Fatalf("Run result = %+v, want stop %s", res, tc.stop)
					}
					if srv.Remaining() != 0 {
						t.Errorf("%d scripted turns were not used", srv.Remaining())
					}
					checkState(t, res.State)
					if tc.check != nil {
						tc.check(t, res, srv)
					}
					name := tc.name + "-" + d.name
					if tc.stream == 0 && !stream {
						name += "-whole"
					}
					checkGolden(t, name, srv, res)
				})
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// checkState holds a final state to its invariants: it round-trips
// through JSON, and every call in its history is answered.
func checkState(t *testing.T, s *toolwire.State) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("marshal state: %v", err)
	}
	var back toolwire.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal state: %v\n%s", err, b)
	}
	b2, err := json.Marshal(&back)
	if err != nil || string(b2) != string(b) {
		t.Errorf("state does not round-trip:\n%s\n%s", b, b2)
	}
	open := map[string]bool{}
	for _, m := range s.Messages {
		for _, c := range m.ToolCalls() {
			open[c.ID] = true
		}
		for _, r := range m.ToolResults() {
			delete(open, r.CallID)
		}
	}
	if len(open) > 0 && s.Next.Kind != toolwire.RunTools && s.Next.Kind != toolwire.AwaitApproval {
		t.Errorf("calls without results in a %s state: %v", s.Next.Kind, open)
	}
}
