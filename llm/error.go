package llm

import (
	"strconv"
	"strings"
	"time"
)

// ErrorKind classifies a provider failure by what the caller can do about
// it. Each kind is itself an error, so that
//
//	errors.Is(err, llm.RateLimited)
//
// reports whether err is, or wraps, an [*Error] of that kind.
type ErrorKind string

// The kinds of provider failure.
const (
	// RateLimited: the caller sent too much (HTTP 429); wait RetryAfter
	// and send it again.
	RateLimited ErrorKind = "rate_limited"
	// Overloaded: the provider failed or is busy (HTTP 5xx, Anthropic's
	// 529); sending it again later usually works.
	Overloaded ErrorKind = "overloaded"
	// ContextLength: the request is longer than the model's context
	// window; shorten the history before sending it again.
	ContextLength ErrorKind = "context_length"
	// Auth: the API key is missing, wrong or lacks permission (HTTP 401,
	// 403); sending it again will not help.
	Auth ErrorKind = "auth"
	// Invalid: the provider refused the request as malformed (HTTP 400,
	// 404, 422); sending it again unchanged will not help.
	Invalid ErrorKind = "invalid"
	// Transport: no usable answer arrived — the connection failed or timed
	// out, the stream broke off, or the response could not be read (an
	// HTML page from a proxy, a truncated body).
	Transport ErrorKind = "transport"
)

// Error returns the kind's description, so that a kind can be the target
// of [errors.Is].
func (k ErrorKind) Error() string {
	switch k {
	case RateLimited:
		return "rate limited"
	case Overloaded:
		return "provider overloaded"
	case ContextLength:
		return "context length exceeded"
	case Auth:
		return "authentication failed"
	case Invalid:
		return "invalid request"
	case Transport:
		return "transport failure"
	}
	return "provider error " + strconv.Quote(string(k))
}

// Retryable reports whether sending the same request again may succeed:
// true for [RateLimited], [Overloaded] and [Transport].
func (k ErrorKind) Retryable() bool {
	return k == RateLimited || k == Overloaded || k == Transport
}

// An Error is a provider failure, classified once by the client that met
// it. Compare kinds with [errors.Is] (errors.Is(err, llm.ContextLength));
// read the details with [errors.As].
type Error struct {
	// Kind says what the caller can do about it.
	Kind ErrorKind
	// Op names the operation that failed: "openai chat", "anthropic
	// messages", ...
	Op string
	// StatusCode is the HTTP status of the provider's answer, 0 when none
	// arrived (or when the failure came inside a 200 stream).
	StatusCode int
	// RetryAfter is how long the provider asked the caller to wait before
	// sending again, 0 when it did not say.
	RetryAfter time.Duration
	// Code is the provider's own error code or type, when it gave one
	// ("rate_limit_exceeded", "overloaded_error", "RESOURCE_EXHAUSTED").
	Code string
	// ProviderMessage is the provider's own error message, verbatim.
	ProviderMessage string
	// Err is the underlying cause of a [Transport] failure (a network
	// error, a decode error); nil when the provider answered with an error.
	Err error
}

// Error returns "OP: KIND (HTTP STATUS CODE): PROVIDER MESSAGE: CAUSE
// (retry after D)", leaving out what is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Kind.Error())
	switch {
	case e.StatusCode != 0 && e.Code != "":
		b.WriteString(" (HTTP " + strconv.Itoa(e.StatusCode) + " " + e.Code + ")")
	case e.StatusCode != 0:
		b.WriteString(" (HTTP " + strconv.Itoa(e.StatusCode) + ")")
	case e.Code != "":
		b.WriteString(" (" + e.Code + ")")
	}
	if e.ProviderMessage != "" {
		b.WriteString(": ")
		b.WriteString(e.ProviderMessage)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.RetryAfter > 0 {
		b.WriteString(" (retry after " + e.RetryAfter.String() + ")")
	}
	return b.String()
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's kind, so that errors.Is(err,
// llm.RateLimited) holds for a rate-limit error.
func (e *Error) Is(target error) bool {
	k, ok := target.(ErrorKind)
	return ok && k == e.Kind
}

// Retryable reports whether sending the same request again may succeed.
func (e *Error) Retryable() bool { return e.Kind.Retryable() }
