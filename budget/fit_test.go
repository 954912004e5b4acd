package budget_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/benchcpu"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

var toolNames = []string{"search_orders", "get_weather", "read_file", "send_email"}

// history returns a random transcript that dialect d accepts: a system
// prompt, user turns, rounds of one to three parallel calls answered in
// one tool message or one each, results of random size in the envelope,
// answers and follow-up questions.
func history(r *rand.Rand, d transcript.Dialect, rounds int) []llm.Message {
	msgs := []llm.Message{llm.System("You are a shop assistant."), llm.User("How are my orders doing?")}
	id := 0
	for range rounds {
		var parts []llm.Part
		if r.IntN(3) == 0 {
			parts = append(parts, llm.Text{Text: "Let me look that up."})
		}
		n := 1 + r.IntN(3)
		var results []llm.ToolResult
		for range n {
			id++
			name := toolNames[r.IntN(len(toolNames))]
			cid := fmt.Sprintf("call_%d", id)
			parts = append(parts, llm.ToolCall{ID: cid, Name: name, Input: []byte(fmt.Sprintf(`{"query":"q%d","page":%d}`, id, r.IntN(9)))})
			var env toolresult.Envelope
			switch r.IntN(5) {
			case 0:
				env = toolresult.Failure(toolresult.Timeout, "the upstream did not answer within 30s")
			case 1:
				env = toolresult.Partial(name+": 2 of 3 sources answered", strings.Repeat("x", r.IntN(400)))
			default:
				env = toolresult.Success(fmt.Sprintf("%s(q%d): %d records", name, id, r.IntN(500)), strings.Repeat("data ", r.IntN(600)))
				if r.IntN(2) == 0 {
					env.Meta.Ref = fmt.Sprintf("r%d", id)
				}
			}
			results = append(results, env.Result(cid, name))
		}
		msgs = append(msgs, llm.Assistant(parts...))
		if r.IntN(2) == 0 || d == transcript.Gemini { // Gemini answers a turn in one message
			msgs = append(msgs, llm.Tool(results...))
		} else {
			for _, res := range results {
				msgs = append(msgs, llm.Tool(res))
			}
		}
		if r.IntN(3) == 0 {
			msgs = append(msgs, llm.Assistant(llm.Text{Text: "Here is what I found."}), llm.User("And then?"))
		}
	}
	return msgs
}

func clone(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = llm.Message{Role: m.Role, Parts: append([]llm.Part(nil), m.Parts...)}
	}
	return out
}

// pairs returns the call ids of msgs and the call ids their results
// answer, with the count of each.
func pairs(msgs []llm.Message) (calls, results map[string]int) {
	calls, results = map[string]int{}, map[string]int{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.ToolCall:
				calls[p.ID]++
			case llm.ToolResult:
				results[p.CallID]++
			}
		}
	}
	return calls, results
}

// TestFitProperties fits random histories into random windows, in every
// dialect, and checks what fitting promises: the result passes Check, a
// call and its result are kept or removed together, the input is not
// modified, the recent rounds are kept as they were, and the history is
// below the low watermark unless ErrDoesNotFit says otherwise.
func TestFitProperties(t *testing.T) {
	ctx := context.Background()
	for _, d := range transcript.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			var cleared, removed, unchanged int
			defer func() {
				// The random windows must exercise every path.
				if cleared == 0 || removed == 0 || unchanged == 0 {
					t.Errorf("%d histories had results cleared, %d rounds removed, %d left unchanged; want each above 0", cleared, removed, unchanged)
				}
			}()
			for seed := range uint64(150) {
				r := rand.New(rand.NewPCG(seed, uint64(len(d))))
				msgs := history(r, d, 1+r.IntN(30))
				if vs := transcript.Check(msgs, d); !transcript.Accepted(vs) {
					t.Fatalf("seed %d: the generated history is not accepted: %v", seed, vs)
				}
				before := clone(msgs)
				probe, _ := budget.NewFitter(budget.Estimator{}, budget.Limits{Window: 1 << 30, MaxOutput: 1000}, d, nil)
				total := probe.Tokens(msgs)
				reserve := 1000
				window := reserve + total*(20+r.IntN(100))/100
				store := toolresult.NewMemoryStore(0)
				f, err := budget.NewFitter(budget.Estimator{}, budget.Limits{Window: window, MaxOutput: reserve}, d, &budget.FitConfig{Store: store, KeepRounds: 1 + r.IntN(2)})
				if err != nil {
					t.Fatal(err)
				}
				out, rep, err := f.Fit(ctx, msgs)
				if err != nil && !errors.Is(err, budget.ErrDoesNotFit) {
					t.Fatalf("seed %d: Fit: %v", seed, err)
				}
				switch {
				case rep.Removed > 0:
					removed++
				case rep.Cleared > 0:
					cleared++
				default:
					unchanged++
				}
				if !reflect.DeepEqual(msgs, before) {
					t.Fatalf("seed %d: Fit modified its input", seed)
				}
				if vs := transcript.Check(out, d); !transcript.Accepted(vs) {
					t.Fatalf("seed %d: the fitted history is rejected: %v", seed, vs)
				}
				calls, results := pairs(out)
				for id, n := range calls {
					if n != 1 || results[id] != 1 {
						t.Fatalf("seed %d: call %s appears %d times with %d results", seed, id, n, results[id])
					}
				}
				for id := range results {
					if calls[id] != 1 {
						t.Fatalf("seed %d: result %s kept without its call", seed, id)
					}
				}
				if got := f.Tokens(out); got != rep.After {
					t.Fatalf("seed %d: report says %d tokens after, the history counts %d", seed, rep.After, got)
				}
				switch {
				case rep.Before <= rep.High:
					if len(out) != len(msgs) || rep.Cleared+rep.Removed > 0 {
						t.Fatalf("seed %d: below the high watermark (%d ≤ %d) but Fit changed the history", seed, rep.Before, rep.High)
					}
				case err == nil && rep.After > rep.Low:
					t.Fatalf("seed %d: %d tokens after fitting, above the low watermark %d, without ErrDoesNotFit", seed, rep.After, rep.Low)
				}
				if out[0].Role != llm.RoleSystem || out[0].Text() != msgs[0].Text() {
					t.Fatalf("seed %d: the system prompt was not kept first", seed)
				}
				// The last message is never touched.
				if !reflect.DeepEqual(out[len(out)-1], msgs[len(msgs)-1]) {
					t.Fatalf("seed %d: the last message changed", seed)
				}
				// Fitting a fitted history that fits changes nothing.
				if err == nil {
					again, _, err := f.Fit(ctx, out)
					if err != nil || len(again) != len(out) {
						t.Fatalf("seed %d: refitting changed the history (%v)", seed, err)
					}
				}
			}
		})
	}
}

func TestFitClearsThenSummarizes(t *testing.T) {
	ctx := context.Background()
	big := toolresult.Success("search_orders(q=all): 30,000 orders (showing 50 of 30,000 records)", strings.Repeat("order ", 2000))
	big.Meta.Ref = "r7"
	msgs := []llm.Message{
		llm.System("You are a shop assistant."),
		llm.User("List my orders, then the weather in Paris."),
		llm.Assistant(llm.ToolCall{ID: "c1", Name: "search_orders", Input: []byte(`{"q":"all","limit":50}`)}),
		llm.Tool(big.Result("c1", "search_orders")),
		llm.Assistant(llm.ToolCall{ID: "c2", Name: "get_weather", Input: []byte(`{"city":"Paris"}`)}),
		llm.Tool(toolresult.Failure(toolresult.Timeout, "get_weather(city=Paris) failed: timeout: the weather API did not answer within 30s").Result("c2", "get_weather")),
		llm.Assistant(llm.ToolCall{ID: "c3", Name: "get_weather", Input: []byte(`{"city":"Paris"}`)}),
		llm.Tool(toolresult.Success("get_weather(city=Paris): 18°C, sunny", map[string]any{"temp": 18}).Result("c3", "get_weather")),
	}
	f, err := budget.NewFitter(budget.Estimator{}, budget.Limits{Window: 2600, MaxOutput: 500}, transcript.Anthropic, &budget.FitConfig{KeepRounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := f.Fit(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cleared != 1 || rep.Removed != 0 || len(out) != len(msgs) {
		t.Fatalf("Fit = %+v, want the oldest result cleared (enough to get below the low watermark) and nothing removed", rep)
	}
	cleared := out[3].Parts[0].(llm.ToolResult).Content[0].(llm.Text).Text
	want := `{"status":"success","summary":"search_orders(q=all): 30,000 orders (showing 50 of 30,000 records)","suggestion":"You could call read_result with ref \"r7\" to reload it.","meta":{"truncated":true,"ref":"r7","level":"cleared"}}`
	if cleared != want {
		t.Errorf("cleared result =\n%s\nwant\n%s", cleared, want)
	}

	// A smaller window: the two old rounds become one summary.
	f, _ = budget.NewFitter(budget.Estimator{}, budget.Limits{Window: 720, MaxOutput: 500}, transcript.Anthropic, &budget.FitConfig{KeepRounds: 1, High: 1, Low: 1})
	out, rep, err = f.Fit(ctx, msgs)
	if err != nil {
		t.Fatalf("%v %+v", err, rep)
	}
	if rep.Removed != 2 || rep.Summaries != 1 || len(out) != 4 {
		t.Fatalf("Fit = %+v with %d messages, want 2 rounds in 1 summary merged into the user message, 4 messages", rep, len(out))
	}
	summary := out[1].Text()
	wantSummary := "List my orders, then the weather in Paris.[Earlier tool calls were removed to fit the context window. Summary:]\n" +
		"2 tool call(s):\n" +
		"- search_orders(q=all, limit=50) → success: search_orders(q=all): 30,000 orders (showing 50 of 30,000 records) [ref r7]\n" +
		"- get_weather(city=Paris) → error: get_weather(city=Paris) failed: timeout: the weather API did not answer within 30s\n" +
		"Still open: get_weather(city=Paris) (error: get_weather(city=Paris) failed: timeout: the weather API did not answer within 30s)."
	if summary != wantSummary {
		t.Errorf("summary =\n%s\nwant\n%s", summary, wantSummary)
	}
}

type fixedSummarizer string

func (s fixedSummarizer) Summarize(ctx context.Context, rounds []llm.Message) (string, error) {
	return string(s), nil
}

func TestFitSummarizerAndErrors(t *testing.T) {
	msgs := history(rand.New(rand.NewPCG(1, 2)), transcript.OpenAIChat, 20)
	f, _ := budget.NewFitter(budget.Estimator{}, budget.Limits{Window: 2000, MaxOutput: 500}, transcript.OpenAIChat, &budget.FitConfig{Summarizer: fixedSummarizer("the model's summary")})
	out, _, err := f.Fit(context.Background(), msgs)
	if err != nil && !errors.Is(err, budget.ErrDoesNotFit) {
		t.Fatal(err)
	}
	found := false
	for _, m := range out {
		if strings.Contains(m.Text(), "the model's summary") {
			found = true
		}
	}
	if !found {
		t.Error("Fit with a Summarizer did not use its summary")
	}
	for _, tc := range []struct {
		l   budget.Limits
		d   transcript.Dialect
		cfg *budget.FitConfig
	}{
		{budget.Limits{}, transcript.Anthropic, nil},
		{budget.Limits{Window: 100, MaxOutput: 10}, "bedrock", nil},
		{budget.Limits{Window: 100, MaxOutput: 10}, transcript.Anthropic, &budget.FitConfig{High: 0.5, Low: 0.8}},
	} {
		if _, err := budget.NewFitter(budget.Estimator{}, tc.l, tc.d, tc.cfg); err == nil {
			t.Errorf("NewFitter(%+v, %s, %+v) succeeded, want an error", tc.l, tc.d, tc.cfg)
		}
	}
}

// BenchmarkFit fits histories of 1k, 10k and 100k messages (random
// rounds of one to three calls, results of up to 3 KB) into a window of
// half their size, with the estimator.
func BenchmarkFit(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk-messages", n/1000), func(b *testing.B) {
			// Built inside the sub-benchmark, so that nothing runs after
			// the one selected (callgrind counts it as the code measured).
			r := rand.New(rand.NewPCG(1, 2))
			var msgs []llm.Message
			for len(msgs) < n {
				msgs = append(msgs, history(r, transcript.OpenAIChat, 50)[1:]...)
			}
			msgs = append([]llm.Message{llm.System("You are a shop assistant.")}, msgs[:n]...)
			for msgs[len(msgs)-1].Role == llm.RoleAssistant && len(msgs[len(msgs)-1].ToolCalls()) > 0 {
				msgs = msgs[:len(msgs)-1] // end on a complete round
			}
			probe, _ := budget.NewFitter(budget.Estimator{}, budget.Limits{Window: 1 << 40, MaxOutput: 1000}, transcript.OpenAIChat, nil)
			total := probe.Tokens(msgs)
			f, err := budget.NewFitter(budget.Estimator{}, budget.Limits{Window: total / 2, MaxOutput: 1000}, transcript.OpenAIChat, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			benchcpu.Loop(b, 0, func() {
				out, rep, err := f.Fit(ctx, msgs)
				if err != nil || rep.Cleared == 0 || len(out) == 0 {
					b.Fatalf("Fit: %v %+v", err, rep)
				}
			})
		})
	}
}
