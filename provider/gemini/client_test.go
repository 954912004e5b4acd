package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var tools = []llm.ToolSpec{{Name: "get_weather", Description: "Current weather in a city.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}

func ask(q string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.System("Be brief."), llm.User(q)}, Tools: tools}
}

func newClient(t *testing.T, srv *llmtest.Server, noStream bool) *gemini.Client {
	t.Helper()
	srv.APIKey = "AIza-test"
	c, err := gemini.NewClient("gemini-2.5-flash", &gemini.Config{BaseURL: srv.URL + "/v1beta", APIKey: "AIza-test", NoStream: noStream, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientAnswers(t *testing.T) {
	tests := []struct {
		name    string
		turn    llmtest.Turn
		check   func(t *testing.T, m llm.Message)
		finish  llm.FinishReason
		wantErr error
	}{
		{name: "text in fragments", turn: llmtest.Turn{Reasoning: "Think.", Text: "北京今天晴，18°C。", Chunk: 4}, finish: llm.FinishStop,
			check: func(t *testing.T, m llm.Message) {
				want := llm.Assistant(llm.Reasoning{Provider: "gemini", Text: "Think."}, llm.Text{Text: "北京今天晴，18°C。"})
				if !reflect.DeepEqual(m, want) {
					t.Errorf("message = %#v, want %#v", m, want)
				}
			}},
		{name: "parallel calls without ids", turn: llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Rome"}`}}},
			finish: llm.FinishToolCalls,
			check: func(t *testing.T, m llm.Message) {
				sig, ok := m.Parts[0].(llm.Reasoning)
				calls := m.ToolCalls()
				if !ok || sig.Signature != "CiQB0e2Kb1" || len(calls) != 2 || calls[0].ID == "" || calls[0].ID == calls[1].ID ||
					string(calls[1].Input) != `{"city":"Rome"}` {
					t.Errorf("message = %#v, want the signature, then two calls with distinct made ids", m)
				}
			}},
		{name: "a call with its own id", turn: llmtest.Turn{Calls: []llmtest.Call{{ID: "fc-1", Name: "get_weather", Args: `{"city":"Paris"}`}}},
			finish: llm.FinishToolCalls,
			check: func(t *testing.T, m llm.Message) {
				if c := m.ToolCalls(); len(c) != 1 || c[0].ID != "fc-1" {
					t.Errorf("calls = %+v, want the id Gemini sent", c)
				}
			}},
		{name: "empty message", turn: llmtest.Turn{Text: "x", Misbehave: llmtest.EmptyMessage}, finish: llm.FinishStop, wantErr: llm.ErrEmptyMessage},
	}
	for _, tt := range tests {
		for _, noStream := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: " streamed", true: " whole"}[noStream], func(t *testing.T) {
				srv := llmtest.NewServer(t, tt.turn)
				resp, err := llm.Generate(context.Background(), newClient(t, srv, noStream), ask("Weather?"))
				if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
					t.Fatalf("Generate() error = %v, want %v", err, tt.wantErr)
				}
				if tt.check != nil {
					tt.check(t, resp.Message)
				}
				if resp.Finish.Reason != tt.finish || resp.Usage.InputTokens == 0 {
					t.Errorf("finish = %v, usage %+v, want %v", resp.Finish, resp.Usage, tt.finish)
				}
				r := srv.Requests()[0]
				if want := map[bool]string{false: "/v1beta/models/gemini-2.5-flash:streamGenerateContent", true: "/v1beta/models/gemini-2.5-flash:generateContent"}[noStream]; r.Path != want {
					t.Errorf("path = %s, want %s", r.Path, want)
				}
			})
		}
	}
}

// TestClientMadeIDsRoundTrip: the made ids and the thought signature go
// back in the next request, which Gemini's rules accept.
func TestClientMadeIDsRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Rome"}`}}},
		llmtest.Turn{Text: "Both sunny."})
	c := newClient(t, srv, false)
	req := ask("Weather in Paris and Rome?")
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
	tests := []struct {
		name     string
		turns    []llmtest.Turn
		kind     llm.ErrorKind
		requests int
		text     string
	}{
		{"429 with RetryInfo then success", []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}}, {Text: "ok"}}, "", 2, ""},
		{"overloaded inside the stream after text", []llmtest.Turn{{Text: "partial", Error: &llmtest.Error{Kind: llm.Overloaded, InStream: true}}}, llm.Overloaded, 1,
			"gemini: provider overloaded (UNAVAILABLE): The model is overloaded. Please try again later."},
		{"503 then success", []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Overloaded}}, {Text: "ok"}}, "", 2, ""},
		{"context length", []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.ContextLength}}}, llm.ContextLength, 1,
			"gemini: context length exceeded (HTTP 400 INVALID_ARGUMENT): The input token count (1245184) exceeds the maximum number of tokens allowed (1048576)."},
		{"bad key", []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Auth}}}, llm.Auth, 1, "gemini: authentication failed (HTTP 400 API_KEY_INVALID): API key not valid."},
		{"truncated", []llmtest.Turn{{Text: "This is cut short.", Chunk: 3, Misbehave: llmtest.Truncate}}, llm.Transport, 1,
			"gemini: transport failure: the stream ended before the answer did (no finishReason)"},
		{"max tokens", []llmtest.Turn{{Text: "Partial.", Misbehave: llmtest.LengthMidCall, Calls: []llmtest.Call{{Name: "get_weather", Args: `{}`}}}}, "", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.turns...)
			resp, err := llm.Generate(context.Background(), newClient(t, srv, false), ask("hi"))
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("requests = %d, want %d", got, tt.requests)
			}
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("Generate() error = %v", err)
				}
				if tt.name == "max tokens" && resp.Finish.Reason != llm.FinishLength {
					t.Errorf("finish = %v, want length", resp.Finish)
				}
				return
			}
			if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("Generate() error = %v, want kind %v containing %q", err, tt.kind, tt.text)
			}
		})
	}
}
