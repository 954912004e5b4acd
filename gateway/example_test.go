package gateway_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// A gateway with policy reject in front of an OpenAI-compatible server:
// a request whose tool message answers no call is answered 400 in
// OpenAI's error shape, and never reaches the server.
func Example() {
	upstream := llmtest.NewServer(nil, llmtest.Turn{Text: "Paris is sunny."})
	defer upstream.Close()
	g, err := gateway.New(&gateway.Config{OpenAI: upstream.URL, Policy: gateway.Reject})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(g) // or g.Serve(ctx, listener, grace)
	defer srv.Close()

	body := `{"model":"gpt-4.1","messages":[{"role":"user","content":"Weather in Paris?"},{"role":"tool","tool_call_id":"call_1","content":"sunny"}]}`
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get(gateway.VerdictHeader), resp.Header.Get(gateway.RulesHeader))
	fmt.Println("requests upstream:", len(upstream.Requests()))
	// Output:
	// 400 rejected OAI-CC-NO-ORPHAN-RESULT
	// requests upstream: 0
}
