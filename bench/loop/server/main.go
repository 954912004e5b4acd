// Command server is the loop benchmark's model: an OpenAI-compatible
// endpoint (provider/llmtest, with zero model latency) scripted with
// --rounds rounds of --calls parallel lookup calls and a final answer. It
// prints its base URL on the first line of standard output and serves
// until it is killed or --timeout passes. The server judges every request
// as OpenAI would (llmtest refuses what the provider refuses), so a peer
// that sends a broken history fails the run.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/toolwire/toolwire/provider/llmtest"
)

func main() {
	rounds := flag.Int("rounds", 10, "rounds of tool calls")
	calls := flag.Int("calls", 1, "parallel lookup calls per round")
	limit := flag.Int("limit", 1000, "the limit argument of each call")
	timeout := flag.Duration("timeout", 10*time.Minute, "stop serving after this long")
	flag.Parse()
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
	fmt.Println(srv.URL + "/v1")
	os.Stdout.Sync()
	time.Sleep(*timeout)
}
