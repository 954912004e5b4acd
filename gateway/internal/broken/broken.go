// Package broken holds the classic broken conversation histories that
// agent frameworks send after a crash, a retry or a trimmed context, as
// request bodies of each dialect: what the gateway's tests, and the tests
// of the official clients in front of it, send.
package broken

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// A History is a named conversation.
type History struct {
	Name     string
	Messages []llm.Message
}

// Call is a tool call.
func Call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: jsontext.Value(args)}
}

// Result is a successful tool result.
func Result(id, name, text string) llm.ToolResult {
	return llm.ToolResult{CallID: id, Name: name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: text}}}
}

// Histories returns the five classic broken histories: an orphan tool
// result, a dangling call, results out of order (one after the next
// assistant message), a result after a user message, a duplicate id.
// A dialect may accept some of them (Responses takes a result anywhere
// after its call; Gemini has no required ids).
func Histories() []History {
	q := llm.User("What is the weather in Paris and in Rome?")
	two := llm.Assistant(Call("call_1", "get_weather", `{"city":"Paris"}`), Call("call_2", "get_weather", `{"city":"Rome"}`))
	r1, r2 := Result("call_1", "get_weather", "sunny, 21 C"), Result("call_2", "get_weather", "rain, 14 C")
	return []History{
		{"orphan-result", []llm.Message{q, llm.Assistant(llm.Text{Text: "Let me check."}), llm.Tool(r1), llm.User("And?")}},
		{"dangling-call", []llm.Message{q, two, llm.Tool(r1), llm.User("And?")}},
		{"results-out-of-order", []llm.Message{q, two, llm.Tool(r1), llm.Assistant(llm.Text{Text: "Paris is sunny."}), llm.Tool(r2), llm.User("And?")}},
		{"result-after-user", []llm.Message{q, llm.Assistant(Call("call_1", "get_weather", `{"city":"Paris"}`)), llm.User("Hurry up."), llm.Tool(r1), llm.User("And?")}},
		{"duplicate-id", []llm.Message{q, llm.Assistant(Call("call_1", "get_weather", `{"city":"Paris"}`), Call("call_1", "get_weather", `{"city":"Rome"}`)), llm.Tool(r1, Result("call_1", "get_weather", "rain, 14 C")), llm.User("And?")}},
	}
}

// OK is a well-formed history with one call and its result, whose text
// is resultText.
func OK(resultText string) []llm.Message {
	return []llm.Message{
		llm.User("What is the weather in Paris?"),
		llm.Assistant(Call("call_1", "get_weather", `{"city":"Paris"}`)),
		llm.Tool(Result("call_1", "get_weather", resultText)),
	}
}

// Body encodes msgs as a request body of dialect d with the fields the
// provider requires (a model; Anthropic's max_tokens), and "stream": true
// when stream is set (Gemini streams by its path instead).
func Body(d transcript.Dialect, msgs []llm.Message, stream bool) ([]byte, error) {
	b, err := wire.New(d, transcript.Request{Messages: msgs}, false)
	if err != nil {
		return nil, err
	}
	out, _, err := b.Encode()
	if err != nil {
		return nil, err
	}
	var head string
	switch d {
	case transcript.OpenAIChat, transcript.OpenAIResponses:
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
		return nil, fmt.Errorf("broken: the encoded body is not an object: %.100s", out)
	}
	return append([]byte("{"+head), out[1:]...), nil
}
