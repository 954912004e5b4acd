package toolwire_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/tool"
)

// TestPerformStepReplay drives a run through the exported Perform and
// Step only, for every dialect: parallel calls, a pause for approval
// with one call approved and one rejected, a model error and a retry.
// Its inputs go through JSON; replayed through Step alone from the first
// state's JSON, they give the same final state and the same requests,
// byte for byte.
func TestPerformStepReplay(t *testing.T) {
	for _, stream := range []bool{true, false} {
		for _, d := range dialects(stream) {
			t.Run(d.name+streamName(stream), func(t *testing.T) {
				srv := llmtest.NewServer(t,
					calls(paris, call("get_weather", `{"city":"北京"}`)),
					calls(call("book_trip", `{"city":"Paris"}`), call("book_trip", `{"city":"Rome"}`)),
					llmtest.Turn{Error: &llmtest.Error{Kind: llm.Auth}},
					llmtest.Turn{Text: "Booked Paris; Rome was refused."})
				var booked atomic.Int32
				a, _ := newAgent(t, d.new(t, srv), &toolwire.Config{Tools: registry(weatherTool(), bookTool(&booked))})
				ctx := context.Background()

				s := a.Start("Weather in Paris and 北京, then book Paris and Rome.")
				first, err := json.Marshal(s)
				must(t, err)
				var inputs [][]byte
				var requests []string
				retried := false
				for step := 0; s.Next.Kind != toolwire.Done || !retried; step++ {
					if step > 20 {
						t.Fatalf("no end after 20 steps: %+v", s.Next)
					}
					var in toolwire.Input
					switch s.Next.Kind {
					case toolwire.AwaitApproval:
						var ids []string
						for _, pc := range s.Next.Calls {
							if pc.Result == nil {
								ids = append(ids, pc.Call.ID)
							}
						}
						if len(ids) != 2 {
							t.Fatalf("waiting calls = %v, want the two bookings", ids)
						}
						in = toolwire.Decisions{Calls: map[string]toolwire.Decision{ids[0]: toolwire.Approve(), ids[1]: toolwire.Reject("not Rome")}}
					case toolwire.Done:
						if s.Next.Stop.Reason != toolwire.ModelError {
							t.Fatalf("the run ended with %s before the retry, want model_error", s.Next.Stop.Reason)
						}
						in, retried = toolwire.Retry{}, true
					default:
						if s.Next.Kind == toolwire.CallModel {
							requests = append(requests, requestJSON(t, a.Request(s)))
						}
						in = a.Perform(ctx, s)
					}
					b, err := toolwire.MarshalInput(in)
					must(t, err)
					inputs = append(inputs, b)
					s, _, err = a.Step(s, in)
					must(t, err)
				}
				if s.Next.Stop.Reason != toolwire.Answered || booked.Load() != 1 {
					t.Fatalf("final stop %s with %d bookings, want answered with one", s.Next.Stop.Reason, booked.Load())
				}
				final, err := json.Marshal(s)
				must(t, err)

				// Replay through Step alone.
				r := new(toolwire.State)
				must(t, json.Unmarshal(first, r))
				var again []string
				for i, b := range inputs {
					in, err := toolwire.ParseInput(b)
					if err != nil {
						t.Fatalf("input %d: %v\n%s", i, err, b)
					}
					if back, err := toolwire.MarshalInput(in); err != nil || string(back) != string(b) {
						t.Fatalf("input %d does not round-trip:\n%s\n%s (%v)", i, b, back, err)
					}
					if r.Next.Kind == toolwire.CallModel {
						again = append(again, requestJSON(t, a.Request(r)))
					}
					r, _, err = a.Step(r, in)
					if err != nil {
						t.Fatalf("replaying input %d: %v", i, err)
					}
				}
				replayed, err := json.Marshal(r)
				must(t, err)
				if string(replayed) != string(final) {
					t.Errorf("replayed final state:\n%s\nwant:\n%s", replayed, final)
				}
				if !slices.Equal(again, requests) {
					t.Errorf("replayed requests differ:\n%s\nwant:\n%s", strings.Join(again, "\n"), strings.Join(requests, "\n"))
				}
				if len(requests) != 4 {
					t.Errorf("%d model calls, want 4 (two turns of calls, the error, the retry)", len(requests))
				}
			})
		}
	}
}

// requestJSON encodes a request's messages, tools and options.
func requestJSON(t *testing.T, req *llm.Request) string {
	t.Helper()
	msgs, err := llm.Conversation{Messages: req.Messages}.MarshalJSON()
	must(t, err)
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	return string(msgs) + " tools=" + strings.Join(names, ",")
}

// TestClearedResultIsReadable: a result shown whole, then cleared by
// fitting, gets a ref derived from the run; Perform keeps its content
// before the call, and read_result reads it.
func TestClearedResultIsReadable(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("list_items", `{"page":1}`)), calls(call("list_items", `{"page":2}`)),
		calls(call("list_items", `{"page":3}`)), llmtest.Turn{Error: &llmtest.Error{Kind: llm.ContextLength}})
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(pageTool())})
	ctx := context.Background()
	s := a.Start("List every item.")
	ref := ""
	for step := 0; ref == ""; step++ {
		if step > 20 || s.Next.Kind == toolwire.Done {
			t.Fatalf("no result was cleared: %+v", s.Next)
		}
		var err error
		s, _, err = a.Step(s, a.Perform(ctx, s))
		must(t, err)
		if len(s.Next.Offload) > 0 {
			ref = s.Next.Offload[0].Ref
		}
	}
	if !regexp.MustCompile(`^r-[a-z2-7]{14}$`).MatchString(ref) || !strings.Contains(requestJSON(t, a.Request(s)), ref) {
		t.Fatalf("cleared as %q, want a derived ref that the request names", ref)
	}
	srv.Add(calls(call("read_result", `{"ref":"`+ref+`"}`)), llmtest.Turn{Text: "Six items."})
	res, err := a.RunState(ctx, s)
	must(t, err)
	if got := lastResult(t, res.State); got.Status != llm.StatusSuccess || !strings.Contains(got.Text(), `item-1`) {
		t.Errorf("read_result(%s) = %s %s, want the cleared result", ref, got.Status, oneLine(got.Text(), 300))
	}
}

// countingCounter counts how often each text is counted.
type countingCounter struct {
	c  budget.Counter
	mu sync.Mutex
	n  map[string]int
}

func (c *countingCounter) Count(s string) int {
	c.mu.Lock()
	c.n[s]++
	c.mu.Unlock()
	return c.c.Count(s)
}

// TestCountedOnce: over a 50-turn run, each text of the history is
// counted once (the shaper counts each result it renders, the run's memo
// everything else), however often fitting, the room and the turn reports
// measure the history.
func TestCountedOnce(t *testing.T) {
	srv := llmtest.NewServer(t, stepTurns(50)...)
	ctr := &countingCounter{c: budget.Estimator{}, n: map[string]int{}}
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(stepTool()), Counter: ctr, MaxTurns: 60})
	res, err := a.Run(context.Background(), "Run a hundred steps.")
	must(t, err)
	if res.Turns != 50 {
		t.Fatalf("%d turns, want 50", res.Turns)
	}
	for s, n := range ctr.n {
		if n > 1 {
			t.Errorf("counted %d times: %q", n, oneLine(s, 80))
		}
	}
}

// TestEncodedOnce: over a 50-turn run, each dialect's client encodes each
// message of the history once; every later request sends the cached
// bytes again.
func TestEncodedOnce(t *testing.T) {
	for _, d := range dialects(false) {
		t.Run(d.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, stepTurns(50)...)
			a, _ := newAgent(t, d.new(t, srv), &toolwire.Config{Tools: registry(stepTool()), MaxTurns: 60})
			s := a.Start("Run a hundred steps.")
			encoded, reused, sent, last := 0, 0, len(a.Request(s).Messages), 0
			for ev, err := range a.Continue(context.Background(), s) {
				if err != nil {
					t.Fatal(err)
				}
				switch ev := ev.(type) {
				case toolwire.TurnEvent:
					encoded += ev.Report.Encoded
					reused += ev.Report.Reused
				case toolwire.StepEvent:
					if ev.State.Next.Kind == toolwire.CallModel {
						last = len(a.Request(ev.State).Messages)
						sent += last
					}
				case toolwire.DoneEvent:
					if ev.Result.Stop != toolwire.Answered || ev.Result.Turns != 50 {
						t.Fatalf("the run ended %s after %d turns, want answered after 50", ev.Result.Stop, ev.Result.Turns)
					}
				}
			}
			if encoded != last || encoded+reused != sent {
				t.Errorf("encoded %d and reused %d over 50 turns; want %d encoded (each message of the last request once) and %d sent in all", encoded, reused, last, sent)
			}
		})
	}
}

// stepTool returns a tool whose every call has a result of its own,
// longer than the memo's threshold.
func stepTool() tool.Tool {
	type in struct {
		N int `json:"n"`
	}
	type out struct {
		N     int    `json:"n"`
		Notes string `json:"notes"`
	}
	note := strings.Repeat("a long note that makes the result longer than the memo's threshold ", 5)
	return tool.MustFunc("step", "Runs step n.", func(ctx context.Context, a in) (out, error) {
		return out{N: a.N, Notes: note + strconv.Itoa(a.N)}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
}

// stepTurns scripts n turns: n-1 of two step calls each, then an answer.
func stepTurns(n int) []llmtest.Turn {
	var turns []llmtest.Turn
	for i := range n - 1 {
		turns = append(turns, llmtest.Turn{Text: "Step " + strconv.Itoa(i) + ".", Calls: []llmtest.Call{
			call("step", `{"n":`+strconv.Itoa(2*i)+`}`), call("step", `{"n":`+strconv.Itoa(2*i+1)+`}`)}})
	}
	return append(turns, llmtest.Turn{Text: "Done."})
}
