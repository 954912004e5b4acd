package temporal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	enumspb "go.temporal.io/api/enums/v1"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

var jsonOpts = json.JoinOptions(json.Deterministic(true), jsontext.EscapeForHTML(false))

// loop is one run of the workflow: the state it steps, the inputs
// that wait to be applied, the events it told.
type loop struct {
	r     *Runtime
	e     *entry
	agent string
	st    *toolwire.State
	queue []*queued
	seq   int
	log   []Event
	asked bool // the approval event of the current pause was told
}

// queued is an input from outside (a signal, an update) that waits for
// the loop to apply it between two effects.
type queued struct {
	in   toolwire.Input
	done bool
	err  error
}

// run is the workflow: the loop of docs/loop.md, with each Perform an
// activity.
func (r *Runtime) run(ctx workflow.Context, in SessionInput) (*SessionResult, error) {
	e, ok := r.agents[in.Agent]
	if !ok {
		return nil, sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf("no agent is named %q on this worker (it runs %s): start the worker with that agent", in.Agent, r.names()), "UnknownAgent", nil)
	}
	s := &loop{r: r, e: e, agent: in.Agent, seq: in.Seq}
	if len(in.State) > 0 {
		var st toolwire.State
		if err := st.UnmarshalJSON(in.State); err != nil {
			return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), "BadState", nil)
		}
		s.st = &st
	} else {
		// Start draws a random run id; the workflow's id replaces it, so
		// that the run's idempotency keys are the same on every replay.
		// No result exists yet, so no ref was derived from the old id.
		s.st = e.a.Start(in.Question)
		s.st.ID = workflow.GetInfo(ctx).WorkflowExecution.ID
		if s.st.Next.Kind == toolwire.CallModel {
			s.tell("turn", turnData{Turn: s.st.Turn + 1})
		}
	}
	for i, b := range in.Pending {
		pin, err := toolwire.ParseInput(b)
		if err != nil {
			return nil, sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf("pending input %d: %v", i, err), "BadInput", nil)
		}
		s.queue = append(s.queue, &queued{in: pin})
	}
	if err := s.handlers(ctx); err != nil {
		return nil, err
	}
	messages := workflow.GetSignalChannel(ctx, SignalMessage)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var m string
			if !messages.Receive(ctx, &m) {
				return
			}
			s.queue = append(s.queue, &queued{in: toolwire.Decisions{Message: m}})
		}
	})
	for {
		drain(messages, s)
		s.apply()
		switch s.st.Next.Kind {
		case toolwire.Done:
			// An update still running, or a message that came with the end,
			// goes on the run before it ends.
			if ok, err := s.settle(ctx, messages); err != nil || !ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			return s.result()
		case toolwire.AwaitApproval:
			if !s.asked {
				s.asked = true
				s.tell("approval", approvalData{Calls: s.pending()})
			}
			if err := workflow.Await(ctx, func() bool { return len(s.queue) > 0 }); err != nil {
				return nil, err
			}
			continue
		case toolwire.CallModel:
			in, err := s.callModel(ctx)
			if err != nil {
				return nil, err
			}
			s.step(in)
		case toolwire.RunTools:
			in, err := s.runTools(ctx)
			if err != nil {
				return nil, err
			}
			s.step(in)
		}
		if s.st.Next.Kind != toolwire.Done && s.tooLong(ctx) {
			if ok, err := s.settle(ctx, messages); err != nil {
				return nil, err
			} else if ok {
				return nil, s.continueAsNew(ctx)
			}
		}
	}
}

// settle waits until no update handler runs, or an input waits; it
// reports whether none waits, so that the run may end or continue as
// new without leaving an input behind.
func (s *loop) settle(ctx workflow.Context, messages workflow.ReceiveChannel) (bool, error) {
	err := workflow.Await(ctx, func() bool { return len(s.queue) > 0 || workflow.AllHandlersFinished(ctx) })
	drain(messages, s)
	return err == nil && len(s.queue) == 0, err
}

// drain moves the messages already signalled into the queue.
func drain(ch workflow.ReceiveChannel, s *loop) {
	var m string
	for ch.ReceiveAsync(&m) {
		s.queue = append(s.queue, &queued{in: toolwire.Decisions{Message: m}})
	}
}

// apply steps the state with each queued input, in the order they came.
func (s *loop) apply() {
	for _, q := range s.queue {
		next, ch, err := s.e.a.Step(s.st, q.in)
		q.done, q.err = true, err
		if err != nil {
			continue
		}
		if d, ok := q.in.(toolwire.Decisions); ok {
			s.tell("decision", decisionData{Calls: len(d.Calls), Message: d.Message != ""})
		}
		s.advance(next, ch)
	}
	s.queue = s.queue[:0]
}

// step steps the state with an effect's outcome. Step refuses only an
// outcome that does not fit the state, which the loop never makes.
func (s *loop) step(in toolwire.Input) {
	next, ch, err := s.e.a.Step(s.st, in)
	if err != nil {
		panic(fmt.Sprintf("toolwire/temporal: step: %v", err)) // a bug: the workflow task fails, and is retried after a fix
	}
	s.advance(next, ch)
}

// advance makes next the state, and tells what the step did.
func (s *loop) advance(next *toolwire.State, ch *toolwire.Change) {
	if s.st.Next.Kind == toolwire.AwaitApproval && next.Next.Kind != toolwire.AwaitApproval {
		s.asked = false
	}
	s.st = next
	for _, m := range ch.Appended {
		// The model's text beside its calls; a final answer is the done
		// event's.
		if m.Role == llm.RoleAssistant && len(m.ToolCalls()) > 0 && strings.TrimSpace(m.Text()) != "" {
			s.tell("text", textData{Turn: next.Turn, Text: m.Text()})
		}
	}
	for _, ev := range ch.Events {
		switch ev := ev.(type) {
		case toolwire.CallEvent:
			s.tell("call", callData{Turn: ev.Turn, ID: ev.Call.ID, Tool: ev.Call.Name, Args: argsOf(ev.Call.Input), Approval: ev.Approval})
		case toolwire.ResultEvent:
			s.tell("result", resultData{Turn: ev.Turn, ID: ev.Result.CallID, Tool: ev.Result.Name, Status: string(ev.Result.Status),
				Error: string(ev.ErrorType), DurationMS: float64(ev.Duration) / float64(time.Millisecond), Text: ev.Result.Text()})
		case toolwire.TurnStartEvent:
			s.tell("turn", turnData{Turn: ev.Turn})
		}
	}
}

// result is how the session ended.
func (s *loop) result() (*SessionResult, error) {
	b, err := s.st.MarshalJSON()
	if err != nil {
		return nil, err
	}
	out := &SessionResult{Turns: s.st.Turn, State: b}
	if stop := s.st.Next.Stop; stop != nil {
		out.Stop, out.Message, out.Answer = string(stop.Reason), stop.Message, stop.Answer
	}
	s.tell("done", doneData{Stop: out.Stop, Message: out.Message, Answer: out.Answer, Turns: out.Turns})
	out.Seq = s.seq
	return out, nil
}

// tooLong reports whether the history has grown past the limits, or the
// server suggests a new run.
func (s *loop) tooLong(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetCurrentHistoryLength() >= s.r.cfg.HistoryEvents || info.GetCurrentHistorySize() >= s.r.cfg.HistoryBytes ||
		info.GetContinueAsNewSuggested()
}

// continueAsNew carries the state and the event count into a new run of
// the workflow, and the inputs not applied yet (settle leaves none, but a
// message may come between).
func (s *loop) continueAsNew(ctx workflow.Context) error {
	b, err := s.st.MarshalJSON()
	if err != nil {
		return err
	}
	in := SessionInput{Agent: s.agent, State: b, Seq: s.seq}
	for _, q := range s.queue {
		pb, err := toolwire.MarshalInput(q.in)
		if err != nil {
			return err
		}
		in.Pending = append(in.Pending, pb)
	}
	return workflow.NewContinueAsNewError(ctx, WorkflowName, in)
}

// callModel performs the model call as an activity. A worker lost for
// every attempt is a failed call: the run ends with model_error, and
// can be retried.
func (s *loop) callModel(ctx workflow.Context) (toolwire.Input, error) {
	b, err := s.st.MarshalJSON()
	if err != nil {
		return nil, err
	}
	cfg := s.r.cfg
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: cfg.ModelTimeout,
		HeartbeatTimeout:    cfg.Heartbeat,
		RetryPolicy:         &sdktemporal.RetryPolicy{InitialInterval: cfg.RetryInterval, MaximumAttempts: int32(cfg.ModelAttempts)},
	})
	var out Outcome
	err = workflow.ExecuteActivity(actx, ActivityModel, ModelRequest{Agent: s.agent, State: b, Seq: s.seq}).Get(ctx, &out)
	if err != nil {
		if fatal(err) {
			return nil, err
		}
		return toolwire.ModelOutcome{Failure: &toolwire.ModelFailure{Kind: toolwire.FailTransport,
			Message: fmt.Sprintf("the model call did not complete on any worker after %d attempt(s): %v", cfg.ModelAttempts, cause(err))}}, nil
	}
	return parseOutcome(out)
}

// runTools performs each runnable call as an activity of its own, all
// at once, and gathers their outcomes in call order.
func (s *loop) runTools(ctx workflow.Context) (toolwire.Input, error) {
	st := s.st
	idx := st.Next.Runnable(s.e.approver)
	share := 0
	if st.Next.Room > 0 && len(idx) > 0 {
		share = max(1, st.Next.Room/len(idx)) // the executor's equal share
	}
	futures := make([]workflow.Future, len(idx))
	levels := make([]tool.Idempotency, len(idx))
	for k, i := range idx {
		pc := st.Next.Calls[i]
		one := &toolwire.State{ID: st.ID, Turn: st.Turn, Next: toolwire.Effect{Kind: toolwire.RunTools, Calls: []toolwire.PendingCall{pc}, Room: share}}
		b, err := one.MarshalJSON()
		if err != nil {
			return nil, err
		}
		p := s.e.policy(pc.Call.Name, s.r.cfg)
		levels[k] = p.level
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: p.timeout,
			HeartbeatTimeout:    s.r.cfg.Heartbeat,
			RetryPolicy:         &sdktemporal.RetryPolicy{InitialInterval: s.r.cfg.RetryInterval, MaximumAttempts: p.attempts},
			Summary:             pc.Call.Name + " " + pc.Call.ID,
		})
		futures[k] = workflow.ExecuteActivity(actx, ActivityTool, ToolRequest{Agent: s.agent, State: b})
	}
	out := toolwire.ToolsOutcome{Outcomes: make([]tool.Outcome, len(idx))}
	for k, f := range futures {
		pc := st.Next.Calls[idx[k]]
		var o Outcome
		if err := f.Get(ctx, &o); err != nil {
			if fatal(err) {
				return nil, err
			}
			out.Outcomes[k] = lost(pc.Call, levels[k], err)
			continue
		}
		in, err := parseOutcome(o)
		if err != nil {
			return nil, err
		}
		to, ok := in.(toolwire.ToolsOutcome)
		if !ok || len(to.Outcomes) != 1 {
			return nil, sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf("the tool activity of call %s returned %T, not one tool outcome", pc.Call.ID, in), "BadOutcome", nil)
		}
		out.Outcomes[k] = to.Outcomes[0]
	}
	return out, nil
}

// lost is the outcome of a call whose activity did not complete: its
// worker was lost (killed, partitioned) for every attempt its level
// allows. A level_0 call is reported cut short while running, and Step
// answers it interrupted (its outcome is unknown, and it never runs
// again), as recovery on one machine does. A level_1 or level_2 call ran
// out of attempts: it is answered with an error that says so.
func lost(c llm.ToolCall, level tool.Idempotency, err error) tool.Outcome {
	if toolwire.RecoveryOf(level) == toolwire.MarkInterrupted {
		env := toolresult.Failure(toolresult.Interrupted, "the worker running this call was lost, so its outcome is unknown")
		return tool.Outcome{Result: env.Result(c.ID, c.Name), Envelope: env, Cancelled: tool.CancelledWhileRunning}
	}
	env := toolresult.Failure(toolresult.Interrupted, "the call did not complete on any worker: "+cause(err).Error())
	env.Summary = c.Name + " did not complete: its workers were lost"
	env.Suggestion = toolresult.Options("call " + c.Name + " again")
	return tool.Outcome{Result: env.Result(c.ID, c.Name), Envelope: env}
}

// fatal reports whether an activity's error is one that no retry or
// outcome can answer: a worker without the agent, a state it cannot
// read — the workflow fails with it — or the workflow's cancellation,
// which ends it cancelled.
func fatal(err error) bool {
	var app *sdktemporal.ApplicationError
	return errors.As(err, &app) && app.NonRetryable() || sdktemporal.IsCanceledError(err)
}

// cause is the error under an activity error.
func cause(err error) error {
	var te *sdktemporal.TimeoutError
	if errors.As(err, &te) {
		switch te.TimeoutType() {
		case enumspb.TIMEOUT_TYPE_HEARTBEAT:
			return errors.New("the worker stopped heartbeating (lost)")
		case enumspb.TIMEOUT_TYPE_START_TO_CLOSE:
			return errors.New("the attempt timed out")
		}
		return te
	}
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// parseOutcome reads an activity's outcome.
func parseOutcome(o Outcome) (toolwire.Input, error) {
	in, err := toolwire.ParseInput(o.Input)
	if err != nil {
		return nil, sdktemporal.NewNonRetryableApplicationError(err.Error(), "BadOutcome", nil)
	}
	return in, nil
}

// pending returns the calls that wait for a decision.
func (s *loop) pending() []PendingCall {
	out := []PendingCall{}
	if s.st.Next.Kind != toolwire.AwaitApproval {
		return out
	}
	for _, pc := range s.st.Next.Calls {
		if pc.Result == nil {
			out = append(out, PendingCall{ID: pc.Call.ID, Tool: pc.Call.Name, Args: argsOf(pc.Call.Input)})
		}
	}
	return out
}

// handlers installs the queries and the decide update.
func (s *loop) handlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryPending, func() ([]PendingCall, error) { return s.pending(), nil }); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, QueryMessages, func() (Messages, error) {
		b, err := json.Marshal(llm.Conversation{Messages: s.st.Messages}, jsonOpts)
		return Messages{Conversation: b}, err
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, QueryEvents, func(after int) (Events, error) {
		out := Events{Events: []Event{}, Waiting: s.st.Next.Kind == toolwire.AwaitApproval, Done: s.st.Next.Kind == toolwire.Done}
		for _, e := range s.log {
			if e.Seq > after {
				out.Events = append(out.Events, e)
			}
		}
		return out, nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecide, func(ctx workflow.Context, d Decisions) error {
		q := &queued{in: d.input()}
		s.queue = append(s.queue, q)
		if err := workflow.Await(ctx, func() bool { return q.done }); err != nil {
			return err
		}
		return q.err
	}, workflow.UpdateHandlerOptions{Validator: func(d Decisions) error {
		if len(d.Calls) == 0 && d.Message == "" {
			return errors.New("the update decides nothing: give decisions on the waiting calls, or a message")
		}
		if len(s.queue) > 0 {
			return errors.New("another decision is being applied; ask again")
		}
		_, _, err := s.e.a.Step(s.st, d.input()) // pure: only to see whether it would be taken
		return err
	}})
}

// input is d as the loop's input.
func (d Decisions) input() toolwire.Decisions {
	out := toolwire.Decisions{Message: d.Message}
	if len(d.Calls) > 0 {
		out.Calls = map[string]toolwire.Decision{}
		for id, c := range d.Calls {
			out.Calls[id] = toolwire.Decision{Kind: toolwire.DecisionKind(c.Kind), Reason: c.Reason, Args: c.Args}
		}
	}
	return out
}

// tell adds an event to the session's log.
func (s *loop) tell(typ string, data any) {
	b, err := json.Marshal(data, jsonOpts)
	if err != nil {
		b = jsontext.Value(`{}`)
	}
	s.seq++
	s.log = append(s.log, Event{Seq: s.seq, Type: typ, Data: b})
}

// argsOf is a call's arguments as JSON: as the model wrote them when
// they are valid, else as a string.
func argsOf(in []byte) jsontext.Value {
	if v := jsontext.Value(in); v.IsValid() {
		return slices.Clone(v)
	}
	b, _ := json.Marshal(string(in))
	return b
}

type turnData struct {
	Turn int `json:"turn"`
}

type textData struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

type callData struct {
	Turn     int            `json:"turn"`
	ID       string         `json:"id"`
	Tool     string         `json:"tool"`
	Args     jsontext.Value `json:"args"`
	Approval bool           `json:"approval,omitzero"`
}

type resultData struct {
	Turn       int     `json:"turn"`
	ID         string  `json:"id"`
	Tool       string  `json:"tool"`
	Status     string  `json:"status"`
	Error      string  `json:"error,omitzero"`
	DurationMS float64 `json:"duration_ms,omitzero"`
	Text       string  `json:"text"`
}

type approvalData struct {
	Calls []PendingCall `json:"calls"`
}

type decisionData struct {
	Calls   int  `json:"calls"`
	Message bool `json:"message,omitzero"`
}

type doneData struct {
	Stop    string `json:"stop"`
	Message string `json:"message"`
	Answer  string `json:"answer,omitzero"`
	Turns   int    `json:"turns"`
}
