package anthropic_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// A Messages API client; the conformance server stands in for Anthropic,
// and answers the first attempt with 529 overloaded, which the client
// retries.
func ExampleNewClient() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Error: &llmtest.Error{Kind: llm.Overloaded}},
		llmtest.Turn{Text: "Bonjour !"})
	defer srv.Close()

	model, err := anthropic.NewClient("claude-sonnet-4-5", &anthropic.Config{Options: provider.Options{BaseURL: srv.URL, APIKey: "sk-ant-..."}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := llm.Generate(context.Background(), model, &llm.Request{
		Messages: []llm.Message{llm.System("Answer in French."), llm.User("Hello!")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Message.Text(), len(srv.Requests()), "requests")
	// Output:
	// Bonjour ! 2 requests
}

// Provider failures are classified once: a long history is ContextLength,
// whatever words the provider used.
func ExampleClient_contextLength() {
	srv := llmtest.NewServer(nil, llmtest.Turn{Error: &llmtest.Error{Kind: llm.ContextLength}})
	defer srv.Close()
	model, _ := anthropic.NewClient("claude-sonnet-4-5", &anthropic.Config{Options: provider.Options{BaseURL: srv.URL}})

	_, err := llm.Generate(context.Background(), model, &llm.Request{Messages: []llm.Message{llm.User("…")}})
	fmt.Println(errors.Is(err, llm.ContextLength))
	fmt.Println(err)
	// Output:
	// true
	// anthropic messages: context length exceeded (HTTP 400 invalid_request_error): prompt is too long: 208310 tokens > 200000 maximum
}
