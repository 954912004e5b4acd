package toolwire

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// An Event is one thing that happened in a run. The set is closed:
// [Agent.Stream] yields [TextEvent], [CallEvent], [ResultEvent],
// [TurnEvent], [TurnStartEvent], [StepEvent] and [DoneEvent]; a [Hook] is
// told those and [ModelCallEvent], [ModelDoneEvent], [ToolStartEvent],
// [ToolDoneEvent], [ToolProgressEvent] and [InterruptEvent].
type Event interface{ isEvent() }

// TextEvent is a fragment of the model's text, as it streams (the run's
// view of an [llm.TextDelta]: with the turn it belongs to).
type TextEvent struct {
	Turn int
	Text string
}

// CallEvent is a tool call the model made, yielded when its answer is
// complete, before any tool runs.
type CallEvent struct {
	Turn int
	Call llm.ToolCall
	// Approval is set when the tool needs a person's approval.
	Approval bool
}

// ResultEvent is the answer to one call, exactly as the model will read
// it, yielded in call order once every call of the turn is answered.
type ResultEvent struct {
	Turn   int
	Result llm.ToolResult
	// ErrorType is the type of the result's error when the executor
	// answered the call with one ("invalid_arguments", "timeout", ...);
	// "" for a success, or for a call answered without the executor.
	ErrorType toolresult.ErrorType
	// Duration is how long the call took; 0 for a call answered without
	// running.
	Duration time.Duration
	// Shaping says what shaping did; nil when nothing was shaped.
	Shaping *toolresult.Report
}

// TurnEvent sums up a turn when it ends: what the log line says.
type TurnEvent struct {
	Report TurnReport
}

// StepEvent is yielded after every step of the loop, with the state it
// produced: the place to save it. Added are the messages the step
// appended; after fitting changed the history, State.Messages is the
// whole new history and Fitted is set.
type StepEvent struct {
	State  *State
	Added  []llm.Message
	Fitted bool
}

// DoneEvent ends every run, with its [Result].
type DoneEvent struct {
	Result *Result
}

func (TextEvent) isEvent()   {}
func (CallEvent) isEvent()   {}
func (ResultEvent) isEvent() {}
func (TurnEvent) isEvent()   {}
func (StepEvent) isEvent()   {}
func (DoneEvent) isEvent()   {}

// A TurnReport describes one turn: a model call and the tools it called.
type TurnReport struct {
	// Turn is the turn's number, from 1.
	Turn int
	// Added counts the messages the turn added to the history.
	Added int
	// Tokens is the history's size after the turn, as the agent counts
	// it; Headroom is what is left of the window for the next call (the
	// window less the history and the output reserve).
	Tokens, Headroom int
	// Calls are the turn's calls, in order.
	Calls []CallReport
	// Truncated is set when shaping cut a result to fit.
	Truncated bool
	// Fitted is set when fitting changed the history before the call;
	// Fit says what it did.
	Fitted bool
	Fit    budget.FitReport
	// Usage is what the provider reported for the turn's call.
	Usage llm.Usage
	// Encoded and Reused count the messages encoded for the call and
	// those whose cached encoding was sent again (clients with
	// llm.CachedModel).
	Encoded, Reused int
	// Stop is why the run ended with this turn, when it did.
	Stop StopReason
}

// A CallReport is one call of a turn.
type CallReport struct {
	ID, Tool string
	Status   llm.Status
	// Error is the error type of a failed call.
	Error    toolresult.ErrorType
	Duration time.Duration
}

// A Result is how a run ended.
type Result struct {
	// Stop is why: [Answered], a guard, an error, [Paused] or
	// [Cancelled].
	Stop StopReason
	// Message says why for people.
	Message string
	// Answer is the model's final answer or, when a guard stopped the
	// run, a summary of what it gathered.
	Answer string
	// Output is the answer as JSON, when Config.Output is set and the
	// answer matches it.
	Output jsontext.Value
	// Turns counts the model's answers; Usage adds up their token counts.
	Turns int
	Usage llm.Usage
	// State is the run's last state, from which it can be continued
	// ([Agent.Continue]) when it paused or was cancelled. With
	// Config.Sessions the continued run goes on in the same session, as
	// long as State is still the session's latest.
	State *State
	// Session is the id of the session the run is stored as, with
	// Config.Sessions; "" without. Continue a paused, cancelled or
	// crashed run with [Agent.Resume].
	Session string
}
