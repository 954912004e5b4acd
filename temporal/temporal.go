// Package temporal runs toolwire sessions as Temporal workflows: many
// workers on one task queue, runs that survive the loss of a machine,
// and waits for a person that cost nothing while they last.
//
// The mapping is the loop's own split (docs/loop.md): the workflow is the
// loop — it holds the [toolwire.State] and calls [toolwire.Agent.Step],
// which is deterministic — and every [toolwire.Agent.Perform] is an
// activity: one per model call, one per tool call, each with its own
// timeout, heartbeat and retry policy. The retry policy follows the
// tool's idempotency level: a level_0 call runs at most once, and a
// worker lost while it ran makes its outcome unknown (the call is
// answered interrupted, as single-machine recovery answers it); a level_1
// call is retried with its idempotency key; a level_2 call is retried
// freely. A person's decisions are an update ([UpdateDecide]), a new
// message a signal ([SignalMessage]); the waiting calls, the messages and
// the events are queries. docs/temporal.md says when to use it and how to
// run it against a cluster.
//
// The package lives in a module of its own, so that the toolwire module
// never imports the Temporal SDK.
package temporal

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// The names the workflow, its activities, signals, updates and queries
// are registered under: a client that is not Go (or not this package)
// uses them.
const (
	// WorkflowName is the session workflow.
	WorkflowName = "toolwire.Session"
	// ActivityModel performs a model call.
	ActivityModel = "toolwire.Model"
	// ActivityTool performs one tool call.
	ActivityTool = "toolwire.Tool"
	// UpdateDecide gives the decisions on the calls that wait for
	// approval, and an optional message ([Decisions]); a decision the run
	// cannot take (no call waits, an edit that breaks the tool's schema)
	// is refused, and nothing changes.
	UpdateDecide = "decide"
	// SignalMessage sends a new user message (a string): it goes after
	// the turn's tool results, or starts the next model call.
	SignalMessage = "message"
	// QueryPending returns the calls that wait for a decision
	// ([]PendingCall).
	QueryPending = "pending"
	// QueryMessages returns the session's history ([Messages]).
	QueryMessages = "messages"
	// QueryEvents returns the events after a sequence number ([Events]).
	QueryEvents = "events"
)

// DefaultTaskQueue is the task queue workers poll and sessions start on
// when none is named.
const DefaultTaskQueue = "toolwire"

// SessionInput starts (or continues, after continue-as-new) a session.
type SessionInput struct {
	// Agent names the agent, as the worker registered it.
	Agent string `json:"agent"`
	// Question is the first user message of a new session.
	Question string `json:"question,omitempty"`
	// State, when set, is the state to continue from (toolwire.State's
	// JSON): what continue-as-new carries over.
	State jsontext.Value `json:"state,omitempty"`
	// Seq is the number of the last event before this run of the
	// workflow, so that event numbers go on across continue-as-new.
	Seq int `json:"seq,omitempty"`
	// Pending are the inputs that arrived and were not applied yet when
	// the workflow continued as new (toolwire.MarshalInput's JSON).
	Pending []jsontext.Value `json:"pending,omitempty"`
}

// SessionResult is how a session ended.
type SessionResult struct {
	// Stop is the stop reason (toolwire.StopReason).
	Stop string `json:"stop"`
	// Message says it for people.
	Message string `json:"message"`
	// Answer is the final answer, or what a guard's stop gathered.
	Answer string `json:"answer,omitempty"`
	// Turns counts the model's answers.
	Turns int `json:"turns"`
	// State is the final state (toolwire.State's JSON).
	State jsontext.Value `json:"state"`
	// Seq is the number of the session's last event.
	Seq int `json:"seq"`
}

// PendingCall is a call that waits for a person's decision.
type PendingCall struct {
	ID   string         `json:"id"`
	Tool string         `json:"tool"`
	Args jsontext.Value `json:"args"`
}

// Decision is a person's decision on one waiting call, as an update
// carries it.
type Decision struct {
	// Kind is "approve", "reject" or "edit".
	Kind string `json:"kind"`
	// Reason, for a rejection, is told to the model.
	Reason string `json:"reason,omitempty"`
	// Args, for an edit, are the arguments to run the call with.
	Args jsontext.Value `json:"args,omitempty"`
}

// Decisions is the argument of the [UpdateDecide] update.
type Decisions struct {
	// Calls decide the waiting calls, by call id: every one needs a
	// decision.
	Calls map[string]Decision `json:"calls,omitempty"`
	// Message, when set, is a new user message.
	Message string `json:"message,omitempty"`
}

// Messages is the answer to [QueryMessages]: the history in
// llm.Conversation's persistence format.
type Messages struct {
	Conversation jsontext.Value `json:"conversation"`
}

// Events is the answer to [QueryEvents].
type Events struct {
	// Events are the events after the sequence number asked for.
	Events []Event `json:"events"`
	// Waiting is set while the session waits for a decision.
	Waiting bool `json:"waiting,omitempty"`
	// Done is set once the session has ended.
	Done bool `json:"done,omitempty"`
}

// Event is one thing a session did, numbered from 1 across the whole
// session. Type is "turn" (a model call is ready), "text" (the model's
// text beside its calls), "call" (one call the model made), "result"
// (one result as the model reads it), "approval" (calls wait for a
// decision), "decision" (decisions were applied) or "done"; Data is its
// JSON object. [Follow] adds "delta" events (the model's text as it
// streams, [DeltaData]), which the workflow does not keep.
type Event struct {
	Seq  int            `json:"seq"`
	Type string         `json:"type"`
	Data jsontext.Value `json:"data"`
	// Streamed, set by [Follow] on the "text" event, or the "done" event
	// of an answer, after a model call's "delta" events, is how many
	// bytes of its text (or answer) the deltas gave: the rest is new. The
	// workflow never sets it.
	Streamed int `json:"streamed,omitzero"`
}

// ModelRequest is the input of the model activity.
type ModelRequest struct {
	// Agent names the agent.
	Agent string `json:"agent"`
	// State is the state that wants the model call (toolwire.State's
	// JSON); the activity builds the request from it.
	State jsontext.Value `json:"state"`
	// Seq is the number of the session's last event before the call:
	// the model's text, as it streams, is published under it ([Follow]).
	Seq int `json:"seq,omitempty"`
}

// ToolRequest is the input of the tool activity: one call.
type ToolRequest struct {
	// Agent names the agent.
	Agent string `json:"agent"`
	// State is a state that wants exactly this call run
	// (toolwire.State's JSON, without the history), with the room its
	// result may take.
	State jsontext.Value `json:"state"`
}

// Outcome is what an activity returns: toolwire.MarshalInput's JSON of
// the outcome of its effect.
type Outcome struct {
	Input jsontext.Value `json:"input"`
}

// Config configures a [Runtime]. A nil *Config, or a zero field, means
// the documented default.
type Config struct {
	// ModelTimeout bounds one attempt of a model call. Default 10 minutes.
	ModelTimeout time.Duration
	// ModelAttempts bounds the attempts of a model call whose worker was
	// lost (a model call has no side effect: it is made again). Default 5.
	ModelAttempts int
	// Heartbeat is the heartbeat timeout of every activity: a worker that
	// has not heartbeaten for this long is taken as lost, and the
	// activity's retry policy decides. Activities heartbeat every third of
	// it. Default 30 seconds.
	Heartbeat time.Duration
	// Level1Attempts bounds the attempts of a level_1 tool call whose
	// worker was lost (each with the same idempotency key). Default 5.
	Level1Attempts int
	// Level2Attempts bounds the attempts of a level_2 tool call whose
	// worker was lost. Default 10.
	Level2Attempts int
	// RetryInterval is the wait before an activity's first retry.
	// Default 1 second.
	RetryInterval time.Duration
	// HistoryEvents continues the workflow as new past this many history
	// events (and whenever the server suggests it), with the state carried
	// over. Default 10,000.
	HistoryEvents int
	// HistoryBytes does the same past this many bytes of history.
	// Default 20 MiB.
	HistoryBytes int
	// TextInterval is how often a model activity writes the text the
	// model has streamed so far to the session store of its agent
	// (toolwire.Config.Sessions, with session.Results and
	// session.Catalog), where [Follow] reads it; the text is deleted when
	// the call ends. Default 100 ms; negative publishes nothing (followers
	// then see the text when the model call ends). Agents without such a
	// store publish nothing either.
	TextInterval time.Duration
}

// withDefaults returns a copy of c with every zero field set.
func (c *Config) withDefaults() *Config {
	var out Config
	if c != nil {
		out = *c
	}
	def := func(p *time.Duration, d time.Duration) {
		if *p == 0 {
			*p = d
		}
	}
	defInt := func(p *int, d int) {
		if *p == 0 {
			*p = d
		}
	}
	def(&out.ModelTimeout, 10*time.Minute)
	def(&out.Heartbeat, 30*time.Second)
	def(&out.RetryInterval, time.Second)
	def(&out.TextInterval, 100*time.Millisecond)
	defInt(&out.ModelAttempts, 5)
	defInt(&out.Level1Attempts, 5)
	defInt(&out.Level2Attempts, 10)
	defInt(&out.HistoryEvents, 10000)
	defInt(&out.HistoryBytes, 20<<20)
	return &out
}
