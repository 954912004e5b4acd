package openai

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// DefaultBaseURL is the OpenAI API's base URL, used when Config.BaseURL is
// empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a [Chat] or [Responses] client: the settings every
// client shares, and OpenAI's own. A nil *Config, and each zero field,
// mean the documented default.
type Config struct {
	// Options are where the API is, the key, the timeouts and the
	// retries. BaseURL is the API's base URL, to which
	// "/chat/completions" or "/responses" is appended; "" means
	// [DefaultBaseURL]. Any OpenAI-compatible server works: vLLM and
	// llama.cpp ("http://localhost:8000/v1"), Ollama
	// ("http://localhost:11434/v1"), LM Studio, DeepSeek
	// ("https://api.deepseek.com"), Qwen (DashScope's compatible mode),
	// ... APIKey is sent as "Authorization: Bearer <key>"; "" sends no
	// Authorization header (local servers).
	provider.Options
	// MaxTokensField is the Chat Completions field that carries
	// llm.Request.MaxOutputTokens: "max_completion_tokens" (the default)
	// or "max_tokens", for compatible servers that know only that one.
	MaxTokensField string
	// Store lets a [Responses] client keep responses on the server
	// ("store": true) and send only the new items of each turn after
	// "previous_response_id". Off, each request holds the whole history
	// ("store": false), with encrypted reasoning so that it can be
	// replayed. Chat ignores it.
	Store bool
	// Fields are extra top-level fields for every request body, written
	// verbatim after the ones the client writes (a compatible server's own
	// options, "seed", "parallel_tool_calls": false, ...). Their keys must
	// not be ones the client writes.
	Fields []Field
}

// clientCore is what a Chat and a Responses client share.
type clientCore struct {
	model  string
	url    string
	header http.Header
	stream bool
	fields []Field
	c      *client.Client
}

func newClientCore(op, model, path string, cfg *Config, written []string) (*clientCore, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if strings.TrimSpace(model) == "" {
		return nil, fmt.Errorf("%s: no model name", op)
	}
	c, err := client.Open(op, cfg.Options, DefaultBaseURL, &openaiErrors)
	if err != nil {
		return nil, err
	}
	if err := client.CheckFields(cfg.Fields, func(f Field) (string, []byte) { return f.Key, f.Value }, written...); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	h := c.Header()
	if cfg.NoStream {
		h.Set("Accept", "application/json")
	} else {
		h.Set("Accept", "text/event-stream")
	}
	if cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	return &clientCore{model: model, url: c.URL(path), header: h, stream: !cfg.NoStream, fields: cfg.Fields, c: c}, nil
}

// openaiErrors reads OpenAI's error body, {"error": {"message", "type",
// "param", "code"}}, and the shapes compatible servers use instead: an
// error string (Ollama), a numeric code (llama.cpp), {"detail": ...}
// (FastAPI servers), {"message": ...}.
var openaiErrors = client.Errors{
	Provider: "OpenAI",
	Parse:    parseError,
	ContextLength: regexp.MustCompile(`(?i)context_length_exceeded|maximum context length|context window|` +
		`context length|exceed_context_size|exceeds the available context|prompt is too long|too many tokens|reduce the length of the messages`),
	Kinds: map[string]llm.ErrorKind{
		"insufficient_quota":  llm.Auth, // a 429 that waiting does not cure
		"invalid_api_key":     llm.Auth,
		"rate_limit_exceeded": llm.RateLimited, // in an error event, without a status
		"server_error":        llm.Overloaded,
	},
}

func parseError(body []byte) (code, message string, _ time.Duration, ok bool) {
	var e struct {
		Error   jsontext.Value `json:"error"`
		Detail  jsontext.Value `json:"detail"`
		Message string         `json:"message"`
	}
	if client.Unmarshal(body, &e) != nil {
		return "", "", 0, false
	}
	switch e.Error.Kind() {
	case '"':
		s, _ := client.Text(e.Error)
		return "", s, 0, s != ""
	case '{':
		var o struct {
			Message string         `json:"message"`
			Type    string         `json:"type"`
			Code    jsontext.Value `json:"code"`
		}
		if client.Unmarshal(e.Error, &o) != nil {
			return "", "", 0, false
		}
		code = o.Type
		if o.Code.Kind() == '"' {
			code, _ = client.Text(o.Code)
		}
		return code, o.Message, 0, o.Message != "" || code != ""
	}
	if e.Detail.Kind() != 0 && e.Detail.Kind() != 'n' {
		s, _ := client.Text(e.Detail)
		return "", s, 0, s != ""
	}
	return "", e.Message, 0, e.Message != ""
}

// strField returns a field whose value is the JSON string s.
func strField(key, s string) Field {
	v := codec.AppendString(nil, s)
	return Field{Key: key, Value: v}
}

// rawField returns a field whose value is the JSON v.
func rawField(key, v string) Field { return Field{Key: key, Value: []byte(v)} }
