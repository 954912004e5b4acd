package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// script is a Model that yields its events, then err if set.
type script struct {
	events []Event
	err    error
}

func (s script) Dialect() string { return "" }

func (s script) Stream(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for _, ev := range s.events {
			if !yield(ev, nil) {
				return
			}
		}
		if s.err != nil {
			yield(nil, s.err)
		}
	}
}

func TestGenerate(t *testing.T) {
	call := ToolCall{ID: "call_1", Name: "get_weather", Input: jsontext.Value(`{"city":"Paris"}`)}
	rate := &Error{Kind: RateLimited, Op: "test", StatusCode: 429}
	tests := []struct {
		name    string
		m       script
		want    *Response
		wantErr error
	}{
		{
			name: "text and usage",
			m: script{events: []Event{TextDelta{Text: "Hel"}, TextDelta{Text: "lo"},
				Usage{InputTokens: 10, CacheReadTokens: 4}, Usage{OutputTokens: 2, ReasoningTokens: 1}, Finish{Reason: FinishStop, Raw: "stop"}}},
			want: &Response{Message: Assistant(Text{Text: "Hello"}), Usage: Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: 4, ReasoningTokens: 1},
				Finish: Finish{Reason: FinishStop, Raw: "stop"}},
		},
		{
			name: "tool call",
			m: script{events: []Event{ToolCallDelta{Index: 0, ID: "call_1", Name: "get_weather"},
				ToolCallDelta{Index: 0, Arguments: `{"city":"Paris"}`}, Finish{Reason: FinishToolCalls}}},
			want: &Response{Message: Assistant(call), Finish: Finish{Reason: FinishToolCalls}},
		},
		{
			name:    "stream error",
			m:       script{events: []Event{TextDelta{Text: "Hel"}}, err: rate},
			wantErr: rate,
		},
		{
			name:    "cut off call",
			m:       script{events: []Event{ToolCallDelta{Index: 0, ID: "call_1", Name: "f", Arguments: `{"a":`}, Finish{Reason: FinishLength}}},
			want:    &Response{Message: Assistant(ToolCall{ID: "call_1", Name: "f", Input: jsontext.Value(`{"a":`)}), Finish: Finish{Reason: FinishLength}},
			wantErr: ErrIncompleteCall,
		},
		{
			name:    "empty",
			m:       script{events: []Event{TextDelta{Text: " \n"}, ReasoningDelta{Text: "hmm"}, Finish{Reason: FinishLength}}},
			want:    &Response{Message: Assistant(Text{Text: " \n"}, Reasoning{Text: "hmm"}), Finish: Finish{Reason: FinishLength}},
			wantErr: ErrEmptyMessage,
		},
		{
			name:    "nothing at all",
			m:       script{},
			want:    &Response{Message: Message{Role: RoleAssistant, Parts: []Part{}}},
			wantErr: ErrEmptyMessage,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Generate(context.Background(), tt.m, &Request{})
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Generate() error = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Generate() = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestEmptyMessageErrorSaysFinish(t *testing.T) {
	var a Accumulator
	a.Add(Finish{Reason: FinishContentFilter})
	_, err := a.Response()
	if want := "llm: the model answered with an empty message (finish reason: content_filter)"; err == nil || err.Error() != want {
		t.Errorf("Response() error = %v, want %q", err, want)
	}
}

func TestErrorKinds(t *testing.T) {
	for _, k := range []ErrorKind{RateLimited, Overloaded, ContextLength, Auth, Invalid, Transport} {
		err := fmt.Errorf("turn 3: %w", &Error{Kind: k, Op: "openai chat"})
		for _, other := range []ErrorKind{RateLimited, Overloaded, ContextLength, Auth, Invalid, Transport} {
			if got := errors.Is(err, other); got != (k == other) {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", err, other, got, k == other)
			}
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != k {
			t.Errorf("errors.As(%v) = %v, want kind %v", err, e, k)
		}
		want := k == RateLimited || k == Overloaded || k == Transport
		if e.Retryable() != want {
			t.Errorf("(%v).Retryable() = %v, want %v", k, e.Retryable(), want)
		}
	}
}

func TestErrorText(t *testing.T) {
	cause := errors.New("unexpected EOF")
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Kind: RateLimited, Op: "openai chat", StatusCode: 429, Code: "rate_limit_exceeded", ProviderMessage: "Rate limit reached.", RetryAfter: 2 * time.Second},
			"openai chat: rate limited (HTTP 429 rate_limit_exceeded): Rate limit reached. (retry after 2s)"},
		{&Error{Kind: Overloaded, Op: "anthropic messages", StatusCode: 529}, "anthropic messages: provider overloaded (HTTP 529)"},
		{&Error{Kind: Overloaded, Op: "anthropic messages", Code: "overloaded_error", ProviderMessage: "Overloaded"}, "anthropic messages: provider overloaded (overloaded_error): Overloaded"},
		{&Error{Kind: Transport, Op: "gemini", Err: cause}, "gemini: transport failure: unexpected EOF"},
		{&Error{Kind: "odd"}, `provider error "odd"`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(&Error{Kind: Transport, Err: cause}, cause) {
		t.Error("errors.Is(transport error, its cause) = false, want true")
	}
}

func TestRequestValidate(t *testing.T) {
	hot, cold, nan := 2.5, 0.2, 0.0
	nan = nan / nan
	tools := []ToolSpec{{Name: "get_weather"}}
	tests := []struct {
		req  Request
		want string // "" for valid
	}{
		{Request{}, ""},
		{Request{Tools: tools, ToolChoice: ToolChoice{Mode: ToolRequired}, Temperature: &cold, MaxOutputTokens: 100, Effort: EffortHigh}, ""},
		{Request{Tools: tools, ToolChoice: ToolChoice{Name: "get_weather"}}, ""},
		{Request{Tools: tools, ToolChoice: ToolChoice{Mode: ToolNone, Name: "get_weather"}}, "named tool must be called"},
		{Request{Tools: tools, ToolChoice: ToolChoice{Name: "get_time"}}, `"get_time", which is not among the request's tools`},
		{Request{ToolChoice: ToolChoice{Mode: ToolRequired}}, "no tools"},
		{Request{ToolChoice: ToolChoice{Mode: "any"}}, `unknown tool choice "any"`},
		{Request{Temperature: &hot}, "temperature 2.5"},
		{Request{Temperature: &nan}, "temperature NaN"},
		{Request{MaxOutputTokens: -1}, "negative"},
		{Request{Effort: "max"}, `unknown reasoning effort "max"`},
	}
	for _, tt := range tests {
		err := tt.req.Validate()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.req, err, tt.want)
		}
	}
}

func TestUsageAdd(t *testing.T) {
	got := Usage{1, 2, 3, 4, 5}.Add(Usage{10, 20, 30, 40, 50})
	if want := (Usage{11, 22, 33, 44, 55}); got != want {
		t.Errorf("Add() = %+v, want %+v", got, want)
	}
}
