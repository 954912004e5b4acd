package modeltest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
)

// testFailures: each provider failure is one [*llm.Error] of the right
// kind, with the status, the wait the provider asked for and its message,
// yielded before any event; a request is sent once.
func testFailures(t *testing.T, h *Harness) {
	h.need(t, Failures)
	for _, tt := range []struct {
		name string
		err  Error
		// status is the StatusCode wanted; retryAfter the RetryAfter.
		status     int
		retryAfter time.Duration
		// message is set when the provider's message must be reported.
		message string
	}{
		{name: "rate limited", err: Error{Kind: llm.RateLimited, Status: 429, RetryAfter: 90 * time.Second, Message: "modeltest: slow down"},
			status: 429, retryAfter: 90 * time.Second, message: "modeltest: slow down"},
		{name: "rate limited without a wait", err: Error{Kind: llm.RateLimited, Status: 429, Message: "modeltest: slow down"},
			status: 429, message: "modeltest: slow down"},
		{name: "overloaded", err: Error{Kind: llm.Overloaded, Status: 503, RetryAfter: 2 * time.Second, Message: "modeltest: busy"},
			status: 503, retryAfter: 2 * time.Second, message: "modeltest: busy"},
		{name: "server error", err: Error{Kind: llm.Overloaded, Status: 500, Message: "modeltest: internal error"},
			status: 500, message: "modeltest: internal error"},
		{name: "proxy error page", err: Error{Kind: llm.Overloaded, Status: 502, HTML: true}, status: 502},
		{name: "context length", err: Error{Kind: llm.ContextLength}, status: 400},
		{name: "unauthenticated", err: Error{Kind: llm.Auth, Status: 401, Message: "modeltest: bad key"},
			status: 401, message: "modeltest: bad key"},
		{name: "forbidden", err: Error{Kind: llm.Auth, Status: 403, Message: "modeltest: no access"},
			status: 403, message: "modeltest: no access"},
		{name: "invalid", err: Error{Kind: llm.Invalid, Status: 400, Message: "modeltest: bad request"},
			status: 400, message: "modeltest: bad request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.err
			b := h.open(t, Turn{Error: &e})
			r := consume(t, b.Model.Stream(context.Background(), ask("hi")), nil)
			if len(r.events) > 0 {
				t.Errorf("Stream() yielded %s before the error: a failed request has no answer", describeAll(r.events))
			}
			le := checkError(t, r.err, e.Kind)
			if le == nil {
				return
			}
			if le.StatusCode != tt.status {
				t.Errorf("StatusCode = %d, want %d", le.StatusCode, tt.status)
			}
			if le.RetryAfter != tt.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", le.RetryAfter, tt.retryAfter)
			}
			if tt.message != "" && le.ProviderMessage != tt.message {
				t.Errorf("ProviderMessage = %q, want the provider's message %q", le.ProviderMessage, tt.message)
			}
			h.accepted(t, b, 1)
		})
	}
}

// checkError fails t unless err is, or wraps, an [*llm.Error] of kind
// with an Op, and returns it.
func checkError(t *testing.T, err error, kind llm.ErrorKind) *llm.Error {
	t.Helper()
	var le *llm.Error
	switch {
	case err == nil:
		t.Errorf("error = nil, want an *llm.Error of kind %q", string(kind))
		return nil
	case !errors.As(err, &le):
		t.Errorf("error = %v (%T), want an *llm.Error of kind %q: a provider failure is classified by the model", err, err, string(kind))
		return nil
	case le.Kind != kind || !errors.Is(err, kind):
		t.Errorf("error = %v, kind %q; want kind %q", err, string(le.Kind), string(kind))
	}
	if le.Op == "" {
		t.Errorf("error %v has no Op; want the operation that failed", err)
	}
	return le
}

// testFailureMidStream: a failure inside a stream that already gave
// content is an [*llm.Error] that ends the stream, after the content and
// without a Finish.
func testFailureMidStream(t *testing.T, h *Harness) {
	h.need(t, Failures|Streaming)
	b := h.open(t, Turn{Text: answerText, Chunk: 4, Error: &Error{Kind: llm.Overloaded, InStream: true, After: 4, Message: "modeltest: overloaded"}})
	r := consume(t, b.Model.Stream(context.Background(), ask("hi")), nil)
	checkError(t, r.err, llm.Overloaded)
	for _, ev := range r.events {
		if _, ok := ev.(llm.Finish); ok {
			t.Errorf("Stream() yielded %v before the error: a failed stream has no Finish", describe(ev))
		}
	}
	h.accepted(t, b, 1)
}

// testStreamBrokenOff: a stream that breaks off before its end is a
// [llm.Transport] failure, not an answer.
func testStreamBrokenOff(t *testing.T, h *Harness) {
	h.need(t, Failures|Streaming)
	for _, tt := range []struct {
		name string
		turn Turn
	}{
		{"text", Turn{Text: answerText, Chunk: 4, Truncate: true}},
		{"calls", Turn{Calls: parallel, Chunk: 4, Truncate: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := h.open(t, tt.turn)
			r := consume(t, b.Model.Stream(context.Background(), ask("hi")), nil)
			checkError(t, r.err, llm.Transport)
			h.accepted(t, b, 1)
		})
	}
}

// testCutOff: an answer cut off by the output token limit in the middle
// of a call is not an error of the stream: it finishes with "length", with
// the calls before the cut whole. The call the limit cut off is reported
// incomplete by the Accumulator when its arguments came in part, or is
// left out when the provider sends calls whole (Gemini).
func testCutOff(t *testing.T, h *Harness) {
	h.need(t, Failures)
	b := h.open(t, Turn{Text: "Let me check.", Calls: parallel[:2], Chunk: 4, CutOff: true})
	resp, err := llm.Generate(context.Background(), b.Model, ask("hi"))
	var ie *llm.IncompleteError
	if err != nil && !errors.As(err, &ie) {
		t.Fatalf("Generate() error = %v, want none or an *llm.IncompleteError", err)
	}
	if resp == nil || resp.Finish.Reason != llm.FinishLength {
		t.Fatalf("Generate() = %+v, want the finish reason %q", resp, llm.FinishLength)
	}
	if got := resp.Message.Text(); got != "Let me check." {
		t.Errorf("message text = %q, want %q", got, "Let me check.")
	}
	calls := resp.Message.ToolCalls()
	if len(calls) == 0 {
		t.Fatalf("Generate() = %+v, want the call before the cut", resp.Message)
	}
	checkCalls(t, calls[:1], parallel[:1])
	if ie != nil && (len(ie.Calls) != 1 || ie.Calls[0].Index != 1) {
		t.Errorf("incomplete calls = %+v, want the second call alone", ie.Calls)
	}
	if len(calls) > 1 && ie == nil {
		t.Errorf("the call cut off by the token limit arrived as a call to run (%+v), want it reported incomplete or left out", calls[1])
	}
	h.accepted(t, b, 1)
}

// testEmptyAnswer: an answer with no text and no call reaches the
// Response as [llm.ErrEmptyMessage], with its finish.
func testEmptyAnswer(t *testing.T, h *Harness) {
	h.need(t, Failures)
	b := h.open(t, Turn{})
	resp, err := llm.Generate(context.Background(), b.Model, ask("hi"))
	if !errors.Is(err, llm.ErrEmptyMessage) || resp == nil {
		t.Fatalf("Generate() = %+v, %v; want a Response and llm.ErrEmptyMessage", resp, err)
	}
	if resp.Finish.Reason != llm.FinishStop {
		t.Errorf("finish = %+v, want reason %q", resp.Finish, llm.FinishStop)
	}
	h.accepted(t, b, 1)
}
