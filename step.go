package toolwire

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// A Change is what one step did, for what persists a run and what
// watches it: they append what Step says, with no diffing of states.
type Change struct {
	// Appended are the messages the step added to the history, in order,
	// as they were added: what a session's log appends. Fitting, which
	// may change older messages of State.Messages, is not in them.
	Appended []llm.Message
	// Fitted is set when the step fitted the history for the next model
	// call, changing it: State.Messages is then the whole new history.
	// Fit says what fitting did.
	Fitted bool
	Fit    budget.FitReport
	// Events are what the step did, in order: [CallEvent] for each call
	// of a new answer, [ResultEvent] for each result of a finished turn,
	// [TurnEvent] when a turn ends, [TurnStartEvent] when the next one is
	// ready.
	Events []Event
	// Err is why the step stopped the run, when it stopped it on a
	// failure: the model's ([*ModelFailure]) or a [*HistoryError].
	Err error
}

// Step returns the state that follows s once in is known, and what the
// step changed. It is the whole of the loop's logic and performs no I/O:
// the same state and input give the same next state, byte for byte. s is
// not modified.
//
// The inputs are the outcomes [Agent.Perform] returns for s.Next, and
// what a person or the program decides ([Decisions], [Cancel],
// [Retry]). Before every model call Step prepares it: it fits the
// history into the window, checks it by the provider's rules, and puts
// the exact request in s.Next.Request, with the results to keep that
// fitting cleared. The one exception to "no I/O" is a model-backed
// budget.Summarizer in Config.Fit, which fitting calls.
//
// Step fails when in does not fit s (a tools outcome for a model call,
// the wrong number of tool outcomes, a decision for a call that does not
// wait for one, an edit that breaks the tool's schema): the error says
// what, and nothing changed.
func (a *Agent) Step(s *State, in Input) (*State, *Change, error) {
	n := s.clone()
	ch := &Change{}
	base := len(n.Messages)
	switch in := in.(type) {
	case ModelOutcome:
		if s.Next.Kind != CallModel {
			return nil, nil, fmt.Errorf("toolwire: step: a model outcome, but the state wants %s", s.Next.Kind)
		}
		a.afterModel(n, in, ch)
	case ToolsOutcome:
		if s.Next.Kind != RunTools {
			return nil, nil, fmt.Errorf("toolwire: step: a tools outcome, but the state wants %s", s.Next.Kind)
		}
		run := s.Next.Runnable(a.hasApprover())
		if len(in.Outcomes) != len(run) {
			return nil, nil, fmt.Errorf("toolwire: step: %d tool outcomes for %d runnable calls", len(in.Outcomes), len(run))
		}
		a.afterTools(n, run, in.Outcomes, ch)
	case Decisions:
		if err := a.decide(n, in); err != nil {
			return nil, nil, err
		}
	case Cancel:
		a.cancel(n, ch)
	case Retry:
		if err := a.retry(n); err != nil {
			return nil, nil, err
		}
	case nil:
		return nil, nil, errors.New("toolwire: step: the input is nil")
	default:
		return nil, nil, fmt.Errorf("toolwire: step: unknown input %T", in)
	}
	ch.Appended = n.Messages[min(base, len(n.Messages)):]
	if n.Next.Kind == CallModel && n.Next.Request == nil {
		a.prepare(n, ch)
	}
	return n, ch, nil
}

// clone copies s deeply enough that the copy can be changed: the
// messages slice is shared but never appended to in place.
func (s *State) clone() *State {
	n := *s
	n.Messages = s.Messages[:len(s.Messages):len(s.Messages)]
	n.Next.Calls = slices.Clone(s.Next.Calls)
	n.Next.Then = slices.Clip(s.Next.Then)
	n.Guard.Calls = slices.Clone(s.Guard.Calls)
	n.Guard.Failures = maps.Clone(s.Guard.Failures)
	n.turn.rep.Calls = slices.Clip(s.turn.rep.Calls)
	if n.mem == nil {
		n.mem = &scratch{}
	}
	return &n
}

// finish ends the run.
func (n *State) finish(reason StopReason, msg, answer string) {
	n.Next = Effect{Kind: Done, Stop: &Stop{Reason: reason, Message: msg, Answer: answer}}
}

func (a *Agent) afterModel(n *State, o ModelOutcome, ch *Change) {
	defer func() {
		// A failure that ends the run ends its turn too.
		if n.Next.Kind == Done && !slices.ContainsFunc(ch.Events, isTurnEvent) {
			a.endReport(n, ch)
		}
	}()
	rep := &n.turn.rep
	rep.Encoded, rep.Reused = o.Encoded, o.Reused
	if o.Response != nil {
		rep.Usage = rep.Usage.Add(o.Response.Usage)
	}
	f := o.Failure
	if f != nil && f.Kind != FailIncomplete && f.Kind != FailCancelled && f.Kind != FailDeadline {
		ch.Err = f
	}
	var incomplete *llm.IncompleteError
	switch {
	case f == nil:
		if o.Response == nil {
			n.finish(ModelError, "the model call returned neither an answer nor a failure", "")
			return
		}
	case f.Kind == FailIncomplete && o.Response != nil:
		// The calls cut off are answered below, without running.
		incomplete, _ = f.Unwrap().(*llm.IncompleteError)
	case f.Kind == FailCancelled, f.Kind == FailDeadline:
		return // the same call is to be made again, as it was prepared
	case f.Kind == FailEmptyMessage:
		if o.Response != nil {
			n.Usage = n.Usage.Add(o.Response.Usage)
		}
		if !n.Guard.EmptyRetried {
			n.Guard.EmptyRetried = true
			n.Next = Effect{Kind: CallModel}
			ch.Err = nil
			return // ask again, once
		}
		n.finish(EmptyAnswer, fmt.Sprintf("the model answered with an empty message twice in turn %d (%v); try again, or with another model", n.Turn+1, f), "")
		return
	case f.Kind == FailContextLength:
		if !n.Guard.Refitted {
			n.Guard.Refitted = true
			n.Next = Effect{Kind: CallModel, Refit: true}
			ch.Err = nil
			return
		}
		n.finish(ContextLength, "the provider refused the history as longer than the model's context window, also after it was fitted again: "+f.Error(), "")
		return
	case f.Kind == FailRateLimited:
		msg := "the provider rate-limited the model call and the client's retries are spent"
		if f.RetryAfter > 0 {
			msg += fmt.Sprintf(" (it asked to wait %v)", f.RetryAfter)
		}
		n.finish(ModelError, msg+"; try again later: "+f.Error(), "")
		return
	default:
		n.finish(ModelError, "the model call failed: "+f.Error(), "")
		return
	}
	resp := o.Response
	n.Turn++
	n.Usage = n.Usage.Add(resp.Usage)
	n.Guard.EmptyRetried = false
	msg := resp.Message
	at := len(n.Messages)
	defer func() {
		// The provider stored the history and this answer: the next call
		// continues it, if the answer went into the history unchanged
		// (not a call renamed or completed).
		n.Previous = nil
		if resp.ID != "" && len(n.Messages) > at && sameParts(n.Messages[at].Parts, resp.Message.Parts) {
			n.Previous = &llm.Previous{ID: resp.ID, Messages: at + 1}
		}
	}()
	if len(msg.ToolCalls()) == 0 {
		a.answer(n, msg)
		a.endReport(n, ch)
		return
	}
	cut := map[int]llm.IncompleteCall{}
	if incomplete != nil {
		for _, c := range incomplete.Calls {
			cut[c.Index] = c
		}
	}
	msg = completeCalls(msg, n.Turn, cut)
	msg, badNames := safeNames(msg)
	n.Messages = append(n.Messages, msg)
	var calls []PendingCall
	ts := a.toolset()
	for i, c := range msg.ToolCalls() {
		pc := PendingCall{Call: c, Approval: ts.approve[c.Name]}
		if ts.level[c.Name] == tool.Level1 {
			pc.Key = idempotencyKey(n.ID, c.ID)
		}
		if ic, ok := cut[i]; ok {
			r := cutResult(c, ic, resp.Finish)
			pc.Result, pc.Approval = &r, false
		} else if name, ok := badNames[i]; ok {
			r := badNameResult(c, name, ts.specs)
			pc.Result, pc.Approval = &r, false
		}
		calls = append(calls, pc)
		ch.Events = append(ch.Events, CallEvent{Turn: n.Turn, Call: c, Approval: pc.Approval})
	}
	n.Next = Effect{Kind: RunTools, Calls: calls, Room: a.room(n)}
	switch {
	case len(n.Next.Runnable(true)) == 0:
		a.endTurn(n, false, ch) // every call was answered already: nothing to run
	case len(n.Next.Runnable(a.hasApprover())) == 0:
		n.Next.Kind, n.Next.Room = AwaitApproval, 0 // every call waits for a person
	}
}

// sameParts reports whether a and b are the same slice of parts.
func sameParts(a, b []llm.Part) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// completeCalls gives the calls a stream left without an id or a name
// what a history needs: a call id made from the turn, and a name that
// says the call was cut off.
func completeCalls(msg llm.Message, turn int, cut map[int]llm.IncompleteCall) llm.Message {
	if len(cut) == 0 {
		return msg
	}
	out := llm.Message{Role: msg.Role, Parts: slices.Clone(msg.Parts)}
	k := 0
	for j, p := range out.Parts {
		c, ok := p.(llm.ToolCall)
		if !ok {
			continue
		}
		if _, isCut := cut[k]; isCut {
			if c.ID == "" {
				c.ID = "call_cut_" + strconv.Itoa(turn) + "_" + strconv.Itoa(k)
			}
			if c.Name == "" {
				c.Name = "incomplete_call"
			}
			out.Parts[j] = c
		}
		k++
	}
	return out
}

// toolName is what every provider takes back as the name of a call in a
// history (OAI-CC-TOOLNAME-PATTERN, OAI-CC-TOOLNAME-LEN,
// ANT-TOOLUSE-NAME, GEM-NAME), and what tool.Spec names a tool.
var toolName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// invalidName is the name a call gets in the history when the model's
// name for it is none a provider would take back.
const invalidName = "invalid_tool_name"

// safeNames renames the calls of msg whose names no provider takes back
// (control characters, spaces, too long: what an injected model may
// write) to invalidName, and returns the names they had, by the call's
// position among msg's calls.
func safeNames(msg llm.Message) (llm.Message, map[int]string) {
	var bad map[int]string
	k := 0
	for j, p := range msg.Parts {
		c, ok := p.(llm.ToolCall)
		if !ok {
			continue
		}
		if !toolName.MatchString(c.Name) {
			if bad == nil {
				bad = map[int]string{}
				msg = llm.Message{Role: msg.Role, Parts: slices.Clone(msg.Parts)}
			}
			bad[k] = c.Name
			c.Name = invalidName
			msg.Parts[j] = c
		}
		k++
	}
	return msg, bad
}

// badNameResult answers a call whose name was no tool's name, without
// running it. The name is quoted, so control characters in it are
// escapes, never sent as they are.
func badNameResult(c llm.ToolCall, name string, specs []llm.ToolSpec) llm.ToolResult {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	env := toolresult.Failure(toolresult.UnknownTool, fmt.Sprintf("no tool is named %s (a tool name is letters, digits, _ and -, at most 64); the call did not run", strconv.QuoteToASCII(name)))
	env.Summary = "the call named " + strconv.QuoteToASCII(oneLine(name, 40)) + " was not run: no tool has that name"
	env.Suggestion = toolresult.Options("call one of the tools: " + strings.Join(names, ", "))
	return env.Result(c.ID, c.Name)
}

// cutResult answers a call the stream cut off.
func cutResult(c llm.ToolCall, ic llm.IncompleteCall, f llm.Finish) llm.ToolResult {
	why := "its arguments did not arrive whole (" + ic.Problem + ")"
	sug := toolresult.Options("call " + c.Name + " again with complete arguments")
	if f.Reason == llm.FinishLength {
		why = "the answer hit the output token limit in the middle of this call: " + ic.Problem
		sug = toolresult.Options("call "+c.Name+" again with shorter arguments", "make fewer calls at once")
	}
	env := toolresult.Failure(toolresult.MalformedArguments, why+"; the call did not run")
	env.Summary = c.Name + " was not run: " + why
	env.Suggestion = sug
	return env.Result(c.ID, c.Name)
}

// answer handles a message without calls: the final answer, or one that
// breaks Config.Output.
func (a *Agent) answer(n *State, msg llm.Message) {
	n.Messages = append(n.Messages, msg)
	text := msg.Text()
	if a.output == nil {
		n.finish(Answered, fmt.Sprintf("the model answered in turn %d", n.Turn), text)
		return
	}
	value, problem := a.checkOutput(text)
	if problem == "" {
		n.finish(Answered, fmt.Sprintf("the model answered in turn %d, with JSON that matches the output schema", n.Turn), text)
		n.Next.Stop.Output = value
		return
	}
	if !n.Guard.Corrected {
		n.Guard.Corrected = true
		n.Messages = append(n.Messages, llm.User("Your answer does not match the required output schema: "+problem+
			". Answer again with only a JSON value that matches the schema, and no other text."))
		n.Next = Effect{Kind: CallModel}
		return
	}
	n.finish(InvalidOutput, "the final answer does not match the output schema, also after one correction: "+problem, text)
}

// afterTools takes the outcomes of the calls at positions run.
func (a *Agent) afterTools(n *State, run []int, outcomes []tool.Outcome, ch *Change) {
	repeated := false
	turn := n.Turn
	var records []CallRecord // this turn's calls, merged after the turn
	n.turn.ran = maps.Clone(n.turn.ran)
	if n.turn.ran == nil {
		n.turn.ran = map[string]tool.Outcome{}
	}
	left := false // a call the run's cancellation left to run again
	for k, i := range run {
		pc := &n.Next.Calls[i]
		o := outcomes[k]
		if o.Cancelled != "" {
			left = a.afterCancelled(pc, o) || left
			continue
		}
		n.turn.ran[pc.Call.ID] = o
		env := o.Envelope
		var nudges []string
		// Repeated calls: the same call as an earlier turn, same result.
		args := canonicalArgs(pc.Call.Input)
		digest := resultDigest(env)
		if rec := findRecord(n.Guard.Calls, pc.Call.Name, args); rec != nil && rec.Turn < turn {
			if rec.Digest == digest {
				rec.Repeats++
				if rec.Repeats > a.cfg.MaxRepeats {
					repeated = true
					nudges = append(nudges, fmt.Sprintf("This call repeats turn %d again with the same result, so the run stops here; you could answer with what you have", rec.Turn))
				} else {
					nudges = append(nudges, fmt.Sprintf("This call repeats turn %d with the same result; you could consider other arguments or another tool", rec.Turn))
				}
			} else {
				rec.Turn, rec.Digest, rec.Repeats = turn, digest, 0
			}
		} else if rec == nil && findRecord(records, pc.Call.Name, args) == nil {
			records = append(records, CallRecord{Tool: pc.Call.Name, Args: args, Turn: turn, Digest: digest})
		}
		// Consecutive failures of one tool.
		if o.Result.Status == llm.StatusError {
			if n.Guard.Failures == nil {
				n.Guard.Failures = map[string]int{}
			}
			n.Guard.Failures[pc.Call.Name]++
			if f := n.Guard.Failures[pc.Call.Name]; a.cfg.FailureNudge > 0 && f >= a.cfg.FailureNudge {
				what := ""
				if env.Error != nil {
					what = " (this time: " + string(env.Error.Type) + ")"
				}
				nudges = append(nudges, fmt.Sprintf("%s has failed %d times in a row%s; you could change strategy: other arguments, another tool, or an answer with what you have", pc.Call.Name, f, what))
			}
		} else {
			delete(n.Guard.Failures, pc.Call.Name)
		}
		if pc.Decision != nil && pc.Decision.Kind == Edited {
			nudges = append(nudges, "A person edited this call's arguments before it ran; it ran with "+string(pc.Call.Input))
		}
		r := o.Result
		if len(nudges) > 0 {
			r = withSuggestion(r, env, nudges)
		}
		pc.Result = &r
	}
	n.Guard.Calls = append(n.Guard.Calls, records...)
	if left {
		return // the state still wants the calls run: continuing it runs them
	}
	if len(n.Next.Runnable(true)) > 0 {
		n.Next.Kind = AwaitApproval // the calls that need a person's decision
		n.Next.Room = 0
		return
	}
	a.endTurn(n, repeated, ch)
}

// afterCancelled decides what a call becomes that the run's
// cancellation kept from finishing (o.Cancelled), as resuming after a
// crash would ([RecoveryOf]): a call that never started, or whose tool
// may run again (level_2; level_1, with its key, which pc.Key holds), is
// left unanswered, to run when the run is continued; a call of any
// other tool that started is answered interrupted, and never runs again.
// It reports whether the call was left to run.
func (a *Agent) afterCancelled(pc *PendingCall, o tool.Outcome) bool {
	if o.Cancelled == tool.CancelledWhileRunning {
		if RecoveryOf(a.toolset().level[pc.Call.Name]) == MarkInterrupted {
			r := interrupted(pc.Call)
			pc.Result = &r
			return false
		}
		pc.Attempts += max(1, o.Envelope.Meta.Attempts)
	}
	return true
}

// endTurn appends the tool message with every call's result, in call
// order, and decides what comes next.
func (a *Agent) endTurn(n *State, repeated bool, ch *Change) {
	results := make([]llm.ToolResult, len(n.Next.Calls))
	rep := &n.turn.rep
	rep.Calls = make([]CallReport, len(n.Next.Calls))
	for i, pc := range n.Next.Calls {
		results[i] = *pc.Result
		o, ran := n.turn.ran[pc.Call.ID]
		cr := CallReport{ID: pc.Call.ID, Tool: pc.Call.Name, Status: results[i].Status}
		if ran {
			cr.Duration = durationOf(o)
			if o.Envelope.Error != nil {
				cr.Error = o.Envelope.Error.Type
			}
			rep.Truncated = rep.Truncated || o.Envelope.Meta.Truncated
		}
		rep.Calls[i] = cr
		ch.Events = append(ch.Events, ResultEvent{Turn: n.Turn, Result: results[i], ErrorType: cr.Error, Duration: durationOf(o), Shaping: o.Shaping})
	}
	n.Messages = append(n.Messages, llm.Tool(results...))
	n.Messages = append(n.Messages, n.Next.Then...) // after every result
	switch {
	case repeated:
		n.finish(RepeatedCalls, fmt.Sprintf("stopped in turn %d: the model kept repeating a call with the same result after it was told so", n.Turn), a.gathered(n))
	case n.Turn >= a.cfg.MaxTurns:
		n.finish(MaxTurns, fmt.Sprintf("stopped after %d turns (the maximum) without a final answer", n.Turn), a.gathered(n))
	default:
		n.Next = Effect{Kind: CallModel}
	}
	a.endReport(n, ch)
}

// hasApprover reports whether the program gave the executor an approver,
// which decides the calls that need approval as they run.
func (a *Agent) hasApprover() bool { return a.cfg.Executor != nil && a.cfg.Executor.Approver != nil }

func isTurnEvent(e Event) bool { _, ok := e.(TurnEvent); return ok }

// endReport completes the turn's report from the state it ended in, as
// a TurnEvent.
func (a *Agent) endReport(n *State, ch *Change) {
	rep := n.turn.rep
	if rep.Turn == 0 {
		rep.Turn = n.Turn // a state decoded in the middle of a turn
	}
	rep.Added = len(n.Messages) - n.turn.base
	rep.Tokens = a.tokens(n, n.Messages)
	rep.Headroom = max(0, a.cfg.Limits.Window-rep.Tokens-a.reserve)
	if n.Next.Kind == Done {
		rep.Stop = n.Next.Stop.Reason
	}
	ch.Events = append(ch.Events, TurnEvent{Report: rep})
	n.turn = turnProgress{}
}

// gathered says what a run that a guard stopped had found: each call
// and its one-line outcome.
func (a *Agent) gathered(n *State) string {
	start := 0
	for i, m := range n.Messages {
		if m.Role == llm.RoleUser {
			start = i + 1
			break
		}
	}
	return "No final answer. What the run gathered: " + budget.Summary(n.Messages[start:])
}

// withSuggestion adds the nudges to a result's suggestion, re-rendering
// its envelope: a nudge goes inside the tool message, never beside it.
func withSuggestion(r llm.ToolResult, env toolresult.Envelope, nudges []string) llm.ToolResult {
	if len(r.Content) == 0 {
		return r
	}
	if _, ok := r.Content[0].(llm.Text); !ok {
		return r
	}
	var parts []string
	if env.Suggestion != "" {
		parts = append(parts, strings.TrimSuffix(env.Suggestion, "."))
	}
	for _, s := range nudges {
		parts = append(parts, strings.TrimSuffix(s, "."))
	}
	env.Suggestion = strings.Join(parts, ". ") + "."
	text := env.Result(r.CallID, r.Name).Content[0]
	out := r
	out.Content = append([]llm.Part{text}, r.Content[1:]...)
	return out
}

// durationOf is a call's duration, from its envelope.
func durationOf(o tool.Outcome) time.Duration { return o.Envelope.Meta.Duration }
