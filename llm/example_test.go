package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
)

// Fragments of two parallel tool calls arrive interleaved, the way OpenAI
// streams them: routed by index, id and name only on the first fragment.
func ExampleAccumulator() {
	var acc llm.Accumulator
	for _, ev := range []llm.Event{
		llm.TextDelta{Text: "Let me check."},
		llm.ToolCallDelta{Index: 0, ID: "call_1", Name: "get_weather"},
		llm.ToolCallDelta{Index: 1, ID: "call_2", Name: "get_time"},
		llm.ToolCallDelta{Index: 0, Arguments: `{"city":`},
		llm.ToolCallDelta{Index: 1, Arguments: `{"tz":"Europe/Paris"}`},
		llm.ToolCallDelta{Index: 0, Arguments: `"Paris"}`},
		llm.Finish{Reason: llm.FinishToolCalls},
	} {
		acc.Add(ev)
	}
	msg, err := acc.Message()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.Text())
	for _, c := range msg.ToolCalls() {
		fmt.Printf("%s %s %s\n", c.ID, c.Name, c.Input)
	}
	// Output:
	// Let me check.
	// call_1 get_weather {"city":"Paris"}
	// call_2 get_time {"tz":"Europe/Paris"}
}

// A stream cut off by the token limit leaves a call whose arguments end
// mid-JSON: it is reported, not passed on as if it were whole.
func ExampleAccumulator_incomplete() {
	var acc llm.Accumulator
	acc.Add(llm.ToolCallDelta{Index: 0, ID: "call_1", Name: "write_file", Arguments: `{"path":"a.txt","text":"Hel`})
	acc.Add(llm.Finish{Reason: llm.FinishLength})
	_, err := acc.Message()
	var ie *llm.IncompleteError
	if errors.As(err, &ie) {
		fmt.Println(ie.Calls[0].ID, ie.Calls[0].Problem)
	}
	// Output:
	// call_1 arguments end mid-JSON
}

func ExampleConversation() {
	conv := llm.Conversation{Messages: []llm.Message{
		llm.User("Weather in Paris?"),
		llm.Assistant(llm.ToolCall{ID: "call_1", Name: "get_weather", Input: jsontext.Value(`{"city":"Paris"}`)}),
		llm.Tool(llm.ToolResult{CallID: "call_1", Name: "get_weather", Status: llm.StatusSuccess,
			Content: []llm.Part{llm.Text{Text: "18°C, sunny"}}}),
	}}
	b, _ := json.Marshal(conv)
	fmt.Println(string(b))

	var back llm.Conversation
	err := json.Unmarshal([]byte(`{"version":1,"messages":[{"role":"tool","parts":[{"type":"tool_result","name":"get_weather","status":"success"}]}]}`), &back)
	fmt.Println(err)
	// Output:
	// {"version":1,"messages":[{"role":"user","parts":[{"type":"text","text":"Weather in Paris?"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","input":{"city":"Paris"}}]},{"role":"tool","parts":[{"type":"tool_result","call_id":"call_1","name":"get_weather","status":"success","content":[{"type":"text","text":"18°C, sunny"}]}]}]}
	// llm: decode conversation: messages[0].parts[0].call_id: missing: a tool result must name the call it answers
}

// echo is a Model that answers every request with the text of its last
// message.
type echo struct{}

func (echo) Dialect() string { return "" }

func (echo) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		last := req.Messages[len(req.Messages)-1]
		_ = yield(llm.TextDelta{Text: "you said: " + last.Text()}, nil) &&
			yield(llm.Usage{InputTokens: 3, OutputTokens: 4}, nil) &&
			yield(llm.Finish{Reason: llm.FinishStop}, nil)
	}
}

// Generate is for callers that do not stream: it ranges over the model's
// events and returns the whole answer.
func ExampleGenerate() {
	resp, err := llm.Generate(context.Background(), echo{}, &llm.Request{Messages: []llm.Message{llm.User("hello")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Message.Text())
	fmt.Println(resp.Finish.Reason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// you said: hello
	// stop 3 4
}

// Provider failures are classified once; compare kinds with errors.Is.
func ExampleError() {
	var err error = fmt.Errorf("turn 4: %w", &llm.Error{Kind: llm.RateLimited, Op: "openai chat", StatusCode: 429, RetryAfter: 2 * time.Second})
	if errors.Is(err, llm.RateLimited) {
		var e *llm.Error
		errors.As(err, &e)
		fmt.Println("wait", e.RetryAfter)
	}
	fmt.Println(err)
	// Output:
	// wait 2s
	// turn 4: openai chat: rate limited (HTTP 429) (retry after 2s)
}
