package anthropic_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func result(id, text string) llm.ToolResult {
	return llm.ToolResult{CallID: id, Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: text}}}
}

func newClient(t *testing.T, srv *llmtest.Server, cfg anthropic.Config) *anthropic.Client {
	t.Helper()
	clienttest.OnServer(srv, &cfg.Options, "", "sk-ant-test")
	c, err := anthropic.NewClient("claude-sonnet-4-5", &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientAnswers(t *testing.T) {
	two := []llmtest.Call{{ID: "toolu_a", Name: "get_weather", Args: `{"city":"Paris"}`}, {ID: "toolu_b", Name: "get_weather", Args: `{"city":"北京"}`}}
	tests := []clienttest.Answer{
		{Name: "text", Turn: llmtest.Turn{Text: "Sunny, 18°C <ok>."}, Want: llm.Assistant(llm.Text{Text: "Sunny, 18°C <ok>."}), Finish: llm.FinishStop},
		{Name: "thinking, text and calls", Turn: llmtest.Turn{Reasoning: "Two cities.", Text: "Checking both.", Calls: two, Chunk: 3},
			Want: llm.Assistant(llm.Reasoning{Provider: "anthropic", Text: "Two cities.", Signature: "EqQBCkYIBhgCIkA1"}, llm.Text{Text: "Checking both."},
				clienttest.Call("toolu_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("toolu_b", "get_weather", `{"city":"北京"}`)),
			Finish: llm.FinishToolCalls},
		{Name: "empty message", Turn: llmtest.Turn{Text: "x", Misbehave: llmtest.EmptyMessage},
			Want: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{}}, Finish: llm.FinishStop, WantErr: llm.ErrEmptyMessage},
	}
	clienttest.Answers(t, tests, true, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
		return newClient(t, srv, anthropic.Config{Options: provider.Options{NoStream: noStream}})
	}, nil)
}

// TestClientMaxTokensMidCall: a stream cut by max_tokens inside a tool_use
// leaves a call the Accumulator reports as incomplete.
func TestClientMaxTokensMidCall(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{{ID: "toolu_a", Name: "get_weather", Args: `{"city":"Paris"}`}}, Misbehave: llmtest.LengthMidCall},
		llmtest.Turn{Text: "ok"})
	c := newClient(t, srv, anthropic.Config{})
	req := clienttest.Ask("Weather?")
	resp, err := llm.Generate(context.Background(), c, req)
	var ie *llm.IncompleteError
	if !errors.As(err, &ie) || ie.Finish.Reason != llm.FinishLength || ie.Calls[0].ID != "toolu_a" {
		t.Fatalf("Generate() error = %v, want an incomplete call cut by the token limit", err)
	}
	if got := string(resp.Message.ToolCalls()[0].Input); got != `{"city":` {
		t.Errorf("input = %s, want the fragment that arrived", got)
	}
	// Sent back with an error result, the cut-off call is accepted (its
	// input wrapped as {"_raw": ...}).
	failed := result("toolu_a", "the arguments were cut off by the token limit")
	failed.Status = llm.StatusError
	req.Messages = append(req.Messages, resp.Message, llm.Tool(failed))
	if _, err := llm.Generate(context.Background(), c, req); err != nil {
		t.Fatalf("next turn: %v", err)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, `"input":{"_raw":"{\"city\":"}`) {
		t.Errorf("next request = %s, want the cut-off input wrapped", body)
	}
}

// TestClientUsageAndCache: a long loop marks four breakpoints — system,
// tools, the newest tool results and the turn before — and reports cache
// reads in the usage.
func TestClientUsageAndCache(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "Done.", Usage: llm.Usage{InputTokens: 5000, OutputTokens: 7, CacheReadTokens: 4000, CacheWriteTokens: 900}})
	req := clienttest.Ask("Weather in Paris, then Rome?")
	req.Messages = append(req.Messages,
		llm.Assistant(clienttest.Call("toolu_1", "get_weather", `{"city":"Paris"}`)), llm.Tool(result("toolu_1", "18C")),
		llm.Assistant(clienttest.Call("toolu_2", "get_weather", `{"city":"Rome"}`)), llm.Tool(result("toolu_2", "21C")))
	resp, err := llm.Generate(context.Background(), newClient(t, srv, anthropic.Config{}), req)
	if err != nil {
		t.Fatal(err)
	}
	if want := (llm.Usage{InputTokens: 5000, OutputTokens: 7, CacheReadTokens: 4000, CacheWriteTokens: 900}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	body := string(srv.Requests()[0].Body)
	for _, want := range []string{
		`"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]`,
		`"input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"cache_control":{"type":"ephemeral"}}]`,
		`{"type":"tool_result","tool_use_id":"toolu_1","content":"18C","cache_control":{"type":"ephemeral"}}`,
		`{"type":"tool_result","tool_use_id":"toolu_2","content":"21C","cache_control":{"type":"ephemeral"}}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body = %s\nwant it to contain %s", body, want)
		}
	}
	if n := strings.Count(body, "cache_control"); n != 4 {
		t.Errorf("body has %d breakpoints, want 4", n)
	}

	srv = llmtest.NewServer(t, llmtest.Turn{Text: "Done."})
	if _, err := llm.Generate(context.Background(), newClient(t, srv, anthropic.Config{NoCache: true}), req); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[0].Body); strings.Contains(body, "cache_control") {
		t.Errorf("NoCache body = %s, want no breakpoints", body)
	}
}

func TestClientErrors(t *testing.T) {
	overloaded := llmtest.Turn{Error: &llmtest.Error{Kind: llm.Overloaded}}
	tests := []clienttest.Failure{
		{Name: "529 then success", Turns: []llmtest.Turn{overloaded, {Text: "ok"}}, Requests: 2, Text: "ok"},
		{Name: "429 with retry-after then success", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}}, {Text: "ok"}}, Requests: 2, Text: "ok"},
		{Name: "529 three times", Turns: []llmtest.Turn{overloaded, overloaded, overloaded}, Kind: llm.Overloaded, Requests: 3,
			Text: "anthropic messages: provider overloaded (HTTP 529 overloaded_error): Overloaded"},
		{Name: "context length", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.ContextLength}}}, Kind: llm.ContextLength, Requests: 1,
			Text: "anthropic messages: context length exceeded (HTTP 400 invalid_request_error): prompt is too long: 208310 tokens > 200000 maximum"},
		{Name: "overloaded right after message_start, then success", Turns: []llmtest.Turn{{Text: "lost", Error: &llmtest.Error{Kind: llm.Overloaded, InStream: true}}, {Text: "ok"}}, Requests: 2, Text: "ok"},
		{Name: "overloaded inside the stream", Turns: []llmtest.Turn{{Text: "partial", Error: &llmtest.Error{Kind: llm.Overloaded, InStream: true, After: 4}}}, Kind: llm.Overloaded, Requests: 1,
			Text: "anthropic messages: provider overloaded (overloaded_error): Overloaded"},
		{Name: "truncated stream", Turns: []llmtest.Turn{{Text: "This will be cut.", Misbehave: llmtest.Truncate}}, Kind: llm.Transport, Requests: 1,
			Text: "anthropic messages: transport failure: the stream ended before the answer did (no message_stop)"},
	}
	clienttest.Failures(t, tests, func(t *testing.T, srv *llmtest.Server) llm.Model { return newClient(t, srv, anthropic.Config{}) })
}

// TestClientAuth: a wrong key is an Auth error, not retried.
func TestClientAuth(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := newClient(t, srv, anthropic.Config{})
	srv.APIKey = "another"
	_, err := llm.Generate(context.Background(), c, clienttest.Ask("hi"))
	if !errors.Is(err, llm.Auth) || !strings.Contains(err.Error(), "invalid x-api-key") || len(srv.Requests()) != 1 {
		t.Fatalf("Generate() error = %v after %d requests, want one Auth error", err, len(srv.Requests()))
	}
}

func TestClientConfig(t *testing.T) {
	clienttest.BadConfigs(t, "NewClient", anthropic.NewClient, []clienttest.BadConfig[anthropic.Config]{
		{Model: "", Want: "no model name"},
		{Model: "m", Config: &anthropic.Config{Options: provider.Options{BaseURL: "ftp://x"}}, Want: `BaseURL "ftp://x" is not an http or https URL`},
		{Model: "m", Config: &anthropic.Config{Options: provider.Options{Timeout: -time.Second}}, Want: "Timeout is negative"},
		{Model: "m", Config: &anthropic.Config{Fields: []anthropic.Field{{Key: "max_tokens", Value: jsontext.Value(`1`)}}}, Want: `the field "max_tokens" in Fields is one the client writes itself`},
		{Model: "m", Config: &anthropic.Config{Fields: []anthropic.Field{{Key: "top_k", Value: jsontext.Value(`{`)}}}, Want: `the value of the field "top_k" in Fields is not JSON`},
		{Model: "m", Config: &anthropic.Config{MaxTokens: -1}, Want: "MaxTokens -1 is negative"},
	})
}

func TestClientToolChoice(t *testing.T) {
	tests := clienttest.ToolChoices(`"tool_choice":{"type":"tool","name":"get_weather"}`, `"tool_choice":{"type":"none"}`, `"tool_choice":{"type":"any"}`)
	clienttest.Bodies(t, tests, func(t *testing.T, srv *llmtest.Server) llm.Model { return newClient(t, srv, anthropic.Config{}) })
}
