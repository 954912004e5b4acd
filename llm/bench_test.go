package llm

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// benchConversation builds a realistic conversation of n messages: user
// turns, assistant turns with text and one to three parallel calls, and
// tool messages carrying rendered envelopes.
func benchConversation(n int) Conversation {
	msgs := make([]Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		msgs = append(msgs, User(fmt.Sprintf("Find flights from Paris to 北京 on day %d, under 700 EUR, window seat <please>.", i)))
		calls := 1 + i%3
		parts := []Part{Text{Text: "Searching the airlines now."}}
		var results []ToolResult
		for c := range calls {
			id := fmt.Sprintf("call_%d_%d", i, c)
			parts = append(parts, ToolCall{ID: id, Name: "search_flights",
				Input: jsontext.Value(fmt.Sprintf(`{"from":"PAR","to":"PEK","date":"2026-12-%02d","max_price_eur":700,"seat":"window","airline_index":%d}`, 1+i%28, c))})
			results = append(results, ToolResult{CallID: id, Name: "search_flights", Status: StatusSuccess, Content: []Part{Text{Text: fmt.Sprintf(
				`{"status":"success","summary":"search_flights(from=PAR, to=PEK): 2 flights","data":[{"flight":"AF%d","depart":"10:35","price_eur":612},{"flight":"CA934","depart":"13:50","price_eur":577}],"meta":{"source":"flights-api","duration_ms":%d}}`, 100+c, 80+i%50)}}})
		}
		msgs = append(msgs, Assistant(parts...), Tool(results...))
	}
	return Conversation{Messages: msgs[:n]}
}

// The floor: the same data in plain structs, through encoding/json.
type plainConversation struct {
	Version  int            `json:"version"`
	Messages []plainMessage `json:"messages"`
}

type plainMessage struct {
	Role  string      `json:"role"`
	Parts []plainPart `json:"parts"`
}

type plainPart struct {
	Type    string         `json:"type"`
	Text    string         `json:"text,omitempty"`
	ID      string         `json:"id,omitempty"`
	Name    string         `json:"name,omitempty"`
	Input   jsontext.Value `json:"input,omitempty"`
	CallID  string         `json:"call_id,omitempty"`
	Status  string         `json:"status,omitempty"`
	Content []plainPart    `json:"content,omitempty"`
}

func toPlain(c Conversation) plainConversation {
	var conv func(p Part) plainPart
	conv = func(p Part) plainPart {
		switch p := p.(type) {
		case Text:
			return plainPart{Type: "text", Text: p.Text}
		case ToolCall:
			return plainPart{Type: "tool_call", ID: p.ID, Name: p.Name, Input: p.Input}
		case ToolResult:
			out := plainPart{Type: "tool_result", CallID: p.CallID, Name: p.Name, Status: string(p.Status)}
			for _, q := range p.Content {
				out.Content = append(out.Content, conv(q))
			}
			return out
		}
		panic("unexpected part")
	}
	pc := plainConversation{Version: 1}
	for _, m := range c.Messages {
		pm := plainMessage{Role: string(m.Role)}
		for _, p := range m.Parts {
			pm.Parts = append(pm.Parts, conv(p))
		}
		pc.Messages = append(pc.Messages, pm)
	}
	return pc
}

func BenchmarkConversation(b *testing.B) {
	c := benchConversation(1000)
	data, err := c.MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	plain := toPlain(c)
	plainData, err := json.Marshal(plain)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode/toolwire", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(plainData)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(plain); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/toolwire", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var c Conversation
			if err := c.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(plainData)))
		b.ReportAllocs()
		for b.Loop() {
			var p plainConversation
			if err := json.Unmarshal(plainData, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkAccumulator(b *testing.B) {
	// 10,000 deltas: 100 parallel calls of 100 fragments each, interleaved
	// round-robin, the first fragment of each carrying id and name.
	const calls, frags = 100, 100
	deltas := make([]Event, 0, calls*frags)
	for f := range frags {
		for c := range calls {
			d := ToolCallDelta{Index: c, Arguments: `"x":1,`}
			switch f {
			case 0:
				d.ID, d.Name, d.Arguments = fmt.Sprintf("call_%d", c), "search", `{`
			case frags - 1:
				d.Arguments = `"end":true}`
			}
			deltas = append(deltas, d)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		var a Accumulator
		for _, d := range deltas {
			a.Add(d)
		}
		if _, err := a.Message(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(deltas)), "ns/delta")
}
