package toolwire

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolwire/toolwire/llm"
)

// FailureKind says why a model call failed, in a form that can be
// recorded and replayed.
type FailureKind string

// The kinds of model-call failure. The first six are the provider
// failures [llm.ErrorKind] classifies, under the same names.
const (
	FailRateLimited   FailureKind = FailureKind(llm.RateLimited)
	FailOverloaded    FailureKind = FailureKind(llm.Overloaded)
	FailContextLength FailureKind = FailureKind(llm.ContextLength)
	FailAuth          FailureKind = FailureKind(llm.Auth)
	FailInvalid       FailureKind = FailureKind(llm.Invalid)
	FailTransport     FailureKind = FailureKind(llm.Transport)
	// FailCancelled: the run's context was cancelled during the call.
	FailCancelled FailureKind = "cancelled"
	// FailDeadline: the run's context reached its deadline.
	FailDeadline FailureKind = "deadline_exceeded"
	// FailEmptyMessage: the model answered with no text and no call
	// ([llm.ErrEmptyMessage]); the response is kept.
	FailEmptyMessage FailureKind = "empty_message"
	// FailIncomplete: the stream left tool calls unfinished
	// ([*llm.IncompleteError]); the response is kept, Incomplete lists them.
	FailIncomplete FailureKind = "incomplete_calls"
	// FailOther: an error the client did not classify.
	FailOther FailureKind = "other"
)

// A ModelFailure is why a model call failed, as a plain value: it
// survives JSON and back, so that a run can be recorded as its outcomes
// and replayed. It is an error; [errors.Is] and [errors.As] see through
// it to what the client reported: errors.Is(f, llm.ContextLength),
// errors.Is(f, context.Canceled), errors.As(f, &llmErr) with an
// *llm.Error.
type ModelFailure struct {
	// Kind classifies the failure.
	Kind FailureKind `json:"kind"`
	// Message is the error as the client worded it, for people.
	Message string `json:"message"`
	// Op, StatusCode, Code, ProviderMessage and RetryAfter are those of
	// the provider's [*llm.Error], when there was one.
	Op              string        `json:"op,omitzero"`
	StatusCode      int           `json:"status_code,omitzero"`
	Code            string        `json:"code,omitzero"`
	ProviderMessage string        `json:"provider_message,omitzero"`
	RetryAfter      time.Duration `json:"retry_after_ns,omitzero"`
	// Incomplete lists the calls a stream cut off, for FailIncomplete.
	Incomplete []IncompleteCall `json:"incomplete,omitzero"`
	// Finish is how the stream ended, for FailIncomplete and
	// FailEmptyMessage.
	Finish llm.FinishReason `json:"finish,omitzero"`
	// FinishRaw is the provider's own finish reason.
	FinishRaw string `json:"finish_raw,omitzero"`
}

// An IncompleteCall is [llm.IncompleteCall] as JSON.
type IncompleteCall struct {
	Index   int    `json:"index"`
	ID      string `json:"id,omitzero"`
	Name    string `json:"name,omitzero"`
	Input   string `json:"input,omitzero"` // as it arrived, maybe not JSON
	Problem string `json:"problem"`
}

func (f *ModelFailure) Error() string { return f.Message }

// Unwrap returns the error the client reported, rebuilt from f.
func (f *ModelFailure) Unwrap() error {
	switch f.Kind {
	case FailRateLimited, FailOverloaded, FailContextLength, FailAuth, FailInvalid, FailTransport:
		return &llm.Error{Kind: llm.ErrorKind(f.Kind), Op: f.Op, StatusCode: f.StatusCode, RetryAfter: f.RetryAfter,
			Code: f.Code, ProviderMessage: f.ProviderMessage}
	case FailCancelled:
		return context.Canceled
	case FailDeadline:
		return context.DeadlineExceeded
	case FailEmptyMessage:
		return llm.ErrEmptyMessage
	case FailIncomplete:
		e := &llm.IncompleteError{Finish: llm.Finish{Reason: f.Finish, Raw: f.FinishRaw}}
		for _, c := range f.Incomplete {
			e.Calls = append(e.Calls, llm.IncompleteCall{Index: c.Index, ID: c.ID, Name: c.Name, Input: []byte(c.Input), Problem: c.Problem})
		}
		return e
	}
	return nil
}

// failureOf classifies err, what a model call returned; nil for nil.
func failureOf(err error, resp *llm.Response) *ModelFailure {
	if err == nil {
		return nil
	}
	f := &ModelFailure{Kind: FailOther, Message: err.Error()}
	var le *llm.Error
	var ie *llm.IncompleteError
	switch {
	case errors.Is(err, context.Canceled):
		f.Kind = FailCancelled
	case errors.Is(err, context.DeadlineExceeded):
		f.Kind = FailDeadline
	case errors.As(err, &ie):
		f.Kind, f.Finish, f.FinishRaw = FailIncomplete, ie.Finish.Reason, ie.Finish.Raw
		for _, c := range ie.Calls {
			f.Incomplete = append(f.Incomplete, IncompleteCall{Index: c.Index, ID: c.ID, Name: c.Name, Input: string(c.Input), Problem: c.Problem})
		}
	case errors.Is(err, llm.ErrEmptyMessage):
		f.Kind = FailEmptyMessage
		if resp != nil {
			f.Finish, f.FinishRaw = resp.Finish.Reason, resp.Finish.Raw
		}
	case errors.As(err, &le):
		f.Kind, f.Op, f.StatusCode, f.RetryAfter, f.Code, f.ProviderMessage = FailureKind(le.Kind), le.Op, le.StatusCode, le.RetryAfter, le.Code, le.ProviderMessage
		switch f.Kind {
		case FailRateLimited, FailOverloaded, FailContextLength, FailAuth, FailInvalid, FailTransport:
		default:
			f.Kind = FailOther
		}
	}
	return f
}

// validate checks a failure read from JSON.
func (f *ModelFailure) validate() error {
	switch f.Kind {
	case FailRateLimited, FailOverloaded, FailContextLength, FailAuth, FailInvalid, FailTransport,
		FailCancelled, FailDeadline, FailEmptyMessage, FailIncomplete, FailOther:
		return nil
	}
	return fmt.Errorf("failure kind %q is not one of rate_limited, overloaded, context_length, auth, invalid, transport, cancelled, deadline_exceeded, empty_message, incomplete_calls, other", f.Kind)
}
