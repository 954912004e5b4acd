package gateway

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// A history is a classic broken conversation: what agent frameworks send
// after a crash, a retry or a trimmed context.
type history struct {
	name string
	msgs []llm.Message
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: jsontext.Value(args)}
}

func result(id, name, text string) llm.ToolResult {
	return llm.ToolResult{CallID: id, Name: name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: text}}}
}

// brokenHistories are the five classic broken histories.
func brokenHistories() []history {
	q := llm.User("What is the weather in Paris and in Rome?")
	two := llm.Assistant(call("call_1", "get_weather", `{"city":"Paris"}`), call("call_2", "get_weather", `{"city":"Rome"}`))
	r1, r2 := result("call_1", "get_weather", "sunny, 21 C"), result("call_2", "get_weather", "rain, 14 C")
	return []history{
		{"orphan-result", []llm.Message{q, llm.Assistant(llm.Text{Text: "Let me check."}), llm.Tool(r1), llm.User("And?")}},
		{"dangling-call", []llm.Message{q, two, llm.Tool(r1), llm.User("And?")}},
		{"results-out-of-order", []llm.Message{q, two, llm.Tool(r1), llm.Assistant(llm.Text{Text: "Paris is sunny."}), llm.Tool(r2), llm.User("And?")}},
		{"result-after-user", []llm.Message{q, llm.Assistant(call("call_1", "get_weather", `{"city":"Paris"}`)), llm.User("Hurry up."), llm.Tool(r1), llm.User("And?")}},
		{"duplicate-id", []llm.Message{q, llm.Assistant(call("call_1", "get_weather", `{"city":"Paris"}`), call("call_1", "get_weather", `{"city":"Rome"}`)), llm.Tool(r1, result("call_1", "get_weather", "rain, 14 C")), llm.User("And?")}},
	}
}

// body encodes msgs as a request body of dialect d, with the fields the
// provider requires.
func body(t testing.TB, d transcript.Dialect, msgs []llm.Message, stream bool) []byte {
	t.Helper()
	b, err := wire.New(d, transcript.Request{Messages: msgs}, false)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var head string
	switch d {
	case transcript.OpenAIChat:
		head = `"model":"gpt-4.1",`
	case transcript.OpenAIResponses:
		head = `"model":"gpt-4.1",`
	case transcript.Anthropic:
		head = `"model":"claude-sonnet-4-5",`
		if !bytes.Contains(out, []byte(`"max_tokens"`)) {
			head += `"max_tokens":1024,`
		}
	}
	if stream && d != transcript.Gemini {
		head += `"stream":true,`
	}
	if !bytes.HasPrefix(out, []byte("{")) {
		t.Fatalf("encoded body is not an object: %s", out)
	}
	return append([]byte("{"+head), out[1:]...)
}
