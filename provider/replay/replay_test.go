package replay_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/replay"
)

func TestReplay(t *testing.T) {
	m, err := replay.Parse("r.yaml", []byte(`
dialect: anthropic
model: claude-sonnet-4-5
conversations:
  - question: Weather in Paris?
    turns:
      - text: Let me look.
        calls:
          - {name: get_weather, args: {city: Paris}}
          - {id: toolu_x, name: get_time, args: '{"tz":"Europe/Paris"}'}
      - text: 18°C.
`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Dialect() != "anthropic" || m.Name() != "claude-sonnet-4-5" {
		t.Errorf("Dialect, Name = %s, %s", m.Dialect(), m.Name())
	}
	history := []llm.Message{llm.User("weather in paris")}
	resp, err := llm.Generate(context.Background(), m, &llm.Request{Messages: history})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if resp.Message.Text() != "Let me look." || len(calls) != 2 || calls[0].ID != "call_1_0" || string(calls[0].Input) != `{"city":"Paris"}` ||
		calls[1].ID != "toolu_x" || resp.Finish.Reason != llm.FinishToolCalls {
		t.Errorf("turn 1 = %+v", resp)
	}
	history = append(history, resp.Message, llm.Tool(llm.ToolResult{CallID: "call_1_0", Name: "get_weather", Status: llm.StatusSuccess}))
	resp, err = llm.Generate(context.Background(), m, &llm.Request{Messages: history})
	if err != nil || resp.Message.Text() != "18°C." || resp.Finish.Reason != llm.FinishStop {
		t.Errorf("turn 2 = %+v, %v", resp, err)
	}
	history = append(history, resp.Message)
	if _, err := llm.Generate(context.Background(), m, &llm.Request{Messages: history}); err == nil || !strings.Contains(err.Error(), "has 2 recorded turns") {
		t.Errorf("turn 3: error %v, want one that says the replay has 2 turns", err)
	}
	if _, err := llm.Generate(context.Background(), m, &llm.Request{Messages: []llm.Message{llm.User("other")}}); err == nil || !strings.Contains(err.Error(), `"Weather in Paris?"`) {
		t.Errorf("unknown question: error %v, want one that lists the recorded questions", err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, err string }{
		{"turns: []\n", "r.yaml:1:1: no turns: a conversation needs at least one"},
		{"turns:\n  - {}\n", "r.yaml:2:5: turns.0: an empty turn"},
		{"turns:\n  - calls: [{args: {}}]\n", `turns.0.calls.0: missing "name"`},
		{"turns:\n  - calls: [{name: a, args: [1]}]\n", "want the arguments as a mapping"},
		{"dialect: cohere\nturns: [{text: hi}]\n", `r.yaml:1:10: dialect: unknown dialect "cohere"`},
		{"conversations: [{turns: [{text: a}]}]\n", `conversations.0: missing "question"`},
		{"conversations: [{question: q, turns: [{text: a}]}]\nturns: [{text: b}]\n", "give either conversations or turns"},
		{"{}", "r.yaml:1:1: no turns"},
	}
	for _, tt := range tests {
		_, err := replay.Parse("r.yaml", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Parse(%q) error = %v, want %q", tt.in, err, tt.err)
		}
	}
}

// FuzzParse: no input panics; a replay that parses answers its first turn.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../../examples/agent/replay.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"turns":[{"text":"hi","calls":[{"name":"a","args":{"x":[1,2]}}]}]}`))
	f.Add([]byte("turns:\n  - text: &t hi\n  - text: *t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := replay.Parse("r.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "replay: r.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		q := m.Questions()[0]
		if q == "" {
			q = "anything"
		}
		if _, err := llm.Generate(context.Background(), m, &llm.Request{Messages: []llm.Message{llm.User(q)}}); err != nil && !strings.Contains(err.Error(), "replay") {
			t.Fatalf("Generate: %v", err)
		}
	})
}

// Asked a question it has no turns for, the replay says which it has: a
// short list, each question on its first words, and how many more.
func TestReplayUnknownQuestion(t *testing.T) {
	long := "Please compare every refunded order of the last quarter with the tickets opened about it and tell me which were late"
	var b strings.Builder
	b.WriteString("conversations:\n")
	for _, q := range []string{"Weather in Paris?", long, "q3", "q4", "q5", "q6", "q7", "q8"} {
		b.WriteString("  - question: " + q + "\n    turns: [{text: ok}]\n")
	}
	m, err := replay.Parse("r.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.Generate(context.Background(), m, &llm.Request{Messages: []llm.Message{llm.User("What is the meaning of life?")}})
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("Generate(an unknown question) = %v, want an *llm.Error", err)
	}
	want := `r.yaml has no recorded turns for the question "What is the meaning of life?"; it has turns for 8 questions: "Weather in Paris?", "Please compare every refunded order of the last quarter with…", "q3", "q4", "q5" and 3 more (set an API key to ask a real model)`
	if le.ProviderMessage != want {
		t.Errorf("the replay says\n%s\nwant\n%s", le.ProviderMessage, want)
	}
}
