package open_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/transcript"
)

// TestModel: each provider's spec opens its client, which sends the
// request to its route, with the key in its provider's header and the
// caller's headers, streamed or not as Options say.
func TestModel(t *testing.T) {
	tests := []struct {
		spec      string
		noStream  bool
		name      string // the model's Name
		dialect   transcript.Dialect
		path      string // of the request
		keyHeader string // where the key goes
		keyValue  string
	}{
		{"openai:gpt-4o", false, "gpt-4o", transcript.OpenAIChat, "/chat/completions", "Authorization", "Bearer k"},
		{"openai:qwen3:8b", true, "qwen3:8b", transcript.OpenAIChat, "/chat/completions", "Authorization", "Bearer k"},
		{"openai-responses:gpt-5", false, "gpt-5", transcript.OpenAIResponses, "/responses", "Authorization", "Bearer k"},
		{"anthropic:claude-sonnet-4-5", false, "claude-sonnet-4-5", transcript.Anthropic, "/v1/messages", "X-Api-Key", "k"},
		{"anthropic:claude-sonnet-4-5", true, "claude-sonnet-4-5", transcript.Anthropic, "/v1/messages", "X-Api-Key", "k"},
		{"gemini:gemini-2.5-flash", false, "gemini-2.5-flash", transcript.Gemini, "/models/gemini-2.5-flash:streamGenerateContent", "X-Goog-Api-Key", "k"},
		{"gemini:gemini-2.5-flash", true, "gemini-2.5-flash", transcript.Gemini, "/models/gemini-2.5-flash:generateContent", "X-Goog-Api-Key", "k"},
	}
	for _, tt := range tests {
		srv := llmtest.NewServer(t, llmtest.Turn{Text: "hi"})
		m, err := open.Model(tt.spec, &provider.Options{BaseURL: srv.URL, APIKey: "k", Header: http.Header{"X-Mine": {"1"}}, NoStream: tt.noStream})
		if err != nil {
			t.Fatalf("Model(%q) error = %v", tt.spec, err)
		}
		if n, ok := m.(llm.Named); !ok || n.Name() != tt.name || m.Dialect() != string(tt.dialect) {
			t.Errorf("Model(%q) = %#v in %s, want %s in %s", tt.spec, m, m.Dialect(), tt.name, tt.dialect)
		}
		resp, err := llm.Generate(context.Background(), m, &llm.Request{Messages: []llm.Message{llm.User("hello")}})
		if err != nil || resp.Message.Text() != "hi" {
			t.Fatalf("Model(%q): Generate() = %v, %v, want hi", tt.spec, resp, err)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("Model(%q): %d requests, want 1", tt.spec, len(reqs))
		}
		r := reqs[0]
		if r.Dialect != tt.dialect || r.Path != tt.path || r.Stream == tt.noStream {
			t.Errorf("Model(%q) sent %s %s (stream %v), want %s %s (stream %v)", tt.spec, r.Dialect, r.Path, r.Stream, tt.dialect, tt.path, !tt.noStream)
		}
		if got := r.Header.Get(tt.keyHeader); got != tt.keyValue {
			t.Errorf("Model(%q) sent %s: %q, want %q", tt.spec, tt.keyHeader, got, tt.keyValue)
		}
		if got := r.Header.Get("X-Mine"); got != "1" {
			t.Errorf("Model(%q) sent X-Mine: %q, want the caller's header", tt.spec, got)
		}
	}
}

// TestModelRetries: the retry settings reach every client: a 429 is sent
// again by default and not at all with MaxRetries -1.
func TestModelRetries(t *testing.T) {
	for _, spec := range []string{"openai:gpt-4o", "openai-responses:gpt-5", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"} {
		for _, tt := range []struct {
			retries  int
			requests int
		}{{0, 2}, {-1, 1}} {
			srv := llmtest.NewServer(t, llmtest.Turn{Error: &llmtest.Error{Kind: llm.RateLimited}}, llmtest.Turn{Text: "hi"})
			m, err := open.Model(spec, &provider.Options{BaseURL: srv.URL, MaxRetries: tt.retries, RetryBackoff: time.Millisecond})
			if err != nil {
				t.Fatalf("Model(%q) error = %v", spec, err)
			}
			_, err = llm.Generate(context.Background(), m, &llm.Request{Messages: []llm.Message{llm.User("hello")}})
			if got := len(srv.Requests()); got != tt.requests || (tt.requests == 1) != errors.Is(err, llm.RateLimited) {
				t.Errorf("Model(%q, MaxRetries %d): %d requests, error %v; want %d", spec, tt.retries, got, err, tt.requests)
			}
		}
	}
}

// TestModelNilOptions: nil Options are the defaults.
func TestModelNilOptions(t *testing.T) {
	m, err := open.Model("anthropic:claude-sonnet-4-5", nil)
	if err != nil {
		t.Fatalf("Model(nil options) error = %v, want a client", err)
	}
	if n, ok := m.(llm.Named); !ok || n.Name() != "claude-sonnet-4-5" || m.Dialect() != "anthropic" {
		t.Errorf("Model(nil options) = %#v, want a client of claude-sonnet-4-5", m)
	}
}

func TestModelErrors(t *testing.T) {
	tests := []struct {
		spec    string
		opts    *provider.Options
		want    string
		unknown bool // errors.Is(err, ErrUnknownProvider)
	}{
		{"opneai:gpt-4o", nil, `open "opneai:gpt-4o": unknown provider "opneai": want openai, openai-responses, anthropic or gemini (did you mean openai?)`, true},
		{"OpenAI:gpt-4o", nil, `open "OpenAI:gpt-4o": unknown provider "OpenAI": want openai, openai-responses, anthropic or gemini (did you mean openai?)`, true},
		{"openai-response:gpt-5", nil, `open "openai-response:gpt-5": unknown provider "openai-response": want openai, openai-responses, anthropic or gemini (did you mean openai-responses?)`, true},
		{"gemeni:gemini-2.5-flash", nil, `open "gemeni:gemini-2.5-flash": unknown provider "gemeni": want openai, openai-responses, anthropic or gemini (did you mean gemini?)`, true},
		{"claude:claude-sonnet-4-5", nil, `open "claude:claude-sonnet-4-5": unknown provider "claude": want openai, openai-responses, anthropic or gemini`, true},
		{"replay:run.json", nil, `open "replay:run.json": unknown provider "replay": want openai, openai-responses, anthropic or gemini`, true},
		{"gpt-4o", nil, `open "gpt-4o": want PROVIDER:MODEL, e.g. openai:gpt-4o, openai-responses:gpt-5, anthropic:claude-sonnet-4-5 or gemini:gemini-2.5-flash`, false},
		{":gpt-4o", nil, `open ":gpt-4o": want PROVIDER:MODEL, e.g. openai:gpt-4o, openai-responses:gpt-5, anthropic:claude-sonnet-4-5 or gemini:gemini-2.5-flash`, false},
		{"", nil, `open "": want PROVIDER:MODEL, e.g. openai:gpt-4o, openai-responses:gpt-5, anthropic:claude-sonnet-4-5 or gemini:gemini-2.5-flash`, false},
		{"anthropic:", nil, `open "anthropic:": no model name after "anthropic:"; want e.g. anthropic:claude-sonnet-4-5`, false},
		{"gemini: ", nil, `open "gemini: ": no model name after "gemini:"; want e.g. gemini:gemini-2.5-flash`, false},
		{"gemini:models/gemini-2.5-flash", nil, `open "gemini:models/gemini-2.5-flash": gemini: model name "models/gemini-2.5-flash" is empty or holds /, :, ? or #`, false},
		{"openai:gpt-4o", &provider.Options{BaseURL: "localhost:8000"}, `open "openai:gpt-4o": openai chat: BaseURL "localhost:8000" is not an http or https URL`, false},
		{"anthropic:claude-sonnet-4-5", &provider.Options{Timeout: -time.Second}, `open "anthropic:claude-sonnet-4-5": anthropic messages: Timeout is negative (-1s); 0 means the default`, false},
		{"openai-responses:gpt-5", &provider.Options{IdleTimeout: -time.Second}, `open "openai-responses:gpt-5": openai responses: IdleTimeout is negative (-1s); 0 means the default`, false},
	}
	for _, tt := range tests {
		m, err := open.Model(tt.spec, tt.opts)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Model(%q) = %v, %v, want error %s", tt.spec, m, err, tt.want)
			continue
		}
		var oe *open.Error
		if !errors.As(err, &oe) || oe.Spec != tt.spec {
			t.Errorf("Model(%q) error = %#v, want an *open.Error naming the spec", tt.spec, err)
		}
		if got := errors.Is(err, open.ErrUnknownProvider); got != tt.unknown {
			t.Errorf("errors.Is(Model(%q), ErrUnknownProvider) = %v, want %v", tt.spec, got, tt.unknown)
		}
	}
}

func TestProviders(t *testing.T) {
	got := open.Providers()
	want := []string{"openai", "openai-responses", "anthropic", "gemini"}
	if len(got) != len(want) {
		t.Fatalf("Providers() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Providers() = %v, want %v", got, want)
		}
	}
	got[0] = "changed"
	if open.Providers()[0] != "openai" {
		t.Errorf("Providers() shares its slice with the caller")
	}
}
