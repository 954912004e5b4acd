package anthropic

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// DefaultBaseURL is the Anthropic API's base URL, used when
// Config.BaseURL is empty; requests go to {BaseURL}/v1/messages.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultVersion is the anthropic-version header sent when Config.Version
// is empty.
const DefaultVersion = "2023-06-01"

// DefaultMaxTokens is the max_tokens sent when neither the request nor
// Config.MaxTokens sets one; the Messages API requires it.
const DefaultMaxTokens = 8192

// Config configures a [Client]: the settings every client shares, and
// Anthropic's own. A nil *Config, and each zero field, mean the documented
// default.
type Config struct {
	// Options are where the API is, the key, the timeouts and the
	// retries. BaseURL "" means [DefaultBaseURL]; APIKey is sent as the
	// x-api-key header, none when "".
	provider.Options
	// Version is the anthropic-version header; "" means [DefaultVersion].
	Version string
	// Beta lists the anthropic-beta features to enable.
	Beta []string
	// MaxTokens is the max_tokens of a request that sets no
	// MaxOutputTokens; 0 means [DefaultMaxTokens].
	MaxTokens int
	// NoCache leaves out the cache_control breakpoints the client
	// otherwise sets (see [Client]).
	NoCache bool
	// Fields are extra top-level fields for every request body, written
	// verbatim (metadata, top_k, service_tier, ...). Their keys must not be
	// ones the client writes.
	Fields []Field
}

// Client is an [llm.Model] served by the Anthropic Messages API
// (POST {BaseURL}/v1/messages). Requests are written by [Encode]; answers
// are read as server-sent events, or whole with Config.NoStream.
//
// Unless Config.NoCache, every request marks prompt-cache breakpoints
// ("cache_control": {"type": "ephemeral"}) on the system prompt, the last
// tool definition and the last block of each of the two newest user
// turns (the newest tool results, and the ones before them, where the
// previous request's cache ends): four, the most the API accepts. A long
// loop then pays for its history once and reads it from the cache on
// every later turn.
//
// llm.Request.Effort turns extended thinking on, with a budget of 1024
// (minimal), 2048 (low), 8192 (medium) or 24576 (high) tokens; max_tokens
// is raised above the budget when needed. Thinking excludes a temperature
// and a forced tool choice, which the API rejects with it.
//
// A Client is safe for concurrent use.
type Client struct {
	model     string
	stream    bool
	maxTokens int
	cache     bool
	extra     []Field // Config.Fields
	c         *client.Client
}

var _ llm.Model = (*Client)(nil)

// written are the fields the client writes itself.
var written = []string{"model", "max_tokens", "system", "messages", "tools", "stream", "temperature", "tool_choice", "thinking"}

// NewClient returns a client of the Messages API for model
// ("claude-sonnet-4-5", ...). A nil cfg means the defaults.
func NewClient(model string, cfg *Config) (*Client, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("anthropic messages: no model name")
	}
	cc, err := client.Open("anthropic messages", cfg.Options, DefaultBaseURL, &anthropicErrors)
	if err != nil {
		return nil, err
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic messages: MaxTokens %d is negative", cfg.MaxTokens)
	}
	if err := client.CheckFields(cfg.Fields, func(f Field) (string, []byte) { return f.Key, f.Value }, written...); err != nil {
		return nil, fmt.Errorf("anthropic messages: %w", err)
	}
	h := cc.Header()
	if !cfg.NoStream {
		h.Set("Accept", "text/event-stream")
	}
	h.Set("anthropic-version", cmp.Or(cfg.Version, DefaultVersion))
	if len(cfg.Beta) > 0 {
		h.Set("anthropic-beta", strings.Join(cfg.Beta, ","))
	}
	if cfg.APIKey != "" {
		h.Set("x-api-key", cfg.APIKey)
	}
	return &Client{model: model, stream: !cfg.NoStream, maxTokens: cmp.Or(cfg.MaxTokens, DefaultMaxTokens), cache: !cfg.NoCache,
		extra: cfg.Fields, c: cc}, nil
}

// Name returns the model the client calls.
func (c *Client) Name() string { return c.model }

// Dialect returns "anthropic".
func (c *Client) Dialect() string { return string(Dialect) }

// Stream sends req and yields the answer's events; see [llm.Model].
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return c.c.Post(ctx, "/v1/messages", func() ([]byte, error) { return c.body(req) },
		func() client.Decoder { return newMessageReader().decode })
}

// budgets are the thinking budgets of the efforts.
var budgets = map[llm.Effort]int{llm.EffortMinimal: 1024, llm.EffortLow: 2048, llm.EffortMedium: 8192, llm.EffortHigh: 24576}

// body writes the request body for req.
func (c *Client) body(req *llm.Request) ([]byte, error) {
	r, err := c.request(req)
	if err != nil {
		return nil, err
	}
	body, _, err := Encode(r)
	if err != nil {
		return nil, fmt.Errorf("anthropic messages: %w", err)
	}
	if c.cache {
		if body, err = markCache(body); err != nil {
			return nil, fmt.Errorf("anthropic messages: cache breakpoints: %w", err)
		}
	}
	return body, nil
}

// request returns the codec's Request for req: its messages and tools,
// and the fields the client writes.
func (c *Client) request(req *llm.Request) (*Request, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("anthropic messages: %w", err)
	}
	maxTokens := req.MaxOutputTokens
	if maxTokens == 0 {
		maxTokens = c.maxTokens
	}
	budget := budgets[req.Effort]
	if budget > 0 {
		switch {
		case req.Temperature != nil:
			return nil, fmt.Errorf("anthropic messages: a temperature cannot be set with extended thinking (reasoning effort %s)", req.Effort)
		case req.ToolChoice.Mode == llm.ToolRequired || req.ToolChoice.Name != "":
			return nil, fmt.Errorf("anthropic messages: extended thinking (reasoning effort %s) cannot be combined with a forced tool choice", req.Effort)
		}
		maxTokens = max(maxTokens, budget+4096)
	}
	fields := []Field{{Key: "model", Value: jsonStr(c.model)}, {Key: "max_tokens", Value: jsontext.Value(strconv.Itoa(maxTokens))}}
	if c.stream {
		fields = append(fields, Field{Key: "stream", Value: jsontext.Value("true")})
	}
	if req.Temperature != nil {
		fields = append(fields, Field{Key: "temperature", Value: jsontext.Value(strconv.FormatFloat(*req.Temperature, 'g', -1, 64))})
	}
	if tc := toolChoices.Of(req); tc != "" {
		fields = append(fields, Field{Key: "tool_choice", Value: jsontext.Value(tc)})
	}
	if budget > 0 {
		fields = append(fields, Field{Key: "thinking", Value: jsontext.Value(`{"type":"enabled","budget_tokens":` + strconv.Itoa(budget) + `}`)})
	}
	fields = append(fields, c.extra...)
	return &Request{Messages: req.Messages, Tools: req.Tools, Thinking: budget > 0, Fields: fields}, nil
}

func jsonStr(s string) jsontext.Value {
	b := codec.AppendString(nil, s)
	return b
}

// toolChoices are the values of tool_choice.
var toolChoices = client.ToolChoices{Named: `{"type":"tool","name":%s}`, None: `{"type":"none"}`, Required: `{"type":"any"}`}

// anthropicErrors reads the Messages API's error body,
// {"type": "error", "error": {"type", "message"}}.
var anthropicErrors = client.Errors{
	Provider:      "Anthropic",
	Parse:         parseError,
	ContextLength: regexp.MustCompile(`(?i)prompt is too long|context window|context length|input length and .max_tokens. exceed|too many tokens`),
	Kinds: map[string]llm.ErrorKind{
		"rate_limit_error":     llm.RateLimited,
		"overloaded_error":     llm.Overloaded,
		"api_error":            llm.Overloaded,
		"authentication_error": llm.Auth,
		"permission_error":     llm.Auth,
		"request_too_large":    llm.ContextLength,
	},
}

func parseError(body []byte) (code, message string, _ time.Duration, ok bool) {
	var e struct {
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if client.Unmarshal(body, &e) != nil || e.Error == nil {
		return "", "", 0, false
	}
	return e.Error.Type, e.Error.Message, 0, e.Error.Type != "" || e.Error.Message != ""
}
