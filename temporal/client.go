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
// the iteration with an error that says why.
func Watch(ctx context.Context, c client.Client, id string, after int, interval time.Duration) iter.Seq2[Event, error] {
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	return func(yield func(Event, error) bool) {
		for {
			evs, err := events(ctx, c, id, after)
			if err != nil {
				if cerr := closed(ctx, c, id); cerr != nil {
					err = cerr
				}
				yield(Event{}, fmt.Errorf("temporal: events %s: %w", id, err))
				return
			}
			for _, e := range evs.Events {
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
			select {
			case <-ctx.Done():
				yield(Event{}, ctx.Err())
				return
			case <-time.After(interval):
			}
		}
	}
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
