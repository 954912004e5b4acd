package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/transcript"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newChat opens a Chat client on srv with cfg, its base URL and key set
// and its retries a millisecond apart; srv checks the key.
func newChat(t *testing.T, srv *llmtest.Server, cfg openai.Config) *openai.Chat {
	t.Helper()
	m, err := openai.NewChat("gpt-4.1", onServer(srv, &cfg))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onServer sets cfg for srv, with OpenAI's base path and a test key, as
// [clienttest.OnServer] does.
func onServer(srv *llmtest.Server, cfg *openai.Config) *openai.Config {
	clienttest.OnServer(srv, &cfg.Options, "/v1", "sk-test")
	return cfg
}

// TestChatAnswers runs each scripted answer, streamed and whole, and
// checks the message the client assembles.
func TestChatAnswers(t *testing.T) {
	three := []llmtest.Call{
		{ID: "call_a", Name: "get_weather", Args: `{"city":"Paris"}`},
		{ID: "call_b", Name: "get_weather", Args: `{"city":"北京"}`},
		{ID: "call_c", Name: "get_time", Args: `{"tz":"Europe/Paris"}`},
	}
	tests := []struct {
		name    string
		turn    llmtest.Turn
		want    llm.Message
		finish  llm.FinishReason
		wantErr error
	}{
		{name: "text", turn: llmtest.Turn{Text: "It is sunny in Paris, 18°C <ok> & dry."},
			want: llm.Assistant(llm.Text{Text: "It is sunny in Paris, 18°C <ok> & dry."}), finish: llm.FinishStop},
		{name: "reasoning and text", turn: llmtest.Turn{Reasoning: "The user wants weather.", Text: "Sunny."},
			want:   llm.Assistant(llm.Reasoning{Provider: "openai-chat", Text: "The user wants weather."}, llm.Text{Text: "Sunny."}),
			finish: llm.FinishStop},
		{name: "parallel calls", turn: llmtest.Turn{Text: "Checking.", Calls: three, Chunk: 3},
			want:   llm.Assistant(llm.Text{Text: "Checking."}, clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_b", "get_weather", `{"city":"北京"}`), clienttest.Call("call_c", "get_time", `{"tz":"Europe/Paris"}`)),
			finish: llm.FinishToolCalls},
		{name: "parallel calls interleaved", turn: llmtest.Turn{Calls: three, Chunk: 2, Interleave: true},
			want:   llm.Assistant(clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_b", "get_weather", `{"city":"北京"}`), clienttest.Call("call_c", "get_time", `{"tz":"Europe/Paris"}`)),
			finish: llm.FinishToolCalls},
		{name: "every call at index 0", turn: llmtest.Turn{Calls: three, Misbehave: llmtest.IndexZero},
			want:   llm.Assistant(clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_b", "get_weather", `{"city":"北京"}`), clienttest.Call("call_c", "get_time", `{"tz":"Europe/Paris"}`)),
			finish: llm.FinishToolCalls},
		{name: "the same id twice", turn: llmtest.Turn{Calls: three, Misbehave: llmtest.DuplicateIDs},
			want:   llm.Assistant(clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_a_2", "get_weather", `{"city":"北京"}`), clienttest.Call("call_a_3", "get_time", `{"tz":"Europe/Paris"}`)),
			finish: llm.FinishToolCalls},
		{name: "the same id twice at index 0", turn: llmtest.Turn{Calls: three, Misbehave: llmtest.DuplicateIDs | llmtest.IndexZero, Chunk: 4},
			want:   llm.Assistant(clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_a_2", "get_weather", `{"city":"北京"}`), clienttest.Call("call_a_3", "get_time", `{"tz":"Europe/Paris"}`)),
			finish: llm.FinishToolCalls},
		{name: "arguments as an object", turn: llmtest.Turn{Calls: three[:2], Misbehave: llmtest.ArgsAsObject},
			want:   llm.Assistant(clienttest.Call("call_a", "get_weather", `{"city":"Paris"}`), clienttest.Call("call_b", "get_weather", `{"city":"北京"}`)),
			finish: llm.FinishToolCalls},
		{name: "finish length mid-call", turn: llmtest.Turn{Calls: three[:1], Misbehave: llmtest.LengthMidCall},
			want:   llm.Assistant(clienttest.Call("call_a", "get_weather", `{"city":`)),
			finish: llm.FinishLength, wantErr: llm.ErrIncompleteCall},
		{name: "empty message", turn: llmtest.Turn{Text: "lost", Misbehave: llmtest.EmptyMessage},
			want: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{}}, finish: llm.FinishStop, wantErr: llm.ErrEmptyMessage},
	}
	for _, tt := range tests {
		for _, noStream := range []bool{false, true} {
			name := tt.name + map[bool]string{false: " streamed", true: " whole"}[noStream]
			t.Run(name, func(t *testing.T) {
				srv := llmtest.NewServer(t, tt.turn, llmtest.Turn{Text: "ok"})
				m := newChat(t, srv, openai.Config{Options: provider.Options{NoStream: noStream}})
				req := clienttest.Ask("Weather in Paris and Beijing?")
				resp, err := llm.Generate(context.Background(), m, req)
				if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
					t.Fatalf("Generate() error = %v, want %v", err, tt.wantErr)
				}
				if !reflect.DeepEqual(resp.Message, tt.want) {
					t.Errorf("Generate() message = %#v\nwant %#v", resp.Message, tt.want)
				}
				if resp.Finish.Reason != tt.finish {
					t.Errorf("Generate() finish = %v, want %v", resp.Finish, tt.finish)
				}
				if resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
					t.Errorf("Generate() usage = %+v, want input and output counts", resp.Usage)
				}
				reqs := srv.Requests()
				if len(reqs) != 1 || reqs[0].Rejected != "" || reqs[0].Stream == noStream {
					t.Fatalf("requests = %+v, want one accepted, stream %v", reqs, !noStream)
				}
				if got := reqs[0].Header.Get("Authorization"); got != "Bearer sk-test" {
					t.Errorf("Authorization = %q, want the key", got)
				}
				if calls := resp.Message.ToolCalls(); len(calls) > 0 {
					// The calls go back with their results, even a cut-off
					// one (answered with an error): the provider accepts it.
					next := *req
					next.Messages = append(append([]llm.Message(nil), req.Messages...), resp.Message, answer(calls, err != nil))
					if _, err := llm.Generate(context.Background(), m, &next); err != nil {
						t.Fatalf("next turn: %v", err)
					}
				}
			})
		}
	}
}

// answer returns a tool message answering calls: successes, or errors
// when failed.
func answer(calls []llm.ToolCall, failed bool) llm.Message {
	var results []llm.ToolResult
	for _, c := range calls {
		r := llm.ToolResult{CallID: c.ID, Name: c.Name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}}
		if failed {
			r.Status, r.Content = llm.StatusError, []llm.Part{llm.Text{Text: "the arguments were cut off"}}
		}
		results = append(results, r)
	}
	return llm.Tool(results...)
}

// TestChatNoIDs: calls without ids get ids made from the history, the
// same on every replay, that the next request sends back paired.
func TestChatNoIDs(t *testing.T) {
	calls := []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Rome"}`}}
	for _, misbehave := range []llmtest.Misbehaviour{llmtest.NoCallIDs, llmtest.NoCallIDs | llmtest.IndexZero} {
		var first []llm.ToolCall
		for run := 0; run < 2; run++ {
			srv := llmtest.NewServer(t, llmtest.Turn{Calls: calls, Misbehave: misbehave}, llmtest.Turn{Text: "Sunny in both."})
			m := newChat(t, srv, openai.Config{})
			req := clienttest.Ask("Weather in Paris and Rome?")
			resp, err := llm.Generate(context.Background(), m, req)
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Message.ToolCalls()
			if len(got) != 2 || got[0].ID == "" || got[0].ID == got[1].ID || string(got[1].Input) != `{"city":"Rome"}` {
				t.Fatalf("calls = %+v, want two calls with distinct ids", got)
			}
			if run == 0 {
				first = got
			} else if !reflect.DeepEqual(got, first) {
				t.Errorf("replayed calls = %+v, want the same ids as %+v", got, first)
			}
			next := *req
			next.Messages = append(append([]llm.Message(nil), req.Messages...), resp.Message, llm.Tool(
				llm.ToolResult{CallID: got[0].ID, Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}},
				llm.ToolResult{CallID: got[1].ID, Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "21C"}}}))
			if _, err := llm.Generate(context.Background(), m, &next); err != nil {
				t.Fatalf("second turn: %v (%s)", err, srv.Requests()[1].Rejected)
			}
		}
	}
}

// TestChatErrors: each failure is classified once, retried when it may
// pass, and given back with the provider's own words.
func TestChatErrors(t *testing.T) {
	tests := []clienttest.Failure{
		{Name: "429 then success", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Millisecond}}, {Text: "ok"}}, Requests: 2, Text: "ok"},
		{Name: "500 twice then success", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Overloaded}}, {Error: &llmtest.Error{Kind: llm.Overloaded}}, {Text: "ok"}}, Requests: 3, Text: "ok"},
		{Name: "500 three times", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Overloaded}}, {Error: &llmtest.Error{Kind: llm.Overloaded}}, {Error: &llmtest.Error{Kind: llm.Overloaded}}},
			Kind: llm.Overloaded, Requests: 3, Text: "openai chat: provider overloaded (HTTP 500 server_error): The server had an error while processing your request. Sorry about that!"},
		{Name: "retry-after longer than the wait allowed", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.RateLimited, RetryAfter: time.Hour}}},
			Kind: llm.RateLimited, Requests: 1, Text: "(retry after 1h0m0s)"},
		{Name: "context length", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.ContextLength}}},
			Kind: llm.ContextLength, Requests: 1, Text: "openai chat: context length exceeded (HTTP 400 context_length_exceeded): This model's maximum context length is 128000 tokens."},
		{Name: "bad key", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Auth}}}, Kind: llm.Auth, Requests: 1, Text: "Incorrect API key provided"},
		{Name: "html from a proxy", Turns: []llmtest.Turn{{Error: &llmtest.Error{Kind: llm.Overloaded, Status: 502, HTML: true}}, {Error: &llmtest.Error{Kind: llm.Overloaded, Status: 502, HTML: true}}, {Error: &llmtest.Error{Kind: llm.Overloaded, Status: 502, HTML: true}}},
			Kind: llm.Overloaded, Requests: 3, Text: `openai chat: provider overloaded (HTTP 502): the answer is an HTML page titled "502 Bad Gateway" (a proxy's?), not an OpenAI error JSON`},
		{Name: "error inside the stream before any content", Turns: []llmtest.Turn{{Text: "lost", Error: &llmtest.Error{Kind: llm.Overloaded, InStream: true}}, {Text: "ok"}}, Requests: 2, Text: "ok"},
		{Name: "error inside the stream after content", Turns: []llmtest.Turn{{Text: "partial", Error: &llmtest.Error{Kind: llm.Overloaded, InStream: true, After: 2}}},
			Kind: llm.Overloaded, Requests: 1, Text: "openai chat: provider overloaded (server_error): The server had an error"},
		{Name: "truncated stream", Turns: []llmtest.Turn{{Text: "This answer will be cut short.", Chunk: 3, Misbehave: llmtest.Truncate}},
			Kind: llm.Transport, Requests: 1, Text: "openai chat: transport failure: the stream ended before the answer did (no finish_reason and no [DONE])"},
	}
	clienttest.Failures(t, tests, func(t *testing.T, srv *llmtest.Server) llm.Model { return newChat(t, srv, openai.Config{}) })
}

// TestChatRejectedRequest: a history the provider would reject gets the
// provider's 400, classified Invalid, with the provider's message.
func TestChatRejectedRequest(t *testing.T) {
	srv := llmtest.NewServer(t)
	req := clienttest.Ask("hi")
	req.Messages = append(req.Messages, llm.Assistant(clienttest.Call("call_1", "get_weather", `{}`)), llm.User("and?"))
	_, err := llm.Generate(context.Background(), newChat(t, srv, openai.Config{}), req)
	if !errors.Is(err, llm.Invalid) || !strings.Contains(err.Error(), "tool_call_ids did not have response messages: call_1") {
		t.Fatalf("Generate() error = %v, want the provider's OAI-CC-ANSWER-ALL error", err)
	}
	if d := transcript.Dialect((&openai.Chat{}).Dialect()); d != transcript.OpenAIChat {
		t.Errorf("Dialect() = %q", d)
	}
}

// TestStreamStopsEarly: breaking out of the loop ends the request; the
// goroutine check in TestMain proves nothing is left running.
func TestStreamStopsEarly(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: strings.Repeat("word ", 200), Chunk: 5})
	n := 0
	for _, err := range newChat(t, srv, openai.Config{}).Stream(context.Background(), clienttest.Ask("talk")) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("got %d events, want to stop at 3", n)
	}
}

// TestStreamCancelled: cancelling the context in the middle of a stream
// ends it with the context's error, which is not a provider failure.
func TestStreamCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	m, err := openai.NewChat("m", &openai.Config{Options: provider.Options{BaseURL: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []llm.Event
	var last error
	for ev, err := range m.Stream(ctx, clienttest.Ask("hi")) {
		if err != nil {
			last = err
			break
		}
		got = append(got, ev)
		cancel()
	}
	var le *llm.Error
	if len(got) != 1 || !errors.Is(last, context.Canceled) || errors.As(last, &le) {
		t.Fatalf("events %v, error %v; want one event, then context.Canceled", got, last)
	}
}

func TestNewChatConfig(t *testing.T) {
	clienttest.BadConfigs(t, "NewChat", openai.NewChat, []clienttest.BadConfig[openai.Config]{
		{Model: " ", Want: "openai chat: no model name"},
		{Model: "m", Config: &openai.Config{Options: provider.Options{BaseURL: "localhost:8000"}}, Want: `openai chat: BaseURL "localhost:8000" is not an http or https URL`},
		{Model: "m", Config: &openai.Config{MaxTokensField: "max_output_tokens"}, Want: `MaxTokensField "max_output_tokens" is neither`},
		{Model: "m", Config: &openai.Config{Fields: []openai.Field{{Key: "stream", Value: []byte(`false`)}}}, Want: `the field "stream" in Fields is one the client writes itself`},
		{Model: "m", Config: &openai.Config{Options: provider.Options{MaxRetryWait: -1}}, Want: "MaxRetryWait is negative"},
	})
}

// TestChatOptions: the request's options reach the body in the Chat
// spelling, and a compatible server's max_tokens and extra fields too.
func TestChatOptions(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	temp := 0.2
	req := clienttest.Ask("hi")
	req.Temperature, req.MaxOutputTokens, req.Effort, req.ToolChoice = &temp, 300, llm.EffortLow, llm.ToolChoice{Name: "get_weather"}
	m, _ := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1", NoStream: true}, MaxTokensField: "max_tokens", Fields: []openai.Field{{Key: "seed", Value: []byte(`7`)}}})
	if _, err := llm.Generate(context.Background(), m, req); err != nil {
		t.Fatal(err)
	}
	body := string(srv.Requests()[0].Body)
	want := `{"model":"gpt-4.1","temperature":0.2,"max_tokens":300,"tool_choice":{"type":"function","function":{"name":"get_weather"}},"reasoning_effort":"low","seed":7,"messages":`
	if !strings.HasPrefix(body, want) {
		t.Errorf("body = %s\nwant it to start %s", body, want)
	}
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolRequired}
	req.Temperature, req.Effort, req.MaxOutputTokens = nil, "", 0
	if _, err := llm.Generate(context.Background(), newChat(t, srv, openai.Config{}), req); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[1].Body); !strings.HasPrefix(body, `{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},"tool_choice":"required","messages":`) {
		t.Errorf("body = %s", body)
	}
}
