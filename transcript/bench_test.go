package transcript

import (
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// benchTranscript returns n messages with one tool call per five messages
// (2,000 calls in 10,000 messages), in blocks of ten:
// user, call, result, call, result, text, user, text, user, text.
// With broken set, every 20th block loses its second result (an
// interrupted call) and its last message, and gets a user message wedged
// before its first result; it has n messages once repaired.
func benchTranscript(n int, broken bool) []llm.Message {
	msgs := make([]llm.Message, 0, n+n/100)
	input := jsontext.Value(`{"city":"Paris","unit":"c"}`)
	added := 0 // results Repair will add
	for b := 0; len(msgs)+added < n; b++ {
		id1, id2 := "call_"+strconv.Itoa(2*b), "call_"+strconv.Itoa(2*b+1)
		bad := broken && b%20 == 19
		if bad {
			added++
		}
		msgs = append(msgs, llm.User("What is the weather in Paris and in Rome?"),
			llm.Assistant(llm.Text{Text: "Checking Paris."}, llm.ToolCall{ID: id1, Name: "get_weather", Input: input}))
		if bad {
			msgs = append(msgs, llm.User("hurry up"))
		}
		msgs = append(msgs, llm.Tool(llm.ToolResult{CallID: id1, Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: `{"temp":18}`}}}),
			llm.Assistant(llm.ToolCall{ID: id2, Name: "get_weather", Input: input}))
		if !bad {
			msgs = append(msgs, llm.Tool(llm.ToolResult{CallID: id2, Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: `{"temp":21}`}}}))
		}
		msgs = append(msgs, llm.Assistant(llm.Text{Text: "Paris 18C, Rome 21C."}), llm.User("Thanks."),
			llm.Assistant(llm.Text{Text: "You're welcome."}), llm.User("And tomorrow?"))
		if !bad {
			// A broken block has one message less, so that its repair
			// (which adds the missing result) keeps the length.
			msgs = append(msgs, llm.Assistant(llm.Text{Text: "I will check."}))
		}
	}
	return msgs[:n-added]
}

var benchSizes = []int{1000, 10000, 100000}

func BenchmarkCheck(b *testing.B) {
	for _, n := range benchSizes {
		msgs := benchTranscript(n, false)
		for _, d := range Dialects() {
			b.Run("n="+strconv.Itoa(n)+"/"+string(d), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if vs := Check(msgs, d); !Accepted(vs) {
						b.Fatalf("Check = %v", vs[0])
					}
				}
			})
		}
	}
}

func BenchmarkRepair(b *testing.B) {
	for _, n := range benchSizes {
		msgs := benchTranscript(n, true)
		for _, d := range Dialects() {
			b.Run("n="+strconv.Itoa(n)+"/"+string(d), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := Repair(msgs, d, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestBenchTranscript keeps the benchmark input honest: 2,000 calls in
// 10,000 messages, accepted when intact, repairable when broken.
func TestBenchTranscript(t *testing.T) {
	msgs := benchTranscript(10000, false)
	calls := 0
	for _, m := range msgs {
		calls += len(m.ToolCalls())
	}
	if len(msgs) != 10000 || calls != 2000 {
		t.Errorf("benchTranscript(10000) = %d messages, %d calls; want 10000, 2000", len(msgs), calls)
	}
	for _, d := range Dialects() {
		if vs := Check(msgs, d); !Accepted(vs) {
			t.Errorf("Check(benchTranscript, %s) = %v, want accepted", d, ruleList(vs))
		}
		broken := benchTranscript(10000, true)
		out, changes, err := Repair(broken, d, nil)
		if err != nil || len(changes) == 0 || !Accepted(Check(out, d)) {
			t.Errorf("Repair(broken benchTranscript, %s) = %d changes, err %v", d, len(changes), err)
		}
	}
}
