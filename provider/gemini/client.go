package gemini

import (
	"bytes"
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
)

// DefaultBaseURL is the Gemini API's base URL, used when Config.BaseURL is
// empty; requests go to {BaseURL}/models/{model}:streamGenerateContent.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// Config configures a [Client]: the settings every client shares, and
// Gemini's own. A nil *Config, and each zero field, mean the documented
// default.
type Config struct {
	// Options are where the API is, the key, the timeouts and the
	// retries. BaseURL "" means [DefaultBaseURL]; APIKey is sent as the
	// x-goog-api-key header, none when ""; NoStream calls generateContent
	// for whole answers instead of streamGenerateContent.
	provider.Options
	// Fields are extra top-level fields for every request body, written
	// verbatim (safetySettings, cachedContent, ...). Their keys must not
	// be ones the client writes: generationConfig and toolConfig are.
	Fields []Field
}

// Client is an [llm.Model] served by the Gemini API's
// streamGenerateContent (server-sent events) or generateContent.
// Requests are written by [Encode].
//
// Gemini's function calls need not carry ids; the client gives each call
// without one an id made from the history (the same on every replay), so
// that results pair with calls, and the next request sends it back in the
// functionCall and its functionResponse. A thoughtSignature is kept with
// the part it came on, as Gemini requires it back.
//
// llm.Request.Effort sets a thinking budget of 512 (minimal), 1024 (low),
// 8192 (medium) or 24576 (high) tokens, with thought summaries included.
//
// A Client is safe for concurrent use.
type Client struct {
	model  string
	stream bool
	extra  []Field // Config.Fields
	c      *client.Client
}

var _ llm.Model = (*Client)(nil)

// NewClient returns a client of the Gemini API for model
// ("gemini-2.5-flash", ...). A nil cfg means the defaults.
func NewClient(model string, cfg *Config) (*Client, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if strings.TrimSpace(model) == "" || strings.ContainsAny(model, "/:?#") {
		return nil, fmt.Errorf("gemini: model name %q is empty or holds /, :, ? or #", model)
	}
	cc, err := client.Open("gemini", cfg.Options, DefaultBaseURL, &geminiErrors)
	if err != nil {
		return nil, err
	}
	if err := client.CheckFields(cfg.Fields, func(f Field) (string, []byte) { return f.Key, f.Value },
		"contents", "systemInstruction", "tools", "generationConfig", "toolConfig"); err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	if cfg.APIKey != "" {
		cc.Header().Set("x-goog-api-key", cfg.APIKey)
	}
	return &Client{model: model, stream: !cfg.NoStream, extra: cfg.Fields, c: cc}, nil
}

// Name returns the model the client calls.
func (c *Client) Name() string { return c.model }

// Dialect returns "gemini".
func (c *Client) Dialect() string { return string(Dialect) }

// Stream sends req and yields the answer's events; see [llm.Model].
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return c.c.Post(ctx, c.path(), func() ([]byte, error) { return c.body(req) },
		func() client.Decoder { return newContentReader(req.Messages).decode })
}

// path returns where requests go, under the API's URL.
func (c *Client) path() string {
	if c.stream {
		return "/models/" + c.model + ":streamGenerateContent?alt=sse"
	}
	return "/models/" + c.model + ":generateContent"
}

// budgets are the thinking budgets of the efforts.
var budgets = map[llm.Effort]int{llm.EffortMinimal: 512, llm.EffortLow: 1024, llm.EffortMedium: 8192, llm.EffortHigh: 24576}

// body writes the request body for req.
func (c *Client) body(req *llm.Request) ([]byte, error) {
	fields, err := c.fields(req)
	if err != nil {
		return nil, err
	}
	body, _, err := Encode(&Request{Messages: req.Messages, Tools: req.Tools, Fields: fields})
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return body, nil
}

// fields returns the top-level fields of the request body for req, other
// than the ones [Request] models, in the order they are written.
func (c *Client) fields(req *llm.Request) ([]Field, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	var gen []string
	if req.Temperature != nil {
		gen = append(gen, `"temperature":`+strconv.FormatFloat(*req.Temperature, 'g', -1, 64))
	}
	if req.MaxOutputTokens > 0 {
		gen = append(gen, `"maxOutputTokens":`+strconv.Itoa(req.MaxOutputTokens))
	}
	if b := budgets[req.Effort]; b > 0 {
		gen = append(gen, `"thinkingConfig":{"thinkingBudget":`+strconv.Itoa(b)+`,"includeThoughts":true}`)
	}
	var fields []Field
	if len(gen) > 0 {
		fields = append(fields, Field{Key: "generationConfig", Value: jsontext.Value("{" + strings.Join(gen, ",") + "}")})
	}
	if tc := toolConfigs.Of(req); tc != "" {
		fields = append(fields, Field{Key: "toolConfig", Value: jsontext.Value(tc)})
	}
	return append(fields, c.extra...), nil
}

// toolConfigs are the values of toolConfig.
var toolConfigs = client.ToolChoices{
	Named:    `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":[%s]}}`,
	None:     `{"functionCallingConfig":{"mode":"NONE"}}`,
	Required: `{"functionCallingConfig":{"mode":"ANY"}}`,
}

// geminiErrors reads Google's error body, {"error": {"code", "message",
// "status", "details"}}: the code is the ErrorInfo reason when there is
// one (API_KEY_INVALID), else the status; RetryInfo gives the wait.
var geminiErrors = client.Errors{
	Provider:      "Gemini",
	Parse:         parseError,
	ContextLength: regexp.MustCompile(`(?i)exceeds the maximum number of tokens|input token count|context window|prompt is too long`),
	Kinds: map[string]llm.ErrorKind{
		"API_KEY_INVALID":    llm.Auth,
		"PERMISSION_DENIED":  llm.Auth,
		"UNAUTHENTICATED":    llm.Auth,
		"RESOURCE_EXHAUSTED": llm.RateLimited,
		"UNAVAILABLE":        llm.Overloaded,
		"INTERNAL":           llm.Overloaded,
	},
}

func parseError(body []byte) (code, message string, retryAfter time.Duration, ok bool) {
	var e struct {
		Error *struct {
			Message string `json:"message"`
			Status  string `json:"status"`
			Details []struct {
				Type       string `json:"@type"`
				Reason     string `json:"reason"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if client.Unmarshal(trimArray(body), &e) != nil || e.Error == nil {
		return "", "", 0, false
	}
	code = e.Error.Status
	for _, d := range e.Error.Details {
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") && d.Reason != "":
			code = d.Reason
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			retryAfter = client.ParseDuration(d.RetryDelay)
		}
	}
	return code, e.Error.Message, retryAfter, e.Error.Message != "" || code != ""
}

// trimArray returns the one element of a JSON array ([{"error": ...}], as
// streamGenerateContent without alt=sse writes errors), else b.
func trimArray(b []byte) []byte {
	t := bytes.TrimSpace(b)
	if len(t) < 2 || t[0] != '[' || t[len(t)-1] != ']' {
		return b
	}
	return t[1 : len(t)-1]
}
