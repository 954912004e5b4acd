package toolwire

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// DecisionKind says what a person decided about a paused call.
type DecisionKind string

// The kinds of decision.
const (
	// Approved: run the call as the model made it.
	Approved DecisionKind = "approve"
	// Rejected: do not run it; its result is rejected_by_user, with the
	// reason.
	Rejected DecisionKind = "reject"
	// Edited: run it with other arguments, validated against the tool's
	// schema first.
	Edited DecisionKind = "edit"
)

// A Decision answers one call that waits for approval.
type Decision struct {
	Kind DecisionKind
	// Reason, for a rejection, is told to the model.
	Reason string
	// Args, for an edit, are the arguments to run the call with.
	Args jsontext.Value
}

// Approve returns the decision to run a call as it is.
func Approve() Decision { return Decision{Kind: Approved} }

// Reject returns the decision not to run a call, for reason.
func Reject(reason string) Decision { return Decision{Kind: Rejected, Reason: reason} }

// Edit returns the decision to run a call with args instead.
func Edit(args jsontext.Value) Decision { return Decision{Kind: Edited, Args: args} }

// Decisions are what a person gives [Agent.Resume], and an [Input] of
// [Agent.Step].
type Decisions struct {
	// Calls decide the calls that wait for approval, by call id; every
	// waiting call needs one.
	Calls map[string]Decision
	// Message, when not empty, is a new message from the person. After a
	// pause it is placed after every tool result of the turn, never
	// between a call and its result; after a finished run it asks the
	// model again. Empty after a run that ended on a failed model call
	// ([ModelError], [ContextLength], [EmptyAnswer]), it makes that call
	// again, as [Retry] does.
	Message string
}

// A ResumeError says why a session cannot be resumed as asked: it is not
// paused, a waiting call has no decision, an edit breaks the tool's
// schema. Nothing was written.
type ResumeError struct {
	Session string
	Problem string
	// Err is [ErrInvalidEdit] when edited arguments are what is wrong;
	// nil otherwise.
	Err error
}

func (e *ResumeError) Error() string { return "toolwire: resume " + e.Session + ": " + e.Problem }

// Unwrap returns Err.
func (e *ResumeError) Unwrap() error { return e.Err }

// ErrInvalidEdit is wrapped by the [*ResumeError] of an edit decision
// whose arguments are not valid JSON or break the tool's schema: a
// server answers it as the person's mistake (HTTP 422), not as a
// session that cannot be resumed.
var ErrInvalidEdit = errors.New("toolwire: the edited arguments are refused")

type decisionsKey struct{}

// decided is the agent's approver when the program gives none: it
// approves what a person decided at Resume ([PendingCall].Decision, which
// the driver puts in the context), and nothing else.
func decided(ctx context.Context, spec tool.Spec, call llm.ToolCall, _ []byte) (bool, string, error) {
	d, ok := ctx.Value(decisionsKey{}).(map[string]*Decision)[call.ID]
	if !ok {
		return false, "", errors.New("nobody decided on this call")
	}
	return d.Kind != Rejected, d.Reason, nil
}

// Resume continues a stored session (Config.Sessions) and runs it until
// it answers, stops or pauses again, as [Agent.Run] does. It loads the
// session; recovers what a crash left (see [Agent.Recover]); steps it
// with d ([Decisions]: the decisions on the calls that wait for approval,
// a new message; a run that ended on a failed model call, given no
// message, makes that call again); commits that, so that of
// two processes resuming the same session exactly one goes on (the other
// gets an error wrapping [session.ErrConflict]); and drives the loop.
// A process other than the one that paused the session resumes it the
// same way.
func (a *Agent) Resume(ctx context.Context, sessionID string, d *Decisions) (*Result, error) {
	return resultOf(a.ResumeStream(ctx, sessionID, d))
}

// ResumeStream is [Agent.Resume] as a stream of events, as
// [Agent.Stream] yields them.
func (a *Agent) ResumeStream(ctx context.Context, sessionID string, d *Decisions) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		st, rs, err := a.resume(ctx, sessionID, d)
		if err != nil {
			yield(nil, err)
			return
		}
		a.drive(ctx, st, rs, yield)
	}
}

// resume loads and recovers a session, steps it with the person's
// decisions, and commits the result.
func (a *Agent) resume(ctx context.Context, id string, d *Decisions) (*State, *runSession, error) {
	if d == nil {
		d = &Decisions{}
	}
	st, snap, err := a.recoverSnapshot(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	next, ch, err := a.Step(st, *d)
	if err != nil {
		return nil, nil, err
	}
	rs := &runSession{store: a.cfg.Sessions, id: id, version: snap.Session.Version, step: snap.Session.Step}
	rs.rec = &recorder{rs: rs, before: attempts(next, snap.Calls)}
	// The point of no return: a second process resuming from the same
	// version now gets a conflict instead of running the same calls.
	if err := rs.commit(ctx, next, ch.Appended, StepTrace{Did: didResume}); err != nil {
		return nil, nil, err
	}
	return next, rs, nil
}

// Recover loads a stored session and returns the state to continue it
// from, without writing anything. When the last assistant turn has calls
// without results, it answers them from the write-ahead records: a call
// whose attempt finished gets its stored result as it is; a call that
// started and never finished is left to run again if its tool is
// level_2, or level_1 with its stored idempotency key, and answered
// interrupted if its tool is level_0 (or declares no level) — it never
// runs twice; a call that never started is left to run ([RecoveryOf]).
// A run whose context was cancelled (Ctrl-C) applied the same rule to
// its calls before it stopped, so it resumes as a crashed one does. The
// state's messages, once the remaining calls are answered, pass
// transcript.Check.
func (a *Agent) Recover(ctx context.Context, sessionID string) (*State, error) {
	st, _, err := a.recoverSnapshot(ctx, sessionID)
	return st, err
}

func (a *Agent) recoverSnapshot(ctx context.Context, id string) (*State, *session.Snapshot, error) {
	if a.cfg.Sessions == nil {
		return nil, nil, errors.New("toolwire: resume: the agent has no Config.Sessions to load the session from")
	}
	snap, err := a.cfg.Sessions.Load(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("toolwire: resume %s: %w", id, err)
	}
	if len(snap.State) == 0 && snap.Session.Step == 0 {
		return nil, nil, &ResumeError{Session: id, Problem: "the run stopped before its first step was saved: there is nothing to resume; ask the question again"}
	}
	if len(snap.State) == 0 {
		return nil, nil, &session.CorruptError{Session: id, Item: fmt.Sprintf("state of step %d", snap.Session.Step), Err: errors.New("no state is stored: the session was not written by a toolwire run")}
	}
	cp, err := ParseCheckpoint(snap.State)
	if err != nil {
		return nil, nil, &session.CorruptError{Session: id, Item: fmt.Sprintf("state of step %d", snap.Session.Step), Err: err}
	}
	st := cp.State
	st.Messages = snap.Messages
	if st.Next.Kind == RunTools {
		recoverCalls(st, snap.Calls)
	}
	return st, snap, nil
}

// recoverCalls answers the pending calls of st from their write-ahead
// records, by the rules of [Agent.Recover].
func recoverCalls(st *State, records []session.Call) {
	latest := map[string]session.Call{}
	for _, c := range records {
		if c.Attempt >= latest[c.ID].Attempt {
			latest[c.ID] = c
		}
	}
	for i := range st.Next.Calls {
		pc := &st.Next.Calls[i]
		c, ok := latest[pc.Call.ID]
		if pc.Result != nil || !ok {
			continue
		}
		if c.Result != nil {
			r := *c.Result
			pc.Result = &r
			continue
		}
		switch RecoveryOf(c.Idempotency) {
		case Rerun:
			// Safe to run again.
		case RerunWithKey:
			pc.Key = c.IdempotencyKey // the service deduplicates on it
		case MarkInterrupted:
			r := interrupted(pc.Call)
			pc.Result = &r
		}
	}
}

// interrupted answers a level-0 call that started and whose outcome a
// crash or the run's cancellation hid.
func interrupted(c llm.ToolCall) llm.ToolResult {
	env := toolresult.Failure(toolresult.Interrupted, "the run stopped while this call was running, so its outcome is unknown: it may or may not have taken effect; it was not run again")
	env.Summary = c.Name + " was interrupted: its outcome is unknown"
	env.Suggestion = toolresult.Options("verify whether the action took effect before calling " + c.Name + " again")
	return env.Result(c.ID, c.Name)
}

// attempts counts the recorded attempts of each call: those of records,
// the latest step's, and those that a cancelled run cut short in an
// earlier step, which st holds ([PendingCall].Attempts).
func attempts(st *State, records []session.Call) map[string]int {
	out := map[string]int{}
	for _, pc := range st.Next.Calls {
		if pc.Attempts > 0 {
			out[pc.Call.ID] = pc.Attempts
		}
	}
	for _, c := range records {
		out[c.ID] = max(out[c.ID], c.Attempt)
	}
	return out
}
