package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    map[string]string
		want time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": "0"}, 0},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "Tue, 01 Dec 2026 12:00:30 GMT"}, 30 * time.Second},
		{map[string]string{"Retry-After": "Tue, 01 Dec 2026 11:00:00 GMT"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "x", "Retry-After": "9"}, 9 * time.Second},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.h {
			h.Set(k, v)
		}
		if got := RetryAfter(h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
	for s, want := range map[string]time.Duration{"25s": 25 * time.Second, "1.5s": 1500 * time.Millisecond, "3": 0, "-1s": 0, "xs": 0} {
		if got := ParseDuration(s); got != want {
			t.Errorf("ParseDuration(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	type chunk struct {
		Choices []struct {
			Index int    `json:"index"`
			Text  string `json:"text"`
		} `json:"choices"`
	}
	tests := []struct{ in, want string }{
		{`{"choices":[{"index":"0"}]}`, "unexpected value at choices.0.index: want an integer, got a string"},
		{`{"choices":{}}`, "unexpected value at choices: want an array, got an object"},
		{`{"choices":[{"text":1}]}`, "unexpected value at choices.0.text: want a string, got a number"},
		{`{"choices":[`, "invalid JSON at byte 12"},
		{`{"choices":[],"choices":[]}`, "invalid JSON at byte 14, in choices: duplicate object member name"},
		{`<html>`, "invalid JSON at byte 0"},
	}
	for _, tt := range tests {
		var c chunk
		err := Unmarshal([]byte(tt.in), &c)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Unmarshal(%s) = %v, want %q", tt.in, err, tt.want)
		}
		if err != nil && regexp.MustCompile(`\bGo\b|struct|int\b|\[\]`).MatchString(err.Error()) {
			t.Errorf("Unmarshal(%s) = %q names a Go type", tt.in, err)
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{`"{\"a\":1}"`: `{"a":1}`, `{ "a" : 1 }`: `{"a":1}`, `null`: ``, ``: ``, `"<&>"`: `<&>`} {
		if got, err := Text([]byte(in)); err != nil || got != want {
			t.Errorf("Text(%s) = %q, %v, want %q", in, got, err, want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	if got := Excerpt([]byte("abc"), 10); got != `"abc"` {
		t.Errorf("Excerpt = %s", got)
	}
	if got := Excerpt([]byte("ab北京"), 4); got != `"ab" (6 more bytes)` {
		t.Errorf("Excerpt cuts a rune: %s", got)
	}
}

func TestIDs(t *testing.T) {
	history := []llm.Message{llm.User("hi"), llm.Assistant(llm.ToolCall{ID: "call_1", Name: "f"}), llm.Tool(llm.ToolResult{CallID: "call_1"})}
	a, b := NewIDs("call_", history), NewIDs("call_", history)
	for i := 0; i < 3; i++ {
		if x, y := a.Make(), b.Make(); x != y || !strings.HasPrefix(x, "call_") {
			t.Errorf("Make() = %q and %q, want the same made id twice", x, y)
		}
	}
	if got := a.Use("call_1"); got != "call_1_2" {
		t.Errorf("Use(an id in the history) = %q, want call_1_2", got)
	}
	if got := a.Use("call_9"); got != "call_9" {
		t.Errorf("Use(a new id) = %q", got)
	}
	if got := a.Use("call_9"); got != "call_9_2" {
		t.Errorf("Use(the same id again) = %q", got)
	}
	other := NewIDs("call_", append(history, llm.User("more")))
	if x, y := NewIDs("call_", history).Make(), other.Make(); x == y {
		t.Errorf("two histories made the same id %q", x)
	}
}

var testErrors = Errors{
	Provider: "Test",
	Parse: func(body []byte) (string, string, time.Duration, bool) {
		var e struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if Unmarshal(body, &e) != nil || e.Message == "" {
			return "", "", 0, false
		}
		return e.Code, e.Message, 0, true
	},
	ContextLength: regexp.MustCompile(`too long`),
	Kinds:         map[string]llm.ErrorKind{"quota": llm.Auth},
}

func TestClassify(t *testing.T) {
	tests := []struct {
		status int
		ct     string
		body   string
		kind   llm.ErrorKind
		text   string
	}{
		{429, "application/json", `{"code":"rate","message":"slow down"}`, llm.RateLimited, "op: rate limited (HTTP 429 rate): slow down"},
		{429, "application/json", `{"code":"quota","message":"pay"}`, llm.Auth, "op: authentication failed (HTTP 429 quota): pay"},
		{400, "application/json", `{"message":"prompt too long"}`, llm.ContextLength, "op: context length exceeded (HTTP 400): prompt too long"},
		{413, "text/plain", `Request Entity Too Large`, llm.ContextLength, `op: context length exceeded (HTTP 413): the answer's text/plain body is not a Test error JSON: "Request Entity Too Large"`},
		{502, "text/html", `<html><head><title>502 Bad Gateway</title></head></html>`, llm.Overloaded, `op: provider overloaded (HTTP 502): the answer is an HTML page titled "502 Bad Gateway" (a proxy's?), not a Test error JSON`},
		{503, "", ``, llm.Overloaded, "op: provider overloaded (HTTP 503): the answer has no body, not a Test error JSON"},
		{401, "application/json", `{"message":"bad key"}`, llm.Auth, "op: authentication failed (HTTP 401): bad key"},
		{404, "application/json", `{"message":"no such model"}`, llm.Invalid, "op: invalid request (HTTP 404): no such model"},
	}
	for _, tt := range tests {
		le := testErrors.Classify("op", tt.status, tt.ct, []byte(tt.body))
		if le.Kind != tt.kind || le.Error() != tt.text {
			t.Errorf("Classify(%d, %s) = %v %q, want %v %q", tt.status, tt.body, le.Kind, le.Error(), tt.kind, tt.text)
		}
	}
}

// scripted serves statuses in order, then 200 "ok".
func scripted(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i < len(statuses) {
			w.Header().Set("Retry-After-Ms", "1")
			w.WriteHeader(statuses[i])
			io.WriteString(w, `{"message":"status"}`)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func get(url string) func(ctx context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	}
}

func TestDoRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		retries  int
		kind     llm.ErrorKind
		attempts int32
	}{
		{"success", nil, 0, "", 1},
		{"429 then success", []int{429}, 0, "", 2},
		{"500, 503 then success", []int{500, 503}, 0, "", 3},
		{"three 500s", []int{500, 500, 500}, 0, llm.Overloaded, 3},
		{"no retries", []int{500}, -1, llm.Overloaded, 1},
		{"400 is not retried", []int{400}, 5, llm.Invalid, 1},
		{"401 is not retried", []int{401}, 5, llm.Auth, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := scripted(t, tt.statuses...)
			c, err := New("op", provider.Options{MaxRetries: tt.retries, RetryBackoff: time.Millisecond}, &testErrors)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(context.Background(), get(srv.URL))
			if got := n.Load(); got != tt.attempts {
				t.Errorf("attempts = %d, want %d", got, tt.attempts)
			}
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("Do() error = %v", err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "ok" {
					t.Errorf("body = %q", b)
				}
				return
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("Do() error = %v, want kind %v", err, tt.kind)
			}
		})
	}
}

func TestDoConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, _ := New("op", provider.Options{MaxRetries: 1, RetryBackoff: time.Millisecond}, &testErrors)
	_, err := c.Do(context.Background(), get(url))
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.Transport || le.Err == nil {
		t.Fatalf("Do() error = %v, want a Transport error with its cause", err)
	}
}

// TestDoCancel: a cancelled context ends the call with its error, not an
// llm.Error, and the server's handler sees the request end.
func TestDoCancel(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	c, _ := New("op", provider.Options{}, &testErrors)
	_, err := c.Do(ctx, get(srv.URL))
	var le *llm.Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &le) {
		t.Fatalf("Do() error = %v, want context.Canceled and no llm.Error", err)
	}
}

// TestCallCancelStopsEvents: once ctx is done, Call passes no more events
// on, even those the decoder read before, and returns ctx's error: a
// whole answer is decoded at once, so its events would otherwise all
// arrive after the cancel.
func TestCallCancelStopsEvents(t *testing.T) {
	srv, _ := scripted(t)
	c, _ := New("op", provider.Options{MaxRetries: -1}, &testErrors)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	decode := func(resp *http.Response, emit func(llm.Event) bool) error {
		for _, text := range []string{"a", "b", "c"} {
			if !emit(llm.TextDelta{Text: text}) {
				return ErrStopped
			}
		}
		return nil
	}
	var got []llm.Event
	err := c.Call(ctx, get(srv.URL), func() Decoder { return decode }, func(ev llm.Event) bool {
		got = append(got, ev)
		cancel()
		return true
	})
	var le *llm.Error
	if len(got) != 1 || !errors.Is(err, context.Canceled) || errors.As(err, &le) {
		t.Fatalf("Call() = events %v, error %v; want 1 event, then context.Canceled and no llm.Error", got, err)
	}
}

// TestIdleBody: a body that stops arriving fails with ErrIdle. The server
// writes a first chunk and then waits for the client to give up.
func TestIdleBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: 1\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, _ := New("op", provider.Options{IdleTimeout: 20 * time.Millisecond}, &testErrors)
	resp, err := c.Do(context.Background(), get(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, ErrIdle) || !strings.Contains(err.Error(), "no data for 20ms") {
		t.Fatalf("read error = %v, want ErrIdle", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	if _, err := New("op", provider.Options{IdleTimeout: -1}, &testErrors); err == nil || err.Error() != "op: IdleTimeout is negative (-1ns); 0 means the default" {
		t.Errorf("New() error = %v", err)
	}
}

func TestFinishes(t *testing.T) {
	f := Finishes{"length": llm.FinishLength, "tool_use": llm.FinishToolCalls}
	tests := []struct {
		raw   string
		calls bool
		want  llm.FinishReason
	}{
		{"length", false, llm.FinishLength},
		{"length", true, llm.FinishLength},
		{"tool_use", false, llm.FinishToolCalls},
		{"stop", false, llm.FinishStop},
		{"stop", true, llm.FinishToolCalls},
		{"", true, llm.FinishToolCalls},
		{"", false, llm.FinishStop},
	}
	for _, tt := range tests {
		if got := f.Of(tt.raw, tt.calls); got != (llm.Finish{Reason: tt.want, Raw: tt.raw}) {
			t.Errorf("Of(%q, %v) = %+v, want %v", tt.raw, tt.calls, got, tt.want)
		}
	}
}

func TestToolChoices(t *testing.T) {
	c := ToolChoices{Named: `{"tool":%s}`, None: `"none"`, Required: `"any"`}
	tools := []llm.ToolSpec{{Name: "f"}}
	tests := []struct {
		req  llm.Request
		want string
	}{
		{llm.Request{Tools: tools}, ``},
		{llm.Request{Tools: tools, ToolChoice: llm.ToolChoice{Name: `say "hi"`}}, `{"tool":"say \"hi\""}`},
		{llm.Request{Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolNone}}, `"none"`},
		{llm.Request{Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolRequired}}, `"any"`},
		{llm.Request{ToolChoice: llm.ToolChoice{Mode: llm.ToolRequired}}, ``},
	}
	for _, tt := range tests {
		if got := c.Of(&tt.req); got != tt.want {
			t.Errorf("Of(%+v) = %s, want %s", tt.req.ToolChoice, got, tt.want)
		}
	}
}

func TestOpen(t *testing.T) {
	mine := http.Header{"X-Mine": {"1"}}
	c, err := Open("op", provider.Options{BaseURL: "http://localhost:8000/v1//", Header: mine}, "", &testErrors)
	if err != nil {
		t.Fatal(err)
	}
	c.Header().Set("Authorization", "Bearer k")
	if got := c.URL("/chat/completions"); got != "http://localhost:8000/v1/chat/completions" {
		t.Errorf("URL() = %s", got)
	}
	if got := c.Header(); got.Get("X-Mine") != "1" || got.Get("Authorization") != "Bearer k" || mine.Get("Authorization") != "" {
		t.Errorf("Header() = %v, caller's %v, want the caller's copied, and it unchanged", got, mine)
	}
	if c, err := Open("op", provider.Options{}, "https://api.example.com", &testErrors); err != nil || c.URL("/x") != "https://api.example.com/x" || c.Header() == nil {
		t.Errorf("Open(no BaseURL) = %v, want the default URL and a header to add to", err)
	}
	for _, tt := range []struct {
		o    provider.Options
		want string
	}{
		{provider.Options{BaseURL: "ftp://x"}, `op: BaseURL "ftp://x" is not an http or https URL`},
		{provider.Options{BaseURL: "http://x", Timeout: -1}, "op: Timeout is negative (-1ns); 0 means the default"},
		{provider.Options{BaseURL: "http://x", RetryBackoff: -time.Second}, "op: RetryBackoff is negative (-1s); 0 means the default"},
		{provider.Options{BaseURL: "http://x", MaxRetryWait: -time.Second}, "op: MaxRetryWait is negative (-1s); 0 means the default"},
	} {
		if _, err := Open("op", tt.o, "", &testErrors); err == nil || err.Error() != tt.want {
			t.Errorf("Open(%+v) error = %v, want %s", tt.o, err, tt.want)
		}
	}
}
