package budget_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// Limits come from a table you can override; the counter follows the
// model's encoding.
func ExampleTable_Lookup() {
	tab := budget.DefaultTable().With(budget.Model{Prefix: "my-finetune", Limits: budget.Limits{Window: 32_000, MaxOutput: 4_000, Encoding: budget.Estimated}})
	for _, m := range []string{"gpt-4o-2024-08-06", "claude-opus-4-1", "gemini-2.5-pro", "my-finetune-v2"} {
		l, _ := tab.Lookup(m)
		room, _ := budget.Room(l, 20_000, nil)
		fmt.Printf("%s: window %d, output %d, %s; room for results after 20k of history: %d\n", m, l.Window, l.MaxOutput, l.Encoding, room)
	}
	// Output:
	// gpt-4o-2024-08-06: window 128000, output 16384, o200k_base; room for results after 20k of history: 16000
	// claude-opus-4-1: window 200000, output 32000, estimate; room for results after 20k of history: 16000
	// gemini-2.5-pro: window 1048576, output 65536, estimate; room for results after 20k of history: 16000
	// my-finetune-v2: window 32000, output 4000, estimate; room for results after 20k of history: 6400
}

// A history that nears the window: the oldest results are cleared
// first (summary and ref kept), then the oldest rounds are summarised.
func ExampleFitter_Fit() {
	big := toolresult.Success("search_orders(q=all): 30,000 orders (showing 50 of 30,000 records)", strings.Repeat("order ", 3000))
	big.Meta.Ref = "r1"
	history := []llm.Message{
		llm.System("You are a shop assistant."),
		llm.User("What did I order, and is it shipped?"),
		llm.Assistant(llm.ToolCall{ID: "c1", Name: "search_orders", Input: []byte(`{"q":"all"}`)}),
		llm.Tool(big.Result("c1", "search_orders")),
		llm.Assistant(llm.ToolCall{ID: "c2", Name: "track", Input: []byte(`{"order":"o-00042"}`)}),
		llm.Tool(toolresult.Success("track(order=o-00042): shipped on 1 December", nil).Result("c2", "track")),
	}
	f, _ := budget.NewFitter(budget.Estimator{}, budget.Limits{Window: 4_000, MaxOutput: 1_000}, transcript.Anthropic, &budget.FitConfig{KeepRounds: 1})
	fitted, rep, err := f.Fit(context.Background(), history)
	fmt.Println(err, rep.Before, "->", rep.After, "tokens; cleared", rep.Cleared)
	fmt.Println(fitted[3].Parts[0].(llm.ToolResult).Content[0].(llm.Text).Text)
	fmt.Println(transcript.Accepted(transcript.Check(fitted, transcript.Anthropic)))
	// Output:
	// <nil> 3134 -> 158 tokens; cleared 1
	// {"status":"success","summary":"search_orders(q=all): 30,000 orders (showing 50 of 30,000 records)","suggestion":"You could call read_result with ref \"r1\" to reload it.","meta":{"truncated":true,"ref":"r1","level":"cleared"}}
	// true
}
