package llmtest

import (
	"net/http"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// chat is OpenAI Chat Completions: POST /v1/chat/completions.
var chat = &dialect{
	id:         transcript.OpenAIChat,
	authorized: bearer,
	failures:   chatFailures,
	errorBody:  openaiErrorBody,
	check:      chatCheck,
	whole:      chatWhole,
	events:     chatEvents,
}

// bearer reports whether the request carries key as OpenAI takes it:
// Authorization: Bearer.
func bearer(r *http.Request, key string) bool {
	return r.Header.Get("Authorization") == "Bearer "+key
}

// openaiError is OpenAI's error body.
type openaiError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// openaiErrorBody is OpenAI's error body; a retry delay is said in the
// headers only.
func openaiErrorBody(status int, code, message string, _ time.Duration) []byte {
	var e openaiError
	e.Error.Message = message
	switch {
	case status == http.StatusTooManyRequests:
		e.Error.Type = "requests"
	case status == http.StatusUnauthorized:
		e.Error.Type = "invalid_request_error"
	case status >= 500:
		e.Error.Type = "server_error"
	default:
		e.Error.Type = "invalid_request_error"
	}
	if code != "" {
		e.Error.Code = &code
	}
	if strings.HasPrefix(message, "messages") || strings.HasPrefix(message, "input") {
		param := message[:strings.IndexAny(message+":", ": ")]
		e.Error.Param = &param
	}
	return marshal(e)
}

// chatFailures are the errors this provider answers with.
var chatFailures = failures{
	llm.RateLimited:   {429, "rate_limit_exceeded", "Rate limit reached for gpt-4.1 in organization org-llmtest on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s. Visit https://platform.openai.com/account/rate-limits to learn more."},
	llm.Overloaded:    {500, "", "The server had an error while processing your request. Sorry about that!"},
	llm.ContextLength: {400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages."},
	llm.Auth:          {401, "invalid_api_key", "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys."},
	"":                {400, "", "Invalid request."},
}

func chatCheck(x *exchange) (string, string) {
	if x.opts.Model == "" {
		return "", "you must provide a model parameter"
	}
	return "", ""
}

type chatCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	Usage             *chatUsage   `json:"usage,omitzero"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type chatChoice struct {
	Index        int          `json:"index"`
	Message      *chatMessage `json:"message,omitzero"`
	Delta        *chatMessage `json:"delta,omitzero"`
	Logprobs     *struct{}    `json:"logprobs"`
	FinishReason *string      `json:"finish_reason"`
}

type chatMessage struct {
	Role             string         `json:"role,omitzero"`
	Content          *string        `json:"content,omitzero"`
	ReasoningContent string         `json:"reasoning_content,omitzero"`
	Refusal          *string        `json:"refusal,omitzero"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitzero"`
}

type chatToolCall struct {
	Index    *int   `json:"index,omitzero"`
	ID       string `json:"id,omitzero"`
	Type     string `json:"type,omitzero"`
	Function struct {
		Name      string         `json:"name,omitzero"`
		Arguments jsontext.Value `json:"arguments"`
	} `json:"function"`
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func newChatUsage(u llm.Usage) *chatUsage {
	c := &chatUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	c.PromptTokensDetails.CachedTokens = u.CacheReadTokens
	c.CompletionTokensDetails.ReasoningTokens = u.ReasoningTokens
	return c
}

// jsonString returns s as a JSON string value.
func jsonString(s string) jsontext.Value {
	return jsontext.Value(marshal(s))
}

// args returns a call's arguments as sent: a string, or the object itself
// for ArgsAsObject (when it is an object: a halved one cannot be).
func (x *exchange) chatArgs(args string) jsontext.Value {
	if x.turn.Misbehave&ArgsAsObject != 0 && jsontext.Value(args).IsValid() {
		return jsontext.Value(args)
	}
	return jsonString(args)
}

// chatCalls returns the calls with the Chat misbehaviours applied to
// their ids.
func (x *exchange) chatCalls() []Call {
	calls := x.calls("call_")
	for i := range calls {
		switch {
		case x.turn.Misbehave&NoCallIDs != 0:
			calls[i].ID = ""
		case x.turn.Misbehave&DuplicateIDs != 0:
			calls[i].ID = calls[0].ID
		}
	}
	return calls
}

func (x *exchange) chatIndex(i int) *int {
	if x.turn.Misbehave&IndexZero != 0 {
		i = 0
	}
	return &i
}

func chatWhole(x *exchange) []byte {
	text := x.text()
	msg := &chatMessage{Role: "assistant", ReasoningContent: x.turn.Reasoning}
	if text != "" || x.turn.Misbehave&EmptyMessage != 0 {
		msg.Content = &text
	}
	for _, c := range x.chatCalls() {
		tc := chatToolCall{ID: c.ID, Type: "function"}
		tc.Function.Name = c.Name
		tc.Function.Arguments = x.chatArgs(c.Args)
		msg.ToolCalls = append(msg.ToolCalls, tc)
	}
	finish := x.finish()
	return marshal(chatCompletion{
		ID: x.s.id("chatcmpl-"), Object: "chat.completion", Created: 1700000000, Model: x.answerModel(x.opts.Model),
		Choices: []chatChoice{{Message: msg, FinishReason: &finish}},
		Usage:   newChatUsage(x.usage()), SystemFingerprint: "fp_llmtest",
	})
}

func chatEvents(x *exchange) ([]sse.Event, []sse.Event) {
	id := x.s.id("chatcmpl-")
	chunk := func(delta *chatMessage, finish *string) sse.Event {
		return sse.Event{Data: marshal(chatCompletion{ID: id, Object: "chat.completion.chunk", Created: 1700000000, Model: x.answerModel(x.opts.Model),
			Choices: []chatChoice{{Delta: delta, FinishReason: finish}}, SystemFingerprint: "fp_llmtest"})}
	}
	empty := ""
	evs := []sse.Event{chunk(&chatMessage{Role: "assistant", Content: &empty, Refusal: nil}, nil)}
	if x.turn.Reasoning != "" {
		for _, f := range chunks(x.turn.Reasoning, x.turn.Chunk) {
			evs = append(evs, chunk(&chatMessage{ReasoningContent: f}, nil))
		}
	}
	if text := x.text(); text != "" {
		for _, f := range chunks(text, x.turn.Chunk) {
			evs = append(evs, chunk(&chatMessage{Content: &f}, nil))
		}
	}
	// Each call: a first fragment with its id and name, then its
	// arguments in fragments (or whole, as an object, for ArgsAsObject).
	var perCall [][]chatToolCall
	for i, c := range x.chatCalls() {
		first := chatToolCall{Index: x.chatIndex(i), ID: c.ID, Type: "function"}
		first.Function.Name = c.Name
		if x.turn.Misbehave&ArgsAsObject != 0 && jsontext.Value(c.Args).IsValid() {
			first.Function.Arguments = jsontext.Value(c.Args)
			perCall = append(perCall, []chatToolCall{first})
			continue
		}
		first.Function.Arguments = jsonString("")
		frags := []chatToolCall{first}
		for _, f := range chunks(c.Args, x.turn.Chunk) {
			tc := chatToolCall{Index: x.chatIndex(i)}
			tc.Function.Arguments = jsonString(f)
			frags = append(frags, tc)
		}
		perCall = append(perCall, frags)
	}
	for _, tc := range order(perCall, x.turn.Interleave) {
		evs = append(evs, chunk(&chatMessage{ToolCalls: []chatToolCall{tc}}, nil))
	}
	finish := x.finish()
	last := []sse.Event{chunk(&chatMessage{}, &finish)}
	if x.opts.StreamOptions.IncludeUsage {
		last = append(last, sse.Event{Data: marshal(chatCompletion{ID: id, Object: "chat.completion.chunk", Created: 1700000000, Model: x.answerModel(x.opts.Model),
			Choices: []chatChoice{}, Usage: newChatUsage(x.usage()), SystemFingerprint: "fp_llmtest"})})
	}
	last = append(last, sse.Event{Data: []byte("[DONE]")})
	return evs, last
}

// order returns the fragments of several calls one call after another,
// or interleaved round-robin.
func order[T any](perCall [][]T, interleave bool) []T {
	var out []T
	if !interleave {
		for _, frags := range perCall {
			out = append(out, frags...)
		}
		return out
	}
	for k := 0; ; k++ {
		more := false
		for _, frags := range perCall {
			if k < len(frags) {
				out = append(out, frags[k])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}
