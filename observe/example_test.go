package observe_test

import (
	"fmt"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/observe"
)

// A tool answers a call with an envelope; Result renders it into the tool
// result that goes back to the model, paired with the call's id and name.
func ExampleEnvelope_Result() {
	call := llm.ToolCall{ID: "call_7", Name: "get_quote"}

	env := observe.Failure(observe.RateLimited, "429 Too Many Requests from quotes API")
	env.Summary = "get_quote(ticker=AAPL): the quotes API is rate limited"
	env.Error.RetryAfter = 6 * time.Second
	env.Suggestion = observe.Options("retry in 6 s", "use the backup source")
	env.Meta = observe.Meta{Source: "quotes-api", Duration: 87 * time.Millisecond}

	res := env.Result(call.ID, call.Name)
	fmt.Println(res.CallID, res.Name, res.Status)
	fmt.Println(res.Content[0].(llm.Text).Text)
	// Output:
	// call_7 get_quote error
	// {"status":"error","summary":"get_quote(ticker=AAPL): the quotes API is rate limited","error":{"type":"rate_limited","message":"429 Too Many Requests from quotes API","retryable":true,"retry_after_ms":6000},"suggestion":"You could retry in 6 s or use the backup source.","meta":{"source":"quotes-api","duration_ms":87}}
}

// An empty result is a success that says what was looked for.
func ExampleEmpty() {
	res := observe.Empty("search_flights(from=PAR, to=NYC, date=2026-12-01): no flights found").Result("call_1", "search_flights")
	fmt.Println(res.Status)
	fmt.Println(res.Content[0].(llm.Text).Text)
	// Output:
	// success
	// {"status":"success","summary":"search_flights(from=PAR, to=NYC, date=2026-12-01): no flights found","data":[]}
}
