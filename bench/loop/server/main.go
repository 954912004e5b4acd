// Command server is the loop benchmark's model: a provider/llmtest
// conformance server, with zero model latency, scripted with --rounds
// rounds of --calls parallel lookup calls and a final answer. It serves
// all four protocols on their standard paths and prints, on the first
// line of standard output, the base URL a client of --dialect takes:
// ".../v1" for OpenAI Chat Completions and Responses (the client appends
// /chat/completions or /responses), the server's root for Anthropic (the
// client appends /v1/messages), ".../v1beta" for Gemini (the client
// appends /models/MODEL:generateContent). It serves until it is killed or
// --timeout passes. The server judges every request as the provider
// would (llmtest refuses what the provider refuses), so a peer that sends
// a broken history fails the run.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/toolwire/toolwire/provider/llmtest"
)

// bases are the paths each dialect's base URL ends with.
var bases = map[string]string{"chat": "/v1", "responses": "/v1", "anthropic": "", "gemini": "/v1beta"}

func main() {
	dialect := flag.String("dialect", "chat", "the protocol whose base URL to print: chat, responses, anthropic or gemini")
	rounds := flag.Int("rounds", 10, "rounds of tool calls")
	calls := flag.Int("calls", 1, "parallel lookup calls per round")
	limit := flag.Int("limit", 1000, "the limit argument of each call")
	timeout := flag.Duration("timeout", 10*time.Minute, "stop serving after this long")
	flag.Parse()
	base, ok := bases[*dialect]
	if !ok {
		fmt.Fprintf(os.Stderr, "server: --dialect %q is not chat, responses, anthropic or gemini\n", *dialect)
		os.Exit(2)
	}
	var turns []llmtest.Turn
	for r := range *rounds {
		var t llmtest.Turn
		for c := range *calls {
			t.Calls = append(t.Calls, llmtest.Call{Name: "lookup", Args: fmt.Sprintf(`{"key":"k%d_%d","limit":%d}`, r+1, c, *limit)})
		}
		turns = append(turns, t)
	}
	turns = append(turns, llmtest.Turn{Text: fmt.Sprintf("Looked up %d keys.", *rounds**calls)})
	srv := llmtest.NewServer(nil, turns...)
	defer srv.Close()
	fmt.Println(srv.URL + base)
	os.Stdout.Sync()
	time.Sleep(*timeout)
}
