package toolwire_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
)

// pausedState is a state in the middle of a turn: one call answered, one
// waiting for approval, with the guards' bookkeeping set.
func pausedState(t testing.TB) *toolwire.State {
	t.Helper()
	type in struct {
		City string `json:"city"`
	}
	book := tool.MustFunc("book_trip", "Books a trip.", func(_ context_, a in) (string, error) { return "", nil },
		&tool.FuncOptions{RequiresApproval: true, Idempotency: tool.Level1})
	a, err := toolwire.New(fakeModel{}, &toolwire.Config{System: "Be brief.", Tools: registry(weatherTool(), book)})
	must(t, err)
	s := a.Start("Book Paris if it is sunny.")
	s.ID = "run_test"
	s, _, err = a.Step(s, toolwire.ModelOutcome{Response: &llm.Response{Usage: llm.Usage{InputTokens: 40, OutputTokens: 12},
		Message: llm.Assistant(llm.Text{Text: "Checking."},
			llm.ToolCall{ID: "c1", Name: "get_weather", Input: []byte(`{"city":"Paris"}`)},
			llm.ToolCall{ID: "c2", Name: "book_trip", Input: []byte(`{"city":"Paris"}`)})}})
	must(t, err)
	env := weatherEnvelope()
	s, _, err = a.Step(s, toolwire.ToolsOutcome{Outcomes: []tool.Outcome{{Result: env.Result("c1", "get_weather"), Envelope: env}}})
	must(t, err)
	return s
}

// The state's JSON encoding, pinned: issue 11 stores it.
func TestStateJSON(t *testing.T) {
	s := pausedState(t)
	if s.Next.Kind != toolwire.AwaitApproval {
		t.Fatalf("next = %s, want approval", s.Next.Kind)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	must(t, err)
	golden.Check(t, filepath.Join("testdata", "state.json"), append(b, '\n'))
	checkState(t, s)
}

func TestStateDecodeErrors(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{`{"version":2}`, "version 2, but this release reads version 1"},
		{`{"version":1,"id":"r","messages":{"version":1,"messages":[]},"turn":0,"usage":{},"next":{"kind":"sleep"},"guard":{}}`, `next.kind "sleep"`},
		{`{"version":1,"id":"r","messages":{"version":1,"messages":[]},"turn":0,"usage":{},"next":{"kind":"tools","calls":[{}]},"guard":{}}`, "next.calls without next.call_messages"},
		{`{"version":1,"extra":1}`, "extra"},
	} {
		var s toolwire.State
		if err := json.Unmarshal([]byte(tt.in), &s); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Unmarshal(%s) error = %v, want %q", tt.in, err, tt.err)
		}
	}
}

// FuzzStateDecode: no input panics, and a state that decodes encodes to
// what decodes to the same encoding.
func FuzzStateDecode(f *testing.F) {
	b, err := json.Marshal(pausedState(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"version":1,"id":"r","messages":{"version":1,"messages":[]},"turn":0,"usage":{},"next":{"kind":"done","stop":{"reason":"answered","message":"m"}},"guard":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s toolwire.State
		if json.Unmarshal(data, &s) != nil {
			return
		}
		b1, err := json.Marshal(&s)
		if err != nil {
			return // a state whose messages the persistence format cannot hold
		}
		var back toolwire.State
		if err := json.Unmarshal(b1, &back); err != nil {
			t.Fatalf("re-decode: %v\n%s", err, b1)
		}
		b2, _ := json.Marshal(&back)
		if string(b1) != string(b2) {
			t.Fatalf("not stable:\n%s\n%s", b1, b2)
		}
	})
}
