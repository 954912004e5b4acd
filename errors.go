package toolwire

import (
	"strings"

	"github.com/toolwire/toolwire/transcript"
)

// The ends of a run that leave a state to continue from, besides the stop
// reasons of a finished run.
const (
	// Paused: calls wait for a person's approval (Effect AwaitApproval).
	Paused StopReason = "paused"
	// Cancelled: the context ended; the state holds every call answered
	// and a model call to make next.
	Cancelled StopReason = "cancelled"
)

// Error returns the reason's name, so that a reason can be the target
// of errors.Is (and prints as its name):
//
//	if errors.Is(err, toolwire.MaxTurns) { … }
func (r StopReason) Error() string { return string(r) }

// A StopError is the error of a run that ended without an answer: which
// reason, what happened, and the underlying cause (an *llm.Error, a
// context error, a [*HistoryError]). errors.Is(err, reason) holds for its
// reason.
type StopError struct {
	Reason  StopReason
	Message string
	Err     error
}

func (e *StopError) Error() string { return "toolwire: " + e.Message }

// Unwrap returns the cause.
func (e *StopError) Unwrap() error { return e.Err }

// Is reports whether target is e's reason.
func (e *StopError) Is(target error) bool {
	r, ok := target.(StopReason)
	return ok && r == e.Reason
}

// A HistoryError says that the history about to be sent breaks a rule of
// the model's provider. The loop never builds such a history; meeting one
// is a bug, and the run stops rather than send a request the provider
// would refuse.
type HistoryError struct {
	Dialect    transcript.Dialect
	Violations []transcript.Violation
}

func (e *HistoryError) Error() string {
	var b strings.Builder
	b.WriteString("the history breaks ")
	b.WriteString(string(e.Dialect))
	b.WriteString(" rules before the model call: ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(string(v.Rule) + " at " + v.Path + ": " + v.Message)
	}
	b.WriteString(" (a toolwire bug: please report it)")
	return b.String()
}
