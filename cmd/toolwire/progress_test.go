package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
)

// The run's progress is a hook: told a run's events, it writes each turn
// as toolwire run shows it, with every hook-only event ignored.
func TestProgressHook(t *testing.T) {
	call := llm.ToolCall{ID: "call_1_0", Name: "get_weather", Input: []byte(`{"city":"Paris"}`)}
	events := []toolwire.Event{
		toolwire.TurnStartEvent{Turn: 1},
		toolwire.ModelCallEvent{Turn: 1, Request: &llm.Request{}},
		toolwire.TextEvent{Turn: 1, Text: "Let me "},
		toolwire.TextEvent{Turn: 1, Text: "look."},
		toolwire.ModelDoneEvent{Turn: 1},
		toolwire.CallEvent{Turn: 1, Call: call, Approval: true},
		toolwire.ToolStartEvent{Turn: 1, Call: call, Attempt: 1},
		toolwire.ResultEvent{Turn: 1, Result: llm.ToolResult{CallID: "call_1_0", Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "sunny"}}}},
		toolwire.TurnEvent{Report: toolwire.TurnReport{Turn: 1, Tokens: 1200, Headroom: 6000, Usage: llm.Usage{InputTokens: 40, OutputTokens: 7}}},
		toolwire.TurnStartEvent{Turn: 2},
		toolwire.TextEvent{Turn: 2, Text: "Sunny."},
		toolwire.TurnEvent{Report: toolwire.TurnReport{Turn: 2, Tokens: 1300, Headroom: 5900}},
		toolwire.DoneEvent{Result: &toolwire.Result{}},
	}
	var out bytes.Buffer
	p := newProgress(&out, 8000)
	for _, e := range events {
		p.Observe(context.Background(), e)
	}
	p.stop()
	want := `
── turn 1
Let me look.
→ get_weather {"city":"Paris"}  [call_1_0]  (needs approval)
← get_weather success: sunny
   budget: 1,200 of 8,000 tokens in the history, 6,000 left · shaped: no · fitted: no · model usage: 40 in, 7 out

── turn 2
Sunny.
   budget: 1,300 of 8,000 tokens in the history, 5,900 left · shaped: no · fitted: no · model usage: 0 in, 0 out
`
	if got := out.String(); got != want {
		t.Errorf("progress of a two-turn run =\n%s\nwant\n%s", got, want)
	}
}
