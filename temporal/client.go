package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

// StartOptions say where and how to start a session.
type StartOptions struct {
	// ID is the session's id: the workflow id, and the run's id in
	// toolwire.State (idempotency keys derive from it). "" means a new
	// "run_" id.
	ID string
	// TaskQueue is the queue the workers poll; "" means
	// [DefaultTaskQueue].
	TaskQueue string
	// Agent names the agent, as the workers registered it.
	Agent string
	// Question is the first user message.
	Question string
}

// Start starts a session and returns its workflow run; its id is the
// session's.
func Start(ctx context.Context, c client.Client, o StartOptions) (client.WorkflowRun, error) {
	if o.Agent == "" {
		return nil, errors.New("temporal: start: no agent is named")
	}
	if o.ID == "" {
		o.ID = NewID()
	}
	if o.TaskQueue == "" {
		o.TaskQueue = DefaultTaskQueue
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: o.ID, TaskQueue: o.TaskQueue, Memo: map[string]any{memoAgent: o.Agent},
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE},
		WorkflowName, SessionInput{Agent: o.Agent, Question: o.Question})
	if err != nil {
		return nil, fmt.Errorf("temporal: start session %s: %w", o.ID, err)
	}
	return run, nil
}

// memoAgent is the memo field that names a session's agent, so that an
// ended session can be continued with it.
const memoAgent = "toolwire_agent"

// agentOf reads the agent's name from a workflow's memo.
func agentOf(m *commonpb.Memo) string {
	p, ok := m.GetFields()[memoAgent]
	if !ok {
		return ""
	}
	var name string
	if err := converter.GetDefaultDataConverter().FromPayload(p, &name); err != nil {
		return ""
	}
	return name
}

// NewID returns a new session id, "run_" and 24 hex digits, as
// toolwire's runs are named.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "run_" + hex.EncodeToString(b[:])
}

// Decide gives the decisions on the waiting calls of session id, and an
// optional message, and returns once the workflow applied them. A
// decision the run cannot take (no call waits, a waiting call without a
// decision, an edit that breaks the tool's schema) is an error that says
// why, and nothing changed.
func Decide(ctx context.Context, c client.Client, id string, d Decisions) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: UpdateDecide, Args: []any{d},
		WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return fmt.Errorf("temporal: decide %s: %w", id, plain(err))
	}
	if err := h.Get(ctx, nil); err != nil {
		return fmt.Errorf("temporal: decide %s: %w", id, plain(err))
	}
	return nil
}

// Message sends a new user message to session id. A session that is
// running gets it as a signal; one that has ended is continued — a new
// run of its workflow, under the same id, from its final state — with
// the message as its next question. An empty msg continues a session
// that ended on a failed model call ([toolwire.ModelError],
// [toolwire.ContextLength], [toolwire.EmptyAnswer]) by making that call
// again, as toolwire resume does; for any other session it is an error.
// queue is the task queue of a new run ("" means [DefaultTaskQueue]).
func Message(ctx context.Context, c client.Client, id, queue, msg string) error {
	if msg != "" {
		err := c.SignalWorkflow(ctx, id, "", SignalMessage, msg)
		if err == nil {
			return nil
		}
		var nf *serviceerror.NotFound
		if !errors.As(err, &nf) {
			return fmt.Errorf("temporal: message %s: %w", id, err)
		}
	} else if d, err := c.DescribeWorkflowExecution(ctx, id, ""); err != nil {
		return fmt.Errorf("temporal: message %s: %w", id, err)
	} else if d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return fmt.Errorf("temporal: message %s: the session is running: give a message, or decisions on its waiting calls", id)
	}
	var res SessionResult
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		return fmt.Errorf("temporal: message %s: the session has ended without a result: %w", id, plain(err))
	}
	if msg == "" {
		switch toolwire.StopReason(res.Stop) {
		case toolwire.ModelError, toolwire.ContextLength, toolwire.EmptyAnswer:
		default:
			return fmt.Errorf("temporal: message %s: the session has ended (%s): nothing to make again; give a new message to ask the model again", id, res.Stop)
		}
	}
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return fmt.Errorf("temporal: message %s: %w", id, err)
	}
	agent := agentOf(desc.GetWorkflowExecutionInfo().GetMemo())
	if agent == "" {
		return fmt.Errorf("temporal: message %s: the session's workflow does not name its agent", id)
	}
	pending, err := toolwire.MarshalInput(toolwire.Decisions{Message: msg})
	if err != nil {
		return err
	}
	in := SessionInput{Agent: agent, State: res.State, Seq: res.Seq, Pending: []jsontext.Value{pending}}
	if queue == "" {
		queue = DefaultTaskQueue
	}
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue, Memo: map[string]any{memoAgent: agent},
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE}, WorkflowName, in)
	if err != nil {
		return fmt.Errorf("temporal: message %s: continue the ended session: %w", id, err)
	}
	return nil
}

// Pending returns the calls of session id that wait for a decision.
func Pending(ctx context.Context, c client.Client, id string) ([]PendingCall, error) {
	v, err := c.QueryWorkflow(ctx, id, "", QueryPending)
	if err != nil {
		return nil, fmt.Errorf("temporal: pending %s: %w", id, plain(err))
	}
	var out []PendingCall
	if err := v.Get(&out); err != nil {
		return nil, fmt.Errorf("temporal: pending %s: %w", id, err)
	}
	return out, nil
}

// History returns the history of session id, as the model sees it.
func History(ctx context.Context, c client.Client, id string) ([]llm.Message, error) {
	v, err := c.QueryWorkflow(ctx, id, "", QueryMessages)
	if err != nil {
		return nil, fmt.Errorf("temporal: messages %s: %w", id, plain(err))
	}
	var m Messages
	if err := v.Get(&m); err != nil {
		return nil, fmt.Errorf("temporal: messages %s: %w", id, err)
	}
	var conv llm.Conversation
	if err := json.Unmarshal(m.Conversation, &conv); err != nil {
		return nil, fmt.Errorf("temporal: messages %s: %w", id, err)
	}
	return conv.Messages, nil
}

// Watch yields the events of session id after the event numbered after,
// as they come, polling every interval (0 means 200 ms), until the
// session ends or waits for a decision — then the last event yielded is
// "done" or "approval" — or ctx ends. A session whose workflow ended
// without a "done" event (it failed, was terminated or timed out) ends
// the iteration with an error that says why. It is [Follow] without the
// model's text as it streams.
func Watch(ctx context.Context, c client.Client, id string, after int, interval time.Duration) iter.Seq2[Event, error] {
	return Follow(ctx, c, id, after, &FollowOptions{Interval: interval})
}

// FollowOptions say how [Follow] follows a session. A nil
// *FollowOptions, or a zero field, means the documented default.
type FollowOptions struct {
	// Interval is how often the session's events are asked for (a query,
	// which a worker answers). Default 200 ms.
	Interval time.Duration
	// Store, when set, is the session store the workers publish the
	// model's text to as it streams (their agents' Config.Sessions): Follow
	// then yields it as "delta" events. Without it, or when the workers
	// publish nothing, the text comes with the events once each model
	// call has ended.
	Store session.Store
	// TextInterval is how often Store is read for the text streamed so
	// far. Default 100 ms.
	TextInterval time.Duration
}

// DeltaData is the data of a "delta" event.
type DeltaData struct {
	// Text is the model's text that streamed since the last delta.
	Text string `json:"text"`
	// Restart is set when the text of earlier deltas of this model call
	// is void: the call was made again (its worker was lost, or the run
	// asked again), or its text in the events is not what streamed. Text
	// then starts over.
	Restart bool `json:"restart,omitzero"`
}

// Follow is [Watch], and the model's text as each model call streams it,
// read from the session store the workers share (o.Store), as "delta"
// events ([DeltaData]) between the session's events. A delta's Seq is
// the number of the event it follows; deltas are not numbered
// themselves.
//
// The events stay the authority. The "text" event that follows a model
// call's deltas, or the "done" event of its answer, says in Streamed
// how many bytes of its text (or answer) the deltas gave already: a
// consumer shows the rest, so that nothing is lost nor shown twice. When
// the store has nothing (no store, a worker that does not publish, a
// call too quick for it), Streamed is 0 and the text comes whole; when
// what streamed is not how the text begins, a delta with Restart comes
// first.
func Follow(ctx context.Context, c client.Client, id string, after int, o *FollowOptions) iter.Seq2[Event, error] {
	var opts FollowOptions
	if o != nil {
		opts = *o
	}
	if opts.Interval <= 0 {
		opts.Interval = 200 * time.Millisecond
	}
	if opts.TextInterval <= 0 {
		opts.TextInterval = 100 * time.Millisecond
	}
	results, _ := opts.Store.(session.Results)
	tick := opts.Interval
	if results != nil {
		tick = min(opts.Interval, opts.TextInterval)
	}
	return func(yield func(Event, error) bool) {
		var s textState
		var asked time.Time // when the events were last asked for
		for {
			if asked.IsZero() || time.Since(asked) >= opts.Interval-tick/2 {
				asked = time.Now()
				evs, err := events(ctx, c, id, after)
				if err != nil {
					if cerr := closed(ctx, c, id); cerr != nil {
						err = cerr
					}
					yield(Event{}, fmt.Errorf("temporal: events %s: %w", id, err))
					return
				}
				for _, e := range evs.Events {
					if d, ok := s.settle(&e); ok && !yield(d, nil) {
						return
					}
					after = e.Seq
					if !yield(e, nil) {
						return
					}
					if e.Type == "done" || e.Type == "approval" {
						return
					}
				}
				if len(evs.Events) == 0 {
					if err := closed(ctx, c, id); err != nil {
						yield(Event{}, fmt.Errorf("temporal: session %s: %w", id, err))
						return
					}
				}
			}
			if results != nil {
				rec, ok, err := streamed(ctx, results, id, after)
				switch {
				case err != nil:
					if ctx.Err() == nil {
						// The store cannot be read: the text comes with the
						// events, as without a store.
						results = nil
					}
				case ok:
					if d, ok := s.add(after, rec); ok && !yield(Event{Seq: after, Type: "delta", Data: d}, nil) {
						return
					}
				case s.seq == after && s.call != "" && !s.gone:
					// The call ended (or its attempt did): its outcome is
					// in the history, or about to be. Ask for the events
					// now.
					asked = time.Time{}
					s.gone = true
				}
			}
			select {
			case <-ctx.Done():
				yield(Event{}, ctx.Err())
				return
			case <-time.After(tick):
			}
		}
	}
}

// textState is what Follow yielded of the current model call's text.
type textState struct {
	seq  int    // the event the call follows
	call string // the attempt that streamed it
	text string // what the deltas gave
	gone bool   // its text left the store: the call (or its attempt) ended
}

// add takes the text the call after event seq has streamed so far, and
// returns the delta to yield, if any.
func (s *textState) add(seq int, rec streamRecord) (jsontext.Value, bool) {
	restart := false
	if s.seq != seq {
		*s = textState{seq: seq}
	}
	if s.call != "" && (rec.Call != s.call || !strings.HasPrefix(rec.Text, s.text)) {
		restart = s.text != ""
		s.text = ""
	}
	s.call, s.gone = rec.Call, false
	if len(rec.Text) <= len(s.text) && !restart {
		return nil, false
	}
	d := DeltaData{Text: rec.Text[len(s.text):], Restart: restart}
	s.text = rec.Text
	b, err := json.Marshal(d, jsonOpts)
	return b, err == nil
}

// settle reconciles the first event after a model call's deltas with
// them: a "text" event, or the "done" event of an answer, gets in
// Streamed how much of its text they gave, or, when its text does not
// begin with what they gave, a delta with Restart is returned to yield
// before it. Any event ends the call's deltas.
func (s *textState) settle(e *Event) (Event, bool) {
	if s.text == "" {
		*s = textState{}
		return Event{}, false
	}
	given := s.text
	seq := s.seq
	*s = textState{}
	var d struct {
		Text   string `json:"text"`
		Stop   string `json:"stop"`
		Answer string `json:"answer"`
	}
	_ = json.Unmarshal(e.Data, &d, json.RejectUnknownMembers(false))
	full := d.Text
	switch {
	case e.Type == "done" && d.Stop == string(toolwire.Answered):
		full = d.Answer
	case e.Type != "text":
		return Event{}, false // a stop's answer is what a guard gathered, not this text
	}
	if full == "" {
		return Event{}, false
	}
	if strings.HasPrefix(full, given) {
		e.Streamed = len(given)
		return Event{}, false
	}
	b, _ := json.Marshal(DeltaData{Restart: true}, jsonOpts)
	return Event{Seq: seq, Type: "delta", Data: b}, true
}

// events asks session id for its events after the event numbered after.
func events(ctx context.Context, c client.Client, id string, after int) (Events, error) {
	var evs Events
	v, err := c.QueryWorkflow(ctx, id, "", QueryEvents, after)
	if err != nil {
		return evs, plain(err)
	}
	err = v.Get(&evs)
	return evs, err
}

// closed returns why session id's workflow ended without ending the
// session, nil while it runs or once it completed.
func closed(ctx context.Context, c client.Client, id string) error {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return nil // the query's error says more
	}
	switch st := d.GetWorkflowExecutionInfo().GetStatus(); st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED,
		enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return nil
	default:
		why := errors.New("no reason given")
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
			why = plain(err)
		}
		return fmt.Errorf("the workflow ended (%s) without an answer: %w", strings.ToLower(strings.TrimPrefix(st.String(), "WorkflowExecutionStatus")), why)
	}
}

// plain is err without the SDK's wrapping, for a person: an
// application error's message as the workflow worded it.
func plain(err error) error {
	for u := err; u != nil; u = errors.Unwrap(u) {
		if _, ok := u.(interface{ NonRetryable() bool }); ok {
			return u
		}
	}
	return err
}
