// Package clienttest holds what the provider clients' tests share: the
// weather tool and question they ask, and the two table runners every
// client passes against an [llmtest.Server] — scripted answers, streamed
// and whole, assemble to the wanted message; scripted failures are
// retried or classified as wanted. A client's test states only its
// dialect's cases and how to build the client.
package clienttest

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// Tools is the one tool the client tests offer: get_weather(city).
var Tools = []llm.ToolSpec{{Name: "get_weather", Description: "Current weather in a city.",
	Parameters: jsontext.Value(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}

// Ask returns a request of a brief system prompt and the user's q, with
// [Tools].
func Ask(q string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.System("Be brief."), llm.User(q)}, Tools: Tools}
}

// Call returns a tool call with the given id, name and JSON arguments.
func Call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: jsontext.Value(args)}
}

// OnServer points o at srv, whose API lives under path ("" for the root,
// "/v1", ...), with the key key, which it makes srv check, and makes
// retries wait a millisecond.
func OnServer(srv *llmtest.Server, o *provider.Options, path, key string) {
	o.BaseURL, o.APIKey, o.RetryBackoff = srv.URL+path, key, time.Millisecond
	srv.APIKey = key
}

// Modes runs f as the subtests name+" streamed" and name+" whole", with
// noStream false and true.
func Modes(t *testing.T, name string, f func(t *testing.T, noStream bool)) {
	t.Helper()
	for _, noStream := range []bool{false, true} {
		t.Run(name+map[bool]string{false: " streamed", true: " whole"}[noStream], func(t *testing.T) { f(t, noStream) })
	}
}

// An Answer is a scripted turn and what a client must make of it.
type Answer struct {
	Name string
	Turn llmtest.Turn
	// Want is the message the client assembles; with Check set, Check
	// judges the message instead.
	Want  llm.Message
	Check func(t *testing.T, m llm.Message)
	// Finish is the finish reason wanted; WantErr the error, nil for none.
	Finish  llm.FinishReason
	WantErr error
}

// Answers serves each answer's turn, streamed and whole, to the client
// newModel builds for the server, and checks the message, the finish
// reason, the error and that input tokens were counted (output tokens
// too with countOutput). more, when not nil, checks the rest.
func Answers(t *testing.T, answers []Answer, countOutput bool, newModel func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model,
	more func(t *testing.T, srv *llmtest.Server, resp *llm.Response, noStream bool)) {
	t.Helper()
	for _, tt := range answers {
		Modes(t, tt.Name, func(t *testing.T, noStream bool) {
			srv := llmtest.NewServer(t, tt.Turn)
			resp, err := llm.Generate(context.Background(), newModel(t, srv, noStream), Ask("Weather?"))
			if !errors.Is(err, tt.WantErr) || (err == nil) != (tt.WantErr == nil) {
				t.Fatalf("Generate() error = %v, want %v", err, tt.WantErr)
			}
			if tt.Check != nil {
				tt.Check(t, resp.Message)
			} else if !reflect.DeepEqual(resp.Message, tt.Want) {
				t.Errorf("Generate() message = %#v\nwant %#v", resp.Message, tt.Want)
			}
			if resp.Finish.Reason != tt.Finish || resp.Usage.InputTokens == 0 || (countOutput && resp.Usage.OutputTokens == 0) {
				t.Errorf("Generate() finish = %v, usage %+v, want %v", resp.Finish, resp.Usage, tt.Finish)
			}
			if more != nil {
				more(t, srv, resp, noStream)
			}
		})
	}
}

// A Failure is a script of turns that fail (or fail, then succeed) and
// what the client must make of it.
type Failure struct {
	Name  string
	Turns []llmtest.Turn
	// Kind is the kind of the error wanted, "" for a success.
	Kind llm.ErrorKind
	// Requests is how many requests the client sends, retries included.
	Requests int
	// Text is what the error must contain; for a success, the answer's
	// text wanted ("" for any).
	Text string
}

// Failures serves each failure's turns to the client newModel builds,
// asking "hi", and checks the requests sent and the answer or the
// classified error.
func Failures(t *testing.T, failures []Failure, newModel func(t *testing.T, srv *llmtest.Server) llm.Model) {
	t.Helper()
	for _, tt := range failures {
		t.Run(tt.Name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.Turns...)
			resp, err := llm.Generate(context.Background(), newModel(t, srv), Ask("hi"))
			if got := len(srv.Requests()); got != tt.Requests {
				t.Errorf("requests = %d, want %d", got, tt.Requests)
			}
			if tt.Kind == "" {
				if err != nil || (tt.Text != "" && resp.Message.Text() != tt.Text) {
					t.Fatalf("Generate() = %v, %v, want %q", resp, err, tt.Text)
				}
				return
			}
			var le *llm.Error
			if !errors.Is(err, tt.Kind) || !errors.As(err, &le) || le.Kind != tt.Kind || !strings.Contains(err.Error(), tt.Text) {
				t.Fatalf("Generate() error = %v, want kind %v containing %q", err, tt.Kind, tt.Text)
			}
		})
	}
}

// A Body is a change to the request and what the request body the client
// sends must then contain.
type Body struct {
	Name string
	Edit func(req *llm.Request)
	Want string
}

// Bodies sends Ask("hi"), changed by each case's Edit, to the client
// newModel builds, and checks the body the server received.
func Bodies(t *testing.T, bodies []Body, newModel func(t *testing.T, srv *llmtest.Server) llm.Model) {
	t.Helper()
	for _, tt := range bodies {
		t.Run(tt.Name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
			req := Ask("hi")
			tt.Edit(req)
			if _, err := llm.Generate(context.Background(), newModel(t, srv), req); err != nil {
				t.Fatal(err)
			}
			if body := string(srv.Requests()[0].Body); !strings.Contains(body, tt.Want) {
				t.Errorf("body = %s\nwant it to contain %s", body, tt.Want)
			}
		})
	}
}

// ToolChoices are the cases of [Bodies] for the three tool choices the
// default leaves out, given the JSON each must write: a forced
// get_weather, ToolNone and ToolRequired.
func ToolChoices(named, none, required string) []Body {
	set := func(c llm.ToolChoice) func(req *llm.Request) { return func(req *llm.Request) { req.ToolChoice = c } }
	return []Body{
		{Name: "named tool", Edit: set(llm.ToolChoice{Name: "get_weather"}), Want: named},
		{Name: "no tool", Edit: set(llm.ToolChoice{Mode: llm.ToolNone}), Want: none},
		{Name: "a tool required", Edit: set(llm.ToolChoice{Mode: llm.ToolRequired}), Want: required},
	}
}

// A BadConfig is a model name and a Config that a client's constructor
// must refuse, and what its error must contain.
type BadConfig[C any] struct {
	Model  string
	Config *C
	Want   string
}

// BadConfigs checks that the constructor newModel, named name in
// messages, refuses each case with the error wanted.
func BadConfigs[C, M any](t *testing.T, name string, newModel func(model string, cfg *C) (M, error), cases []BadConfig[C]) {
	t.Helper()
	for _, tt := range cases {
		if _, err := newModel(tt.Model, tt.Config); err == nil || !strings.Contains(err.Error(), tt.Want) {
			t.Errorf("%s(%q, %+v) error = %v, want %q", name, tt.Model, tt.Config, err, tt.Want)
		}
	}
}
