package llm

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// splitArgs cuts s into n-byte fragments.
func splitArgs(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func TestAccumulatorOpenAIParallel(t *testing.T) {
	// Shape of OpenAI Chat Completions streaming: the first chunk of an
	// index carries id and name, later ones only argument fragments.
	var a Accumulator
	a.Add(TextDelta{Text: "Checking "})
	a.Add(TextDelta{Text: "both."})
	a.Add(ToolCallDelta{Index: 0, ID: "call_JMW", Name: "GetWeatherArgs"})
	for _, f := range splitArgs(`{"city": "Edinburgh", "country": "GB", "units": "c"}`, 4) {
		a.Add(ToolCallDelta{Index: 0, Arguments: f})
	}
	a.Add(ToolCallDelta{Index: 1, ID: "call_DNY", Name: "get_stock_price"})
	for _, f := range splitArgs(`{"ticker": "AAPL", "exchange": "NASDAQ"}`, 3) {
		a.Add(ToolCallDelta{Index: 1, Arguments: f})
	}
	a.Add(Finish{Reason: FinishToolCalls, Raw: "tool_calls"})
	a.Add(Usage{InputTokens: 149, OutputTokens: 60})

	got, err := a.Message()
	if err != nil {
		t.Fatalf("Message() error: %v", err)
	}
	want := Assistant(
		Text{Text: "Checking both."},
		ToolCall{ID: "call_JMW", Name: "GetWeatherArgs", Input: jsontext.Value(`{"city": "Edinburgh", "country": "GB", "units": "c"}`)},
		ToolCall{ID: "call_DNY", Name: "get_stock_price", Input: jsontext.Value(`{"ticker": "AAPL", "exchange": "NASDAQ"}`)},
	)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Message() = %#v, want %#v", got, want)
	}
	if a.Finish().Reason != FinishToolCalls || a.Usage() != (Usage{InputTokens: 149, OutputTokens: 60}) {
		t.Errorf("Finish() = %v, Usage() = %v", a.Finish(), a.Usage())
	}
}

func TestAccumulatorInterleavings(t *testing.T) {
	calls := []struct{ id, name, args string }{
		{"call_a", "search", `{"q":"中文 <b>","limit":5}`},
		{"call_b", "fetch", `{"url":"https://x.test/?a=1&b=2"}`},
		{"call_c", "now", ``},
		{"call_d", "sum", `[1,2,3]`},
	}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		byIndex := seed%2 == 0 // route by index, or by id only
		queues := make([][]ToolCallDelta, len(calls))
		for i, c := range calls {
			idx := i
			if !byIndex {
				idx = -1
			}
			queues[i] = append(queues[i], ToolCallDelta{Index: idx, ID: c.id, Name: c.name})
			for _, f := range splitArgs(c.args, 1+rng.IntN(5)) {
				if f == "" {
					continue
				}
				d := ToolCallDelta{Index: idx, Arguments: f}
				if !byIndex {
					d.ID = c.id
				}
				queues[i] = append(queues[i], d)
			}
		}
		var a Accumulator
		var order []int // the order calls first appear
		for {
			var live []int
			for i, q := range queues {
				if len(q) > 0 {
					live = append(live, i)
				}
			}
			if len(live) == 0 {
				break
			}
			i := live[rng.IntN(len(live))]
			if len(queues[i]) > 0 && queues[i][0].Name != "" {
				order = append(order, i)
			}
			a.Add(queues[i][0])
			queues[i] = queues[i][1:]
		}
		got, err := a.Message()
		if err != nil {
			t.Fatalf("seed %d: Message() error: %v", seed, err)
		}
		gotCalls := got.ToolCalls()
		if len(gotCalls) != len(calls) {
			t.Fatalf("seed %d: %d calls, want %d", seed, len(gotCalls), len(calls))
		}
		for k, i := range order {
			c := calls[i]
			wantInput := c.args
			if wantInput == "" {
				wantInput = "{}"
			}
			if g := gotCalls[k]; g.ID != c.id || g.Name != c.name || string(g.Input) != wantInput {
				t.Errorf("seed %d: call %d = %s %s %s, want %s %s %s", seed, k, g.ID, g.Name, g.Input, c.id, c.name, wantInput)
			}
		}
	}
}

func TestAccumulatorSameIndexDifferentIDs(t *testing.T) {
	// Some OpenAI-compatible servers give every parallel call index 0.
	var a Accumulator
	a.Add(ToolCallDelta{Index: 0, ID: "c1", Name: "f", Arguments: `{"a":`})
	a.Add(ToolCallDelta{Index: 0, ID: "c1", Arguments: `1}`})
	a.Add(ToolCallDelta{Index: 0, ID: "c2", Name: "g", Arguments: `{}`})
	m, err := a.Message()
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolCall{{ID: "c1", Name: "f", Input: jsontext.Value(`{"a":1}`)}, {ID: "c2", Name: "g", Input: jsontext.Value(`{}`)}}
	if got := m.ToolCalls(); !reflect.DeepEqual(got, want) {
		t.Errorf("ToolCalls() = %v, want %v", got, want)
	}
}

func TestAccumulatorNameRepeatedOrFragmented(t *testing.T) {
	var a Accumulator
	a.Add(ToolCallDelta{Index: 0, ID: "c1", Name: "get_weather"})
	a.Add(ToolCallDelta{Index: 0, Name: "get_weather", Arguments: "{}"}) // repeated whole
	a.Add(ToolCallDelta{Index: 1, ID: "c2", Name: "get_"})
	a.Add(ToolCallDelta{Index: 1, Name: "time"}) // streamed in pieces
	m, _ := a.Message()
	calls := m.ToolCalls()
	if calls[0].Name != "get_weather" || calls[1].Name != "get_time" {
		t.Errorf("names = %q, %q; want get_weather, get_time", calls[0].Name, calls[1].Name)
	}
}

func TestAccumulatorIncomplete(t *testing.T) {
	tests := []struct {
		name    string
		deltas  []ToolCallDelta
		problem string // "" when complete
	}{
		{"complete", []ToolCallDelta{{Index: 0, ID: "c", Name: "f", Arguments: `{"a":1}`}}, ""},
		{"truncated string", []ToolCallDelta{{Index: 0, ID: "c", Name: "f", Arguments: `{"city":"Pa`}}, "arguments end mid-JSON"},
		{"truncated object", []ToolCallDelta{{Index: 0, ID: "c", Name: "f", Arguments: `{"a":1,`}}, "arguments end mid-JSON"},
		{"truncated literal", []ToolCallDelta{{Index: 0, ID: "c", Name: "f", Arguments: `{"a":tr`}}, "arguments end mid-JSON"},
		{"truncated escape", []ToolCallDelta{{Index: 0, ID: "c", Name: "f", Arguments: `{"a":"\u12`}}, "arguments end mid-JSON"},
		{"malformed but complete", []ToolCallDelta{{Index: 0, ID: "c", Name: "f", Arguments: `{city: Paris}`}}, ""},
		{"no id", []ToolCallDelta{{Index: 0, Name: "f", Arguments: `{}`}}, "no id"},
		{"no name", []ToolCallDelta{{Index: 0, ID: "c", Arguments: `{}`}}, "no tool name"},
	}
	for _, tt := range tests {
		var a Accumulator
		for _, d := range tt.deltas {
			a.Add(d)
		}
		a.Add(Finish{Reason: FinishLength})
		m, err := a.Message()
		if got := m.ToolCalls(); len(got) != 1 || string(got[0].Input) != tt.deltas[0].Arguments {
			t.Errorf("%s: the call must be kept as sent, got %v", tt.name, got)
		}
		if tt.problem == "" {
			if err != nil {
				t.Errorf("%s: Message() error = %v, want nil", tt.name, err)
			}
			continue
		}
		var ie *IncompleteError
		if !errors.As(err, &ie) || !errors.Is(err, ErrIncompleteCall) {
			t.Fatalf("%s: Message() error = %v, want *IncompleteError", tt.name, err)
		}
		if len(ie.Calls) != 1 || !strings.Contains(ie.Calls[0].Problem, tt.problem) {
			t.Errorf("%s: problem = %+v, want %q", tt.name, ie.Calls, tt.problem)
		}
		if !strings.Contains(err.Error(), "output token limit") {
			t.Errorf("%s: error %q should explain the length finish", tt.name, err)
		}
	}
}

func TestAccumulatorPartsOrderAndReasoning(t *testing.T) {
	// Anthropic shape: thinking (index 0), text (1), tool_use (2), text (3).
	var a Accumulator
	a.Add(ReasoningDelta{Index: 0, Provider: "anthropic", Text: "Let me "})
	a.Add(ReasoningDelta{Index: 0, Text: "think."})
	a.Add(ReasoningDelta{Index: 0, Signature: "sig"})
	a.Add(TextDelta{Index: 1, Text: "Looking up."})
	a.Add(ToolCallDelta{Index: 2, ID: "toolu_1", Name: "lookup"})
	a.Add(TextDelta{Index: 3, Text: "Done?"})
	a.Add(ToolCallDelta{Index: 2, Arguments: `{"id":7}`})
	m, err := a.Message()
	if err != nil {
		t.Fatal(err)
	}
	want := Assistant(
		Reasoning{Provider: "anthropic", Text: "Let me think.", Signature: "sig"},
		Text{Text: "Looking up."},
		ToolCall{ID: "toolu_1", Name: "lookup", Input: jsontext.Value(`{"id":7}`)},
		Text{Text: "Done?"},
	)
	if !reflect.DeepEqual(m, want) {
		t.Errorf("Message() = %#v, want %#v", m, want)
	}
}

func TestMerge(t *testing.T) {
	a := ToolResult{CallID: "c1", Name: "f", Status: StatusPartial, Content: []Part{Text{Text: "a"}}}
	b := ToolResult{Content: []Part{Text{Text: "b"}}}
	c := ToolResult{CallID: "c2", Status: StatusSuccess, Content: []Part{Text{Text: "c"}}}
	got := a.Merge(b)
	if got.CallID != "c1" || got.Status != StatusPartial || len(got.Content) != 2 {
		t.Errorf("a.Merge(b) = %+v, want call id c1, 2 parts", got)
	}
	got = got.Merge(c)
	want := ToolResult{CallID: "c2", Name: "f", Status: StatusSuccess, Content: []Part{Text{Text: "a"}, Text{Text: "b"}, Text{Text: "c"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %+v, want %+v", got, want)
	}
	if len(a.Content) != 1 {
		t.Errorf("Merge modified its receiver")
	}
}

// FuzzAccumulator feeds arbitrary fragment streams: the accumulator must
// never panic, must keep every argument byte it was given, and must report
// exactly the calls that are not whole.
func FuzzAccumulator(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, `{"city":"Paris"}`)
	f.Add([]byte{5, 5, 0, 1}, `{"a":[1,2,{"b":null}]}`)
	f.Add([]byte{9, 200, 17}, `{"q":"中"`)
	f.Fuzz(func(t *testing.T, script []byte, args string) {
		var a Accumulator
		sent := 0
		pos := 0
		for i, op := range script {
			index := int(op%4) - 1 // -1..2
			id := ""
			if op&0x10 != 0 {
				id = string(rune('a' + op%3))
			}
			n := int(op>>5) + 1
			frag := args[min(pos, len(args)):min(pos+n, len(args))]
			pos += n
			a.Add(ToolCallDelta{Index: index, ID: id, Name: "f", Arguments: frag})
			if i%7 == 6 {
				a.Add(TextDelta{Index: index, Text: frag})
			}
			sent += len(frag)
		}
		m, err := a.Message()
		kept := 0
		for _, p := range a.parts {
			kept += len(p.args)
		}
		if kept != sent {
			t.Fatalf("accumulated %d argument bytes, sent %d", kept, sent)
		}
		for _, c := range m.ToolCalls() {
			if c.Name == "" {
				t.Fatalf("call %q lost its name", c.ID)
			}
		}
		var ie *IncompleteError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("Message() error %v is not an *IncompleteError", err)
		}
		for _, c := range m.ToolCalls() {
			incomplete := c.ID == "" || truncatedJSON(c.Input)
			reported := false
			if ie != nil {
				for _, ic := range ie.Calls {
					if ic.ID == c.ID && string(ic.Input) == string(c.Input) {
						reported = true
					}
				}
			}
			if incomplete != reported {
				t.Fatalf("call %+v: incomplete=%v but reported=%v", c, incomplete, reported)
			}
		}
	})
}
