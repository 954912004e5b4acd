package llmtest_test

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/provider/llmtest"
)

// The server refuses what the provider would refuse, in the provider's
// own shape: here an Anthropic request whose tool_result answers no
// tool_use. Each request is recorded, with why it was refused.
func ExampleNewServer() {
	srv := llmtest.NewServer(nil, llmtest.Turn{Text: "never sent"})
	defer srv.Close()

	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"18C"}]}]}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, len(srv.Requests()), srv.Remaining())
	fmt.Println(srv.Requests()[0].Rejected)
	// Output:
	// 400 1 1
	// messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.
}
