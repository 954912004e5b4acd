package llmtest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// anthropic is the Anthropic Messages API: POST /v1/messages.
var anthropic = &dialect{
	id:          transcript.Anthropic,
	authorized:  func(r *http.Request, key string) bool { return r.Header.Get("x-api-key") == key },
	failures:    anthropicFailures,
	errorBody:   anthropicErrorBody,
	check:       anthropicCheck,
	whole:       anthropicWhole,
	events:      anthropicEvents,
	streamError: anthropicStreamError,
}

type anthropicError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	RequestID string `json:"request_id,omitzero"`
}

func anthropicErrorType(status int) string {
	switch {
	case status == 429:
		return "rate_limit_error"
	case status == 401:
		return "authentication_error"
	case status == 403:
		return "permission_error"
	case status == 404:
		return "not_found_error"
	case status == 413:
		return "request_too_large"
	case status == 529:
		return "overloaded_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

func anthropicErrorBody(status int, code, message string, _ time.Duration) []byte {
	var e anthropicError
	e.Type, e.Error.Type, e.Error.Message, e.RequestID = "error", code, message, "req_011CLLMTEST"
	if code == "" {
		e.Error.Type = anthropicErrorType(status)
	}
	return marshal(e)
}

// anthropicFailures are the errors this provider answers with.
var anthropicFailures = failures{
	llm.RateLimited:   {429, "rate_limit_error", "This request would exceed the rate limit for your organization (llmtest) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."},
	llm.Overloaded:    {529, "overloaded_error", "Overloaded"},
	llm.ContextLength: {400, "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"},
	llm.Auth:          {401, "authentication_error", "invalid x-api-key"},
	"":                {400, "invalid_request_error", "Invalid request."},
}

func anthropicCheck(x *exchange) (string, string) {
	switch {
	case x.r.Header.Get("anthropic-version") == "":
		return "invalid_request_error", "anthropic-version: header is required"
	case x.opts.Model == "":
		return "invalid_request_error", "model: Field required"
	case x.opts.MaxTokens == nil:
		return "invalid_request_error", "max_tokens: Field required"
	}
	if n := countKey(x.body, "cache_control"); n > 4 {
		return "invalid_request_error", fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", n)
	}
	return "", ""
}

func anthropicStreamError(status int, code, message string) sse.Event {
	var e anthropicError
	e.Type, e.Error.Type, e.Error.Message = "error", code, message
	if code == "" {
		e.Error.Type = anthropicErrorType(status)
	}
	return sse.Event{Type: "error", Data: marshal(e)}
}

type antMessage struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []jsontext.Value `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        antUsage         `json:"usage"`
}

type antUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func newAntUsage(u llm.Usage) antUsage {
	return antUsage{InputTokens: max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens),
		CacheCreationInputTokens: u.CacheWriteTokens, CacheReadInputTokens: u.CacheReadTokens, OutputTokens: u.OutputTokens}
}

type antBlock struct {
	Type      string         `json:"type"`
	Thinking  *string        `json:"thinking,omitzero"`
	Signature *string        `json:"signature,omitzero"`
	Text      *string        `json:"text,omitzero"`
	ID        string         `json:"id,omitzero"`
	Name      string         `json:"name,omitzero"`
	Input     jsontext.Value `json:"input,omitzero"`
}

// antBlocks returns the answer's content blocks, whole.
func (x *exchange) antBlocks() []antBlock {
	var blocks []antBlock
	if r := x.turn.Reasoning; r != "" {
		sig := "EqQBCkYIBhgCIkA" + strconv.Itoa(x.n)
		blocks = append(blocks, antBlock{Type: "thinking", Thinking: &r, Signature: &sig})
	}
	if t := x.text(); t != "" {
		blocks = append(blocks, antBlock{Type: "text", Text: &t})
	}
	for _, c := range x.calls("toolu_01LLMTEST") {
		in := jsontext.Value(c.Args)
		if !in.IsValid() {
			in = jsontext.Value("{}") // whole input is never invalid; only the stream is cut
		}
		blocks = append(blocks, antBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: in})
	}
	return blocks
}

func (x *exchange) antStop() string {
	switch x.finish() {
	case "length":
		return "max_tokens"
	case "tool_calls":
		return "tool_use"
	}
	return "end_turn"
}

func anthropicWhole(x *exchange) []byte {
	stop := x.antStop()
	m := antMessage{ID: x.s.id("msg_01LLMTEST"), Type: "message", Role: "assistant", Model: x.answerModel(x.opts.Model), Content: []jsontext.Value{},
		StopReason: &stop, Usage: newAntUsage(x.usage())}
	for _, b := range x.antBlocks() {
		m.Content = append(m.Content, marshal(b))
	}
	return marshal(m)
}

func anthropicEvents(x *exchange) ([]sse.Event, []sse.Event) {
	ev := func(typ string, v map[string]any) sse.Event {
		v["type"] = typ
		return sse.Event{Type: typ, Data: marshal(v)}
	}
	u := newAntUsage(x.usage())
	start := antMessage{ID: x.s.id("msg_01LLMTEST"), Type: "message", Role: "assistant", Model: x.answerModel(x.opts.Model), Content: []jsontext.Value{},
		Usage: antUsage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens, OutputTokens: 1}}
	evs := []sse.Event{ev("message_start", map[string]any{"message": start})}
	calls := x.calls("toolu_01LLMTEST")
	ci := 0
	for i, b := range x.antBlocks() {
		empty := ""
		switch b.Type {
		case "thinking":
			evs = append(evs, ev("content_block_start", map[string]any{"index": i, "content_block": antBlock{Type: "thinking", Thinking: &empty, Signature: &empty}}))
			for _, f := range chunks(*b.Thinking, x.turn.Chunk) {
				evs = append(evs, ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": f}}))
			}
			evs = append(evs, ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "signature_delta", "signature": *b.Signature}}))
		case "text":
			evs = append(evs, ev("content_block_start", map[string]any{"index": i, "content_block": antBlock{Type: "text", Text: &empty}}))
			if i == 0 {
				evs = append(evs, ev("ping", map[string]any{}))
			}
			for _, f := range chunks(*b.Text, x.turn.Chunk) {
				evs = append(evs, ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": f}}))
			}
		case "tool_use":
			args := calls[ci].Args // the arguments as streamed: cut off for LengthMidCall
			ci++
			evs = append(evs, ev("content_block_start", map[string]any{"index": i, "content_block": antBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: jsontext.Value("{}")}}))
			evs = append(evs, ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": ""}}))
			for _, f := range chunks(args, x.turn.Chunk) {
				evs = append(evs, ev("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": f}}))
			}
		}
		evs = append(evs, ev("content_block_stop", map[string]any{"index": i}))
	}
	stop := x.antStop()
	last := []sse.Event{
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": u.OutputTokens}}),
		ev("message_stop", map[string]any{}),
	}
	return evs, last
}
