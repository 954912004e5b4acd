package gemini_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newClient opens a client on srv with cfg, as [clienttest.OnServer] sets
// it, for a Gemini 3 model: the conformance scenario sends images in
// function responses, which only Gemini 3 takes (GEM-MULTIMODAL-RESP), and
// Gemini 3 wants the thought signatures back (GEM-THOUGHT-SIG); the server
// holds a request to both by the model in its URL.
func newClient(t *testing.T, srv *llmtest.Server, cfg gemini.Config) *gemini.Client {
	t.Helper()
	clienttest.OnServer(srv, &cfg.Options, "/v1beta", "AIza-test")
	c, err := gemini.NewClient("gemini-3-flash-preview", &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientAnswers(t *testing.T) {
	tests := []clienttest.Answer{
		{Name: "text in fragments", Turn: llmtest.Turn{Reasoning: "Think.", Text: "北京今天晴，18°C。", Chunk: 4}, Finish: llm.FinishStop,
			Check: func(t *testing.T, m llm.Message) {
				want := llm.Assistant(llm.Reasoning{Provider: "gemini", Text: "Think."}, llm.Text{Text: "北京今天晴，18°C。"})
				if !reflect.DeepEqual(m, want) {
					t.Errorf("message = %#v, want %#v", m, want)
				}
			}},
		{Name: "parallel calls without ids", Turn: llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Rome"}`}}},
			Finish: llm.FinishToolCalls,
			Check: func(t *testing.T, m llm.Message) {
				sig, ok := m.Parts[0].(llm.Reasoning)
				calls := m.ToolCalls()
				if !ok || sig.Signature != "CiQB0e2Kb1" || len(calls) != 2 || calls[0].ID == "" || calls[0].ID == calls[1].ID ||
					string(calls[1].Input) != `{"city":"Rome"}` {
					t.Errorf("message = %#v, want the signature, then two calls with distinct made ids", m)
				}
			}},
		{Name: "a call with its own id", Turn: llmtest.Turn{Calls: []llmtest.Call{{ID: "fc-1", Name: "get_weather", Args: `{"city":"Paris"}`}}},
			Finish: llm.FinishToolCalls,
			Check: func(t *testing.T, m llm.Message) {
				if c := m.ToolCalls(); len(c) != 1 || c[0].ID != "fc-1" {
					t.Errorf("calls = %+v, want the id Gemini sent", c)
				}
			}},
		{Name: "empty message", Turn: llmtest.Turn{Text: "x", Misbehave: llmtest.EmptyMessage},
			Want: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{}}, Finish: llm.FinishStop, WantErr: llm.ErrEmptyMessage},
	}
	clienttest.Answers(t, tests, false, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
		return newClient(t, srv, gemini.Config{Options: provider.Options{NoStream: noStream}})
	},
		func(t *testing.T, srv *llmtest.Server, _ *llm.Response, noStream bool) {
			r := srv.Requests()[0]
			if want := map[bool]string{false: "/v1beta/models/gemini-3-flash-preview:streamGenerateContent", true: "/v1beta/models/gemini-3-flash-preview:generateContent"}[noStream]; r.Path != want {
				t.Errorf("path = %s, want %s", r.Path, want)
			}
		})
}

// TestClientMadeIDsRoundTrip: the made ids and the thought signature go
// back in the next request, which Gemini's rules accept.
func TestClientMadeIDsRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Rome"}`}}},
		llmtest.Turn{Text: "Both sunny."})
	c := newClient(t, srv, gemini.Config{})
	req := clienttest.Ask("Weather in Paris and Rome?")
	resp, err := llm.Generate(context.Background(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	var results []llm.ToolResult
	for _, call := range resp.Message.ToolCalls() {
		results = append(results, llm.ToolResult{CallID: call.ID, Name: call.Name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "sunny"}}})
	}
	req.Messages = append(req.Messages, resp.Message, llm.Tool(results...))
	if _, err := llm.Generate(context.Background(), c, req); err != nil {
		t.Fatalf("second turn: %v", err)
	}
	body := string(srv.Requests()[1].Body)
	ids := resp.Message.ToolCalls()
	for _, want := range []string{`"thoughtSignature":"CiQB0e2Kb1"`, `"functionCall":{"id":"` + ids[0].ID + `"`, `"functionResponse":{"id":"` + ids[1].ID + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("second request = %s\nwant it to contain %s", body, want)
		}
	}
}

func TestClientErrors(t *testing.T) {
	tests := []clienttest.Failure{
		{Name: "429 with RetryInfo then success", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}}, {Text: "ok"}}, Requests: 2},
		{Name: "overloaded inside the stream after text", Turns: []llmtest.Turn{{Text: "partial", Error: &llmtest.Error{Kind: llm.Overloaded, InStream: true}}}, Kind: llm.Overloaded, Requests: 1,
			Text: "gemini: provider overloaded (UNAVAILABLE): The model is overloaded. Please try again later."},
		{Name: "503 then success", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Overloaded}}, {Text: "ok"}}, Requests: 2},
		{Name: "context length", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.ContextLength}}}, Kind: llm.ContextLength, Requests: 1,
			Text: "gemini: context length exceeded (HTTP 400 INVALID_ARGUMENT): The input token count (1245184) exceeds the maximum number of tokens allowed (1048576)."},
		{Name: "bad key", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Auth}}}, Kind: llm.Auth, Requests: 1, Text: "gemini: authentication failed (HTTP 400 API_KEY_INVALID): API key not valid."},
		{Name: "truncated", Turns: []llmtest.Turn{{Text: "This is cut short.", Chunk: 3, Misbehave: llmtest.Truncate}}, Kind: llm.Transport, Requests: 1,
			Text: "gemini: transport failure: the stream ended before the answer did (no finishReason)"},
	}
	clienttest.Failures(t, tests, func(t *testing.T, srv *llmtest.Server) llm.Model { return newClient(t, srv, gemini.Config{}) })
}

// TestClientMaxTokens: an answer cut by the token limit mid-call is not an
// error of the client's: one request, finish reason length.
func TestClientMaxTokens(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "Partial.", Misbehave: llmtest.LengthMidCall, Calls: []llmtest.Call{{Name: "get_weather", Args: `{}`}}})
	resp, err := llm.Generate(context.Background(), newClient(t, srv, gemini.Config{}), clienttest.Ask("hi"))
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("requests = %d, want 1", got)
	}
	if err != nil {
		t.Fatalf("Generate() error = %v", err)
	}
	if resp.Finish.Reason != llm.FinishLength {
		t.Errorf("finish = %v, want length", resp.Finish)
	}
}

func TestClientToolConfig(t *testing.T) {
	tests := clienttest.ToolChoices(`"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}}`,
		`"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}`, `"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}`)
	clienttest.Bodies(t, tests, func(t *testing.T, srv *llmtest.Server) llm.Model { return newClient(t, srv, gemini.Config{}) })
}

func TestClientConfig(t *testing.T) {
	clienttest.BadConfigs(t, "NewClient", gemini.NewClient, []clienttest.BadConfig[gemini.Config]{
		{Model: "", Want: `gemini: model name "" is empty or holds /, :, ? or #`},
		{Model: "models/gemini-2.5-flash", Want: `gemini: model name "models/gemini-2.5-flash" is empty or holds /, :, ? or #`},
		{Model: "m", Config: &gemini.Config{Options: provider.Options{BaseURL: "ftp://x"}}, Want: `gemini: BaseURL "ftp://x" is not an http or https URL`},
		{Model: "m", Config: &gemini.Config{Options: provider.Options{IdleTimeout: -time.Second}}, Want: "gemini: IdleTimeout is negative"},
		{Model: "m", Config: &gemini.Config{Fields: []gemini.Field{{Key: "generationConfig", Value: []byte(`{}`)}}}, Want: `the field "generationConfig" in Fields is one the client writes itself`},
		{Model: "m", Config: &gemini.Config{Fields: []gemini.Field{{Key: "safetySettings", Value: []byte(`[`)}}}, Want: `the value of the field "safetySettings" in Fields is not JSON`},
	})
}
