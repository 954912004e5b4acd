package gemini_test

import (
	"bytes"
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/gemini"
)

// Decode a request body with parallel calls and a thought signature, and
// encode it back unchanged.
func ExampleDecode() {
	body := []byte(`{"contents":[` +
		`{"role":"user","parts":[{"text":"Weather in Paris and Rome?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18C"}}},{"functionResponse":{"name":"get_weather","response":{"error":"station offline"}}}]}]}`)
	r, err := gemini.Decode(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				fmt.Printf("%s: %q\n", m.Role, p.Text)
			case llm.Reasoning:
				fmt.Printf("%s: thought signature %s\n", m.Role, p.Signature)
			case llm.ToolCall:
				fmt.Printf("%s: call %s(%s)\n", m.Role, p.Name, p.Input)
			case llm.ToolResult:
				fmt.Printf("%s: result of %s, %s: %s\n", m.Role, p.Name, p.Status, p.Content[0].(llm.Text).Text)
			}
		}
	}
	out, _, err := gemini.Encode(r)
	fmt.Println(bytes.Equal(out, body), err)
	// Output:
	// user: "Weather in Paris and Rome?"
	// assistant: thought signature c2ln
	// assistant: call get_weather({"city":"Paris"})
	// assistant: call get_weather({"city":"Rome"})
	// tool: result of get_weather, success: 18C
	// tool: result of get_weather, error: station offline
	// true <nil>
}

// Encode messages from another dialect: the functionResponse gets the name
// of its call, and a text result is wrapped in an object.
func ExampleEncode() {
	r := &gemini.Request{Messages: []llm.Message{
		llm.User("What time is it?"),
		llm.Assistant(llm.ToolCall{ID: "toolu_1", Name: "now", Input: []byte(`{}`)}),
		llm.Tool(llm.ToolResult{CallID: "toolu_1", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "12:00"}}}),
	}}
	out, warnings, err := gemini.Encode(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	for _, w := range warnings {
		fmt.Println(w)
	}
	// Output:
	// {"contents":[{"role":"user","parts":[{"text":"What time is it?"}]},{"role":"model","parts":[{"functionCall":{"id":"toolu_1","name":"now","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"toolu_1","name":"now","response":{"output":"12:00"}}}]}]}
	// contents.2.parts.0: functionResponse needs the function's name; took "now" from the call "toolu_1"
}
