package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolwire/toolwire/toolresult"
)

// Sentinel errors, for errors.Is.
var (
	// ErrUnknownTool: no tool in the registry has the name.
	ErrUnknownTool = errors.New("tool: unknown tool")
	// ErrDuplicateTool: a tool with the same name is already registered.
	ErrDuplicateTool = errors.New("tool: duplicate tool name")
)

// An Error is a typed tool failure. A tool returns one (or wraps one) to
// tell the model what kind of failure happened, so that the model can act
// on it: retry later, ask the user, try another tool. The executor renders
// it with the tool-message protocol; see [Errorf].
//
// A Go error that is not an *Error (and does not wrap one) becomes
// internal_error, except context.DeadlineExceeded (timeout) and
// context.Canceled (cancelled).
type Error struct {
	// Type is the protocol's error type: not_found, permission_denied,
	// rate_limited, ...
	Type toolresult.ErrorType
	// Message says what went wrong, for the model. Keep it short; never a
	// stack trace.
	Message string
	// RetryAfter is how long the caller should wait before retrying, for
	// rate_limited; 0 if unknown. The executor honours it when it
	// retries, and the model sees it as retry_after_ms.
	RetryAfter time.Duration
	// Err is the underlying cause, for the program (errors.Is/As); the
	// model does not see it.
	Err error
}

// Errorf returns an [*Error] of the given type with a formatted message.
// A %w verb wraps its argument as the cause:
//
//	return Order{}, tool.Errorf(toolresult.NotFound, "no order %q", in.ID)
func Errorf(typ toolresult.ErrorType, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Type: typ, Message: err.Error(), Err: errors.Unwrap(err)}
}

// Error renders "type: message".
func (e *Error) Error() string {
	return string(e.Type) + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// envelopeFor turns an error a tool returned into a failure envelope.
// deadline reports whether the attempt's own deadline had passed.
func envelopeFor(err error) toolresult.Envelope {
	var te *Error
	if errors.As(err, &te) {
		typ := te.Type
		if !typ.Valid() {
			typ = toolresult.InternalError
		}
		env := toolresult.Failure(typ, shortMessage(te.Message, string(typ)))
		env.Error.RetryAfter = max(te.RetryAfter, 0)
		return env
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return toolresult.Failure(toolresult.Timeout, "the tool did not finish in time")
	case errors.Is(err, context.Canceled):
		return toolresult.Failure(toolresult.Cancelled, "the call was cancelled before it finished")
	}
	var to interface{ Timeout() bool }
	if errors.As(err, &to) && to.Timeout() {
		return toolresult.Failure(toolresult.Timeout, shortMessage(err.Error(), "timed out"))
	}
	return toolresult.Failure(toolresult.InternalError, shortMessage(err.Error(), "the tool failed"))
}

// shortMessage keeps the first line of msg, at most 300 characters; never
// a stack trace.
func shortMessage(msg, fallback string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return fallback
	}
	return truncate(msg, 300)
}
