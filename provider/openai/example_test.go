package openai_test

import (
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/openai"
)

// Decode a Chat Completions body, look at it in llm form, and write it back.
func ExampleDecodeChat() {
	body := []byte(`{"model": "gpt-4o", "messages": [
	  {"role": "user", "content": "Weather in Paris?"},
	  {"role": "assistant", "content": null, "tool_calls": [
	    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
	  {"role": "tool", "tool_call_id": "call_1", "content": "18C, light rain"}
	]}`)
	req, err := openai.DecodeChat(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				fmt.Printf("%s: %s\n", m.Role, p.Text)
			case llm.ToolCall:
				fmt.Printf("%s: call %s %s(%s)\n", m.Role, p.ID, p.Name, p.Input)
			case llm.ToolResult:
				fmt.Printf("%s: result for %s (%s): %s\n", m.Role, p.CallID, p.Name, p.Content[0].(llm.Text).Text)
			}
		}
	}
	out, _, err := openai.EncodeChat(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// user: Weather in Paris?
	// assistant: call call_1 get_weather({"city": "Paris"})
	// tool: result for call_1 (get_weather): 18C, light rain
	// {"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"18C, light rain"}]}
}

// Convert a Chat Completions body into a Responses body. What Responses
// cannot express comes back as a warning.
func ExampleEncodeResponses() {
	chat, err := openai.DecodeChat([]byte(`{"model": "gpt-4o", "messages": [
	  {"role": "system", "content": "Be brief."},
	  {"role": "user", "content": "Weather in Paris?"},
	  {"role": "assistant", "tool_calls": [
	    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
	  {"role": "tool", "tool_call_id": "call_1", "content": "18C"}
	]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := append(chat.Messages, llm.Assistant(llm.Reasoning{Provider: "anthropic", Text: "…", Signature: "sig"}, llm.Text{Text: "18°C in Paris."}))
	out, warnings, err := openai.EncodeResponses(&openai.ResponsesRequest{Messages: msgs, Fields: chat.Fields})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// {"model":"gpt-4o","input":[{"type":"message","role":"system","content":"Be brief."},{"type":"message","role":"user","content":"Weather in Paris?"},{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},{"type":"function_call_output","call_id":"call_1","output":"18C"},{"type":"message","role":"assistant","content":"18°C in Paris."}]}
	// warning: input.4: "anthropic" reasoning cannot be replayed to OpenAI Responses; it is dropped
}

// Encode calls that have no ids, as Gemini sends them: each call gets an
// id, each result the id of the call it answers (by name and position),
// and each change is reported.
func ExampleEncodeChat_callsWithoutIDs() {
	msgs := []llm.Message{
		llm.User("Weather in Paris and Rome?"),
		llm.Assistant(
			llm.ToolCall{Name: "get_weather", Input: []byte(`{"city":"Paris"}`)},
			llm.ToolCall{Name: "get_weather", Input: []byte(`{"city":"Rome"}`)}),
		llm.Tool(
			llm.ToolResult{Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}},
			llm.ToolResult{Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "22C"}}}),
	}
	out, warnings, err := openai.EncodeChat(&openai.ChatRequest{Messages: msgs})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// {"messages":[{"role":"user","content":"Weather in Paris and Rome?"},{"role":"assistant","tool_calls":[{"id":"call_1_0","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_1_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]},{"role":"tool","tool_call_id":"call_1_0","content":"18C"},{"role":"tool","tool_call_id":"call_1_1","content":"22C"}]}
	// warning: messages.1.tool_calls.0: tool call without an id; wrote id "call_1_0" (OAI-CC-RESULT-ID-REQUIRED)
	// warning: messages.1.tool_calls.1: tool call without an id; wrote id "call_1_1" (OAI-CC-RESULT-ID-REQUIRED)
	// warning: messages.2.tool_call_id: tool result without a call id; matched to id "call_1_0"
	// warning: messages.3.tool_call_id: tool result without a call id; matched to id "call_1_1"
}

// DecodeChatAfter decodes the next request of a conversation by what it
// adds: the second body holds only the messages after the first body's,
// and the request holds them all, the result named after the call the
// first body made.
func ExampleDecodeChatAfter() {
	first, err := openai.DecodeChat([]byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The next body repeats those two messages; a caller that saw the
	// bytes are the same sends only the rest of its array.
	next, err := openai.DecodeChatAfter(first, []byte(`{"model":"gpt-4o","messages":[{"role":"tool","tool_call_id":"call_1","content":"18C"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range next.Messages {
		fmt.Println(m.Role, len(m.Parts))
	}
	r := next.Messages[2].Parts[0].(llm.ToolResult)
	fmt.Println(r.Name, next.BodyPath("messages.2"))
	// Output:
	// user 1
	// assistant 1
	// tool 1
	// get_weather messages.2
}
