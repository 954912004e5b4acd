package toolresult_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// A tool answers a call with an envelope; Result renders it into the tool
// result that goes back to the model, paired with the call's id and name.
func ExampleEnvelope_Result() {
	call := llm.ToolCall{ID: "call_7", Name: "get_quote"}

	env := toolresult.Failure(toolresult.RateLimited, "429 Too Many Requests from quotes API")
	env.Summary = "get_quote(ticker=AAPL): the quotes API is rate limited"
	env.Error.RetryAfter = 6 * time.Second
	env.Suggestion = toolresult.Options("retry in 6 s", "use the backup source")
	env.Meta = toolresult.Meta{Source: "quotes-api", Duration: 87 * time.Millisecond}

	res := env.Result(call.ID, call.Name)
	fmt.Println(res.CallID, res.Name, res.Status)
	fmt.Println(res.Content[0].(llm.Text).Text)
	// Output:
	// call_7 get_quote error
	// {"status":"error","summary":"get_quote(ticker=AAPL): the quotes API is rate limited","error":{"type":"rate_limited","message":"429 Too Many Requests from quotes API","retryable":true,"retry_after_ms":6000},"suggestion":"You could retry in 6 s or use the backup source.","meta":{"source":"quotes-api","duration_ms":87}}
}

// An empty result is a success that says what was looked for.
func ExampleEmpty() {
	res := toolresult.Empty("search_flights(from=PAR, to=NYC, date=2026-12-01): no flights found").Result("call_1", "search_flights")
	fmt.Println(res.Status)
	fmt.Println(res.Content[0].(llm.Text).Text)
	// Output:
	// success
	// {"status":"success","summary":"search_flights(from=PAR, to=NYC, date=2026-12-01): no flights found","data":[]}
}

// A result too large for its budget: the first records that fit, with a
// note saying how to read on, and the full output behind a ref that
// Shaper.Page (the read_result tool) pages through.
func ExampleShaper_Shape() {
	counter := budget.Estimator{} // budget.NewExact(budget.O200kBase) for OpenAI models
	sh, _ := toolresult.NewShaper(counter, toolresult.NewMemoryStore(0).NumberRefs(), nil)
	var recs []string
	for i, city := range []string{"Paris", "北京", "Berlin", "Tokyo", "Lima", "Oslo", "Rome", "Cairo", "Quito", "Pune", "Turin", "Kyiv"} {
		recs = append(recs, fmt.Sprintf(`{"id":%d,"city":%q,"address":{"zip":"%05d"},"note":null,"tags":[]}`, i+1, city, 10000+i))
	}
	data := jsontext.Value("[" + strings.Join(recs, ",") + "]")
	out, _ := sh.Shape(context.Background(), toolresult.Success("search_orders(q=all): 12 orders", data),
		toolresult.Request{Tool: "search_orders", Budget: 200})
	fmt.Println(out.Result("call_1", "search_orders").Content[0].(llm.Text).Text)

	// read_result: the next page, from the offset the suggestion gives.
	page, _ := sh.Page(context.Background(), toolresult.PageRequest{Ref: out.Envelope.Meta.Ref, Offset: out.Report.Kept}, 200)
	fmt.Println(page.Envelope.Summary)
	// Output:
	// {"status":"success","summary":"search_orders(q=all): 12 orders (showing 6 of 12 records)","data":[{"id":1,"city":"Paris","address.zip":"10000"},{"id":2,"city":"北京","address.zip":"10001"},{"id":3,"city":"Berlin","address.zip":"10002"},{"id":4,"city":"Tokyo","address.zip":"10003"},{"id":5,"city":"Lima","address.zip":"10004"},{"id":6,"city":"Oslo","address.zip":"10005"}],"suggestion":"You could narrow the query or call read_result with ref \"r1\" and offset 6 for more.","meta":{"truncated":true,"omitted":6,"ref":"r1","level":"head","tokens_before":319,"tokens_after":190,"pruned":12,"flattened":6}}
	// read_result(ref=r1, offset=6): records 7–12 of 12
}
