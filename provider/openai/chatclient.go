package openai

import (
	"context"
	"fmt"
	"iter"
	"strconv"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/transcript"
)

// Chat is an [llm.Model] served by the Chat Completions API
// (POST {BaseURL}/chat/completions), OpenAI's or any compatible server's.
// Requests are written by [EncodeChat]; answers are read as server-sent
// events, or whole with Config.NoStream.
//
// Compatible servers misbehave in known ways, and Chat reads each one
// into a usable answer: every parallel call at index 0, calls without ids
// (they get ids made from the history, the same on every replay), the same
// id on two calls (the second gets a variant), arguments sent as a JSON
// object instead of a string. An empty answer and a call cut off by the
// token limit reach [llm.Accumulator.Response] as [llm.ErrEmptyMessage]
// and [*llm.IncompleteError], for the caller to handle.
//
// A Chat is safe for concurrent use.
type Chat struct {
	t         *clientCore
	maxTokens string
}

var _ llm.Model = (*Chat)(nil)

// chatPath is where Chat Completions requests go, under Config.BaseURL.
const chatPath = "/chat/completions"

// NewChat returns a client of the Chat Completions API for model
// ("gpt-4.1", "deepseek-chat", "qwen3:8b", ...). A nil cfg means the
// defaults: OpenAI's URL, no API key.
func NewChat(model string, cfg *Config) (*Chat, error) {
	mt := "max_completion_tokens"
	if cfg != nil && cfg.MaxTokensField != "" {
		mt = cfg.MaxTokensField
		if mt != "max_completion_tokens" && mt != "max_tokens" {
			return nil, fmt.Errorf("openai chat: MaxTokensField %q is neither max_completion_tokens nor max_tokens", mt)
		}
	}
	t, err := newClientCore("openai chat", model, chatPath, cfg,
		[]string{"model", "messages", "tools", "stream", "stream_options", "temperature", mt, "tool_choice", "reasoning_effort"})
	if err != nil {
		return nil, err
	}
	return &Chat{t: t, maxTokens: mt}, nil
}

// Name returns the model the client calls.
func (c *Chat) Name() string { return c.t.model }

// Dialect returns "openai-chat".
func (c *Chat) Dialect() string { return string(transcript.OpenAIChat) }

// Stream sends req and yields the answer's events; see [llm.Model].
func (c *Chat) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return c.t.c.Post(ctx, chatPath, func() ([]byte, error) { return c.body(req) },
		func() client.Decoder { return newChatReader(req.Messages).decode })
}

// body writes the request body for req.
func (c *Chat) body(req *llm.Request) ([]byte, error) {
	fields, err := c.fields(req)
	if err != nil {
		return nil, err
	}
	body, _, err := EncodeChat(&ChatRequest{Messages: req.Messages, Tools: req.Tools, Fields: fields})
	if err != nil {
		return nil, fmt.Errorf("openai chat: %w", err)
	}
	return body, nil
}

// fields returns the top-level fields of the request body for req, other
// than messages and tools, in the order they are written.
func (c *Chat) fields(req *llm.Request) ([]Field, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("openai chat: %w", err)
	}
	fields := []Field{strField("model", c.t.model)}
	if c.t.stream {
		fields = append(fields, rawField("stream", "true"), rawField("stream_options", `{"include_usage":true}`))
	}
	if req.Temperature != nil {
		fields = append(fields, rawField("temperature", strconv.FormatFloat(*req.Temperature, 'g', -1, 64)))
	}
	if req.MaxOutputTokens > 0 {
		fields = append(fields, rawField(c.maxTokens, strconv.Itoa(req.MaxOutputTokens)))
	}
	if tc := chatChoices.Of(req); tc != "" {
		fields = append(fields, rawField("tool_choice", tc))
	}
	if req.Effort != "" {
		fields = append(fields, strField("reasoning_effort", string(req.Effort)))
	}
	return append(fields, c.t.fields...), nil
}

// chatChoices are the values of tool_choice in Chat Completions;
// respChoices in Responses, which names a forced tool one level up.
var (
	chatChoices = client.ToolChoices{Named: `{"type":"function","function":{"name":%s}}`, None: `"none"`, Required: `"required"`}
	respChoices = client.ToolChoices{Named: `{"type":"function","name":%s}`, None: `"none"`, Required: `"required"`}
)

// chatFinishes are the finish reasons of Chat Completions (and of
// compatible servers); "stop" and the others not listed are stops.
var chatFinishes = client.Finishes{
	"tool_calls":     llm.FinishToolCalls,
	"function_call":  llm.FinishToolCalls,
	"length":         llm.FinishLength,
	"max_tokens":     llm.FinishLength,
	"content_filter": llm.FinishContentFilter,
}
