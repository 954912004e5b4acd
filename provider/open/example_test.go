package open_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/open"
)

// A model opened from its name, as an agent file or a flag gives it; the
// conformance server stands in for Anthropic, and answers the first
// attempt with 429, which the client retries. The key is the caller's to
// find: the library never reads the environment.
func ExampleModel() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Error: &llmtest.Error{Kind: llm.RateLimited}},
		llmtest.Turn{Text: "Bonjour !"})
	defer srv.Close()

	model, err := open.Model("anthropic:claude-sonnet-4-5", &provider.Options{
		BaseURL:      srv.URL, // "" is api.anthropic.com
		APIKey:       "sk-ant-...",
		Timeout:      time.Minute,
		MaxRetries:   3,
		RetryBackoff: time.Millisecond,
	})
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
	fmt.Println(model.Dialect(), resp.Message.Text(), len(srv.Requests()), "requests")
	// Output:
	// anthropic Bonjour ! 2 requests
}

// A name that cannot be opened says what is wrong and how to fix it.
func ExampleModel_error() {
	_, err := open.Model("opneai:gpt-4o", nil)
	fmt.Println(err)
	fmt.Println(errors.Is(err, open.ErrUnknownProvider))
	// Output:
	// open "opneai:gpt-4o": unknown provider "opneai": want openai, openai-responses, anthropic or gemini (did you mean openai?)
	// true
}
