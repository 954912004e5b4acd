package toolwire

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
)

// Run asks question and runs the loop until the model answers or the run
// stops. The error is nil exactly when the model answered; otherwise it
// is a [*StopError] (errors.Is(err, toolwire.MaxTurns), ...) and the
// Result says what the run gathered. Cancelling ctx stops the run
// cleanly, as a crash would stop it but with nothing lost: a call cut
// short follows [RecoveryOf] its tool's idempotency level (a level_2 or
// level_1 call is left to run again, any other is answered interrupted),
// a call not started yet is left to run, and Result.State is ready to be
// continued.
func (a *Agent) Run(ctx context.Context, question string) (*Result, error) {
	return a.RunState(ctx, a.Start(question))
}

// RunState is [Agent.Run] from a state: a new one from [Agent.Start], or
// one saved from an earlier run.
func (a *Agent) RunState(ctx context.Context, s *State) (*Result, error) {
	return resultOf(a.Continue(ctx, s))
}

// resultOf runs events to their end, as [Agent.RunState] and
// [Agent.Resume] do, and returns the result of the [DoneEvent] (nil when
// there was none) and the error that ended the stream.
func resultOf(events iter.Seq2[Event, error]) (*Result, error) {
	var res *Result
	for ev, err := range events {
		if err != nil {
			return res, err
		}
		if d, ok := ev.(DoneEvent); ok {
			res = d.Result
		}
	}
	return res, nil
}

// Stream is [Agent.Run] as a stream of events: the model's text as it
// arrives, each call, each tool result as sent, a summary of each turn,
// each step's state, and the [DoneEvent] with the result. A run that
// ends without an answer yields its [*StopError] after the DoneEvent.
// Breaking out of the loop stops the run at once, cleanly.
func (a *Agent) Stream(ctx context.Context, question string) iter.Seq2[Event, error] {
	return a.Continue(ctx, a.Start(question))
}

// Continue drives the loop from s: it performs the effect s names
// ([Agent.Perform]), steps to the next state ([Agent.Step]), and so on,
// until the run ends, pauses for approval, or ctx ends. It yields what
// each step did, and the model's text as it streams. With
// Config.Sessions, each step is committed to the run's session before it
// is yielded. Nothing it starts outlives the iteration.
func (a *Agent) Continue(ctx context.Context, s *State) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if s == nil {
			yield(nil, errors.New("toolwire: continue: the state is nil"))
			return
		}
		a.drive(ctx, s, nil, yield)
	}
}

// drive is the loop: perform, step, persist, tell. rs is the run's
// session when the caller opened it (Resume), nil to open or attach it
// here when the agent has Config.Sessions.
func (a *Agent) drive(ctx context.Context, st *State, rs *runSession, yield func(Event, error) bool) {
	ctx = a.runContext(ctx, st)
	if len(a.hooks) > 0 {
		var end func()
		yield, end = a.bracket(ctx, st, yield)
		defer end()
	}
	if a.cfg.Sessions != nil && rs == nil {
		var err error
		if rs, err = a.open(ctx, st); err != nil {
			yield(nil, err)
			return
		}
	}
	if rs != nil {
		ctx = context.WithValue(ctx, runRecorderKey{}, tool.Recorder(rs.rec))
	}
	tell := func(e Event) bool {
		if len(a.hooks) > 0 {
			a.notify(ctx, e)
		}
		return yield(e, nil)
	}
	var lastErr error // why a failure stopped the run, for its StopError
	if st.Next.Kind == CallModel && ctx.Err() == nil && !tell(TurnStartEvent{Turn: st.Turn + 1}) {
		return // a drive that begins with a model call begins its turn
	}
	for {
		// A cancelled run stops before its next effect: a model call is
		// made again, and calls not answered yet run, when it is
		// continued (see RecoveryOf for those it cut short).
		if st.Next.Kind == Done || st.Next.Kind == AwaitApproval || ctx.Err() != nil {
			res, err := a.result(st, rs, lastErr, ctx.Err())
			if res.Stop == Paused || res.Stop == Cancelled {
				a.notify(ctx, InterruptEvent{Turn: st.Turn, Reason: res.Stop, Waiting: waiting(st)})
			}
			if tell(DoneEvent{Result: res}) && err != nil {
				yield(nil, err)
			}
			return
		}
		began := time.Now()
		stopped := false
		in := a.Perform(withTextSink(ctx, func(d TextEvent) bool {
			stopped = !yield(d, nil)
			return !stopped
		}), st)
		if stopped {
			return
		}
		next, ch, err := a.Step(st, in)
		if err != nil {
			yield(nil, err)
			return
		}
		if ch.Err != nil {
			lastErr = ch.Err
		}
		if rs != nil {
			if err := a.persist(ctx, rs, st, next, in, ch, time.Since(began)); err != nil {
				yield(nil, err)
				return
			}
		}
		for _, e := range ch.Events {
			if !tell(e) {
				return
			}
		}
		if !tell(StepEvent{State: next, Added: ch.Appended, Fitted: ch.Fitted}) {
			return
		}
		st = next
	}
}

// bracket tells hooks that a drive from st begins, and returns the
// drive's yield, which notes how the drive ends, and the function that
// tells hooks it ended.
func (a *Agent) bracket(ctx context.Context, st *State, yield func(Event, error) bool) (func(Event, error) bool, func()) {
	a.notify(ctx, RunStartEvent{Turn: st.Turn, Agent: a.cfg.Name, Model: a.name, Dialect: a.model.Dialect()})
	end := RunEndEvent{Turn: st.Turn}
	noting := func(e Event, err error) bool {
		switch e := e.(type) {
		case StepEvent:
			end.Turn = e.State.Turn
		case DoneEvent:
			end.Result = e.Result
		}
		if err != nil {
			end.Err = err
		}
		return yield(e, err)
	}
	return noting, func() { a.notify(ctx, end) }
}

// waiting returns the calls of st that wait for approval.
func waiting(st *State) []llm.ToolCall {
	if st.Next.Kind != AwaitApproval {
		return nil
	}
	var out []llm.ToolCall
	for _, pc := range st.Next.Calls {
		if pc.Result == nil {
			out = append(out, pc.Call)
		}
	}
	return out
}

// persist commits the step from st to next: the messages it appended,
// the state, and what it did. A call record that could not be written
// fails the step: the session no longer says what ran.
func (a *Agent) persist(ctx context.Context, rs *runSession, st, next *State, in Input, ch *Change, took time.Duration) error {
	tr := StepTrace{Did: st.Next.Kind, DurationNS: int64(took)}
	switch o := in.(type) {
	case ModelOutcome:
		sent := st.Messages
		tr.Fitted, tr.Cleared, tr.Removed = st.turn.rep.Fitted, st.turn.rep.Fit.Cleared, st.turn.rep.Fit.Removed
		tr.Sent, tr.Tokens = len(sent), a.tokens(st, sent)
		if o.Response != nil {
			tr.Usage = usageJSON(o.Response.Usage)
		}
		if o.Failure != nil {
			tr.Error = o.Failure.Error()
		}
	case ToolsOutcome:
		if err := rs.rec.takeErr(); err != nil {
			return err
		}
	}
	return rs.commit(ctx, next, ch.Appended, tr)
}

// result is how the run ended in st, and its error. lastErr is why a
// failure stopped it; cause is the context's error when it was
// cancelled.
func (a *Agent) result(st *State, rs *runSession, lastErr, cause error) (*Result, error) {
	res := &Result{Turns: st.Turn, Usage: st.Usage, State: st}
	if rs != nil {
		res.Session = rs.id
	}
	switch st.Next.Kind {
	case AwaitApproval:
		var names []string
		for _, c := range waiting(st) {
			names = append(names, c.Name+" ("+c.ID+")")
		}
		res.Stop = Paused
		res.Message = fmt.Sprintf("paused in turn %d: %s wait(s) for a person's approval", st.Turn, strings.Join(names, ", "))
		return res, &StopError{Reason: Paused, Message: res.Message}
	case CallModel:
		res.Stop = Cancelled
		res.Message = fmt.Sprintf("cancelled after %d turn(s); every call made is answered, and the run can be continued from its state", st.Turn)
		return res, &StopError{Reason: Cancelled, Message: res.Message, Err: cause}
	case RunTools:
		var names []string
		for _, i := range st.Next.Runnable(true) {
			c := st.Next.Calls[i].Call
			names = append(names, c.Name+" ("+c.ID+")")
		}
		res.Stop = Cancelled
		res.Message = fmt.Sprintf("cancelled in turn %d before %s finished; resuming the run runs them (read-only and idempotent tools again, as after a crash)", st.Turn, strings.Join(names, ", "))
		return res, &StopError{Reason: Cancelled, Message: res.Message, Err: cause}
	}
	stop := st.Next.Stop
	if stop == nil {
		stop = &Stop{Reason: ModelError, Message: "the run ended without saying why"}
	}
	res.Stop, res.Message, res.Answer, res.Output = stop.Reason, stop.Message, stop.Answer, stop.Output
	if stop.Reason == Answered {
		return res, nil
	}
	e := &StopError{Reason: stop.Reason, Message: stop.Message}
	if stop.Reason == ModelError || stop.Reason == ContextLength || stop.Reason == InvalidHistory || stop.Reason == EmptyAnswer {
		e.Err = lastErr
	}
	return res, e
}
