package anthropic_test

import (
	"bytes"
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/transcript"
)

// Decode a request body into llm messages and encode it back unchanged.
func ExampleDecode() {
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"Be brief.","messages":[` +
		`{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"},"cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C","is_error":true}]}]}`)
	r, err := anthropic.Decode(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				fmt.Printf("%s: %q\n", m.Role, p.Text)
			case llm.ToolCall:
				fmt.Printf("%s: call %s %s(%s)\n", m.Role, p.ID, p.Name, p.Input)
			case llm.ToolResult:
				fmt.Printf("%s: result of %s %s, %s\n", m.Role, p.Name, p.CallID, p.Status)
			}
		}
	}
	out, _, err := anthropic.Encode(r)
	fmt.Println(bytes.Equal(out, body), err)
	// Output:
	// system: "Be brief."
	// user: "Weather in Paris?"
	// assistant: call toolu_1 get_weather({"city":"Paris"})
	// tool: result of get_weather toolu_1, error
	// true <nil>
}

// Encode messages that came from another dialect: the id Anthropic would
// reject is rewritten in the call and its result, the max_tokens the
// Messages API requires is written, and each change is reported.
func ExampleEncode() {
	r := &anthropic.Request{Messages: []llm.Message{
		llm.User("What time is it?"),
		llm.Assistant(llm.ToolCall{ID: "call|1", Name: "now", Input: []byte(`{}`)}),
		llm.Tool(llm.ToolResult{CallID: "call|1", Name: "now", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "12:00"}}}),
	}}
	out, warnings, err := anthropic.Encode(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// {"max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"What time is it?"}]},{"role":"assistant","content":[{"type":"tool_use","id":"call_1_c26e9779","name":"now","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1_c26e9779","content":"12:00"}]}]}
	// max_tokens: the Messages API requires max_tokens; wrote 4096 (set your own limit)
	// messages.1.content.0: tool call id "call|1" does not match ^[a-zA-Z0-9_-]+$ (ANT-ID-PATTERN); rewritten to "call_1_c26e9779" in the tool_use and its tool_result
}

// Report transcript's violations at their places in the body that was
// checked: here a role "system" message opens the messages array, so the
// llm form's messages.1 is the body's messages.2.
func ExampleRequest_BodyPath() {
	body := []byte(`{"max_tokens":1024,"system":"Be brief.","messages":[` +
		`{"role":"system","content":"Answer in French."},` +
		`{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":"Well?"}]}`)
	r, err := anthropic.Decode(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range r.Wire {
		fmt.Println(v.Path, v.Rule)
	}
	for _, v := range transcript.Check(r.Messages, anthropic.Dialect) {
		fmt.Println(v.Path, "→", r.BodyPath(v.Path), v.Rule)
	}
	// Output:
	// messages.0 ANT-SYSTEM-ROLE
	// messages.1 → messages.2 ANT-RESULT-NEXT
}

// Write a body whose messages array opens with a role "system" message,
// which the Messages API rejects, in the form it accepts: FixWire moves the
// text into the top-level system field, after the text already there.
func ExampleEncode_fixWire() {
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"Be brief.","messages":[` +
		`{"role":"system","content":"Answer in French."},{"role":"user","content":"Weather in Paris?"}]}`)
	r, err := anthropic.Decode(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Wire[0].Rule, "at", r.Wire[0].Path)
	r.FixWire = true
	out, _, err := anthropic.Encode(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// ANT-SYSTEM-ROLE at messages.0
	// {"model":"claude-sonnet-4-5","max_tokens":1024,"system":[{"type":"text","text":"Be brief."},{"type":"text","text":"Answer in French."}],"messages":[{"role":"user","content":"Weather in Paris?"}]}
}
