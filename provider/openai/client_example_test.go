package openai_test

import (
	"context"
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
)

// A Chat client against any OpenAI-compatible server; here the
// conformance server stands in for it. llm.Generate ranges over the stream
// and returns the whole answer.
func ExampleNewChat() {
	srv := llmtest.NewServer(nil, llmtest.Turn{Calls: []llmtest.Call{{ID: "call_1", Name: "get_weather", Args: `{"city":"Paris"}`}}})
	defer srv.Close()

	model, err := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-..."}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := llm.Generate(context.Background(), model, &llm.Request{
		Messages: []llm.Message{llm.User("Weather in Paris?")},
		Tools:    []llm.ToolSpec{{Name: "get_weather", Description: "Current weather in a city."}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range resp.Message.ToolCalls() {
		fmt.Println(c.ID, c.Name, string(c.Input))
	}
	fmt.Println(resp.Finish.Reason)
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// tool_calls
}

// Streaming: text arrives in fragments, printed as it comes, while an
// Accumulator assembles the message.
func ExampleChat_Stream() {
	srv := llmtest.NewServer(nil, llmtest.Turn{Text: "It is sunny in Paris.", Chunk: 6})
	defer srv.Close()
	model, _ := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1"}})

	var acc llm.Accumulator
	for ev, err := range model.Stream(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("Weather?")}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if t, ok := ev.(llm.TextDelta); ok {
			fmt.Printf("[%s]", t.Text)
		}
		acc.Add(ev)
	}
	msg, _ := acc.Message()
	fmt.Println()
	fmt.Println(msg.Text())
	// Output:
	// [It is ][sunny ][in Par][is.]
	// It is sunny in Paris.
}

// With Store, the second turn sends only the tool result, after the
// stored response it continues (Request.Previous).
func ExampleNewResponses() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Calls: []llmtest.Call{{ID: "call_1", Name: "get_weather", Args: `{"city":"Paris"}`}}},
		llmtest.Turn{Text: "Sunny, 18°C."})
	defer srv.Close()
	model, _ := openai.NewResponses("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1"}, Store: true})

	req := &llm.Request{Messages: []llm.Message{llm.User("Weather in Paris?")}}
	resp, _ := llm.Generate(context.Background(), model, req)
	call := resp.Message.ToolCalls()[0]
	req.Messages = append(req.Messages, resp.Message, llm.Tool(llm.ToolResult{
		CallID: call.ID, Name: call.Name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18°C, sunny"}}}))
	// The server holds the question and its answer, stored as resp.ID.
	req.Previous = &llm.Previous{ID: resp.ID, Messages: 2}
	resp, _ = llm.Generate(context.Background(), model, req)
	fmt.Println(resp.Message.Text())
	fmt.Println(string(srv.Requests()[1].Body))
	// Output:
	// Sunny, 18°C.
	// {"model":"gpt-4.1","stream":true,"store":true,"input":[{"type":"function_call_output","call_id":"call_1","output":"18°C, sunny"}],"previous_response_id":"resp_1"}
}
