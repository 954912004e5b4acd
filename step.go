package toolwire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/observe"
	"github.com/toolwire/toolwire/tool"
)

// An Outcome is what performing a state's effect produced, for
// [Agent.Step]. The set is closed: [ModelOutcome] and [ToolsOutcome].
type Outcome interface{ isOutcome() }

// ModelOutcome is the outcome of a [CallModel] effect.
type ModelOutcome struct {
	// Messages is the history as it was sent, when fitting changed it;
	// nil when it was sent as the state holds it.
	Messages []llm.Message
	// Response is the model's answer; nil when the call failed before
	// one arrived. With an *llm.IncompleteError or llm.ErrEmptyMessage in
	// Err, it is the answer as it arrived.
	Response *llm.Response
	// Err is why the call failed: an *llm.Error, a context error, a
	// [*HistoryError], or what llm.Generate returns with a Response.
	Err error
}

// ToolsOutcome is the outcome of a [RunTools] effect: one tool.Outcome
// for each call [Effect.Runnable] returned, in that order.
type ToolsOutcome struct {
	Outcomes []tool.Outcome
}

func (ModelOutcome) isOutcome() {}
func (ToolsOutcome) isOutcome() {}

// Runnable returns the positions in e.Calls of the calls to run: those
// not answered yet, less those that need approval unless approved is set
// (the executor has an approver that decides them).
func (e Effect) Runnable(approved bool) []int {
	var out []int
	for i, pc := range e.Calls {
		if pc.Result == nil && (approved || !pc.Approval) {
			out = append(out, i)
		}
	}
	return out
}

// Step returns the state that follows s once its effect produced out. It
// is the whole of the loop's logic and performs no I/O: the same state
// and outcome give the same next state. s is not modified.
//
// Step fails only when out does not answer s.Next (a tools outcome for a
// model call, or the wrong number of tool outcomes).
func (a *Agent) Step(s *State, out Outcome) (*State, error) {
	n := s.clone()
	switch o := out.(type) {
	case ModelOutcome:
		if s.Next.Kind != CallModel {
			return nil, fmt.Errorf("toolwire: step: a model outcome, but the state wants %s", s.Next.Kind)
		}
		a.afterModel(n, o)
		return n, nil
	case ToolsOutcome:
		if s.Next.Kind != RunTools {
			return nil, fmt.Errorf("toolwire: step: a tools outcome, but the state wants %s", s.Next.Kind)
		}
		run := s.Next.Runnable(a.cfg.Executor != nil && a.cfg.Executor.Approver != nil)
		if len(o.Outcomes) != len(run) {
			return nil, fmt.Errorf("toolwire: step: %d tool outcomes for %d runnable calls", len(o.Outcomes), len(run))
		}
		a.afterTools(n, run, o.Outcomes)
		return n, nil
	}
	return nil, fmt.Errorf("toolwire: step: unknown outcome %T", out)
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
	return &n
}

// finish ends the run.
func (n *State) finish(reason StopReason, msg, answer string) {
	n.Next = Effect{Kind: Done, Stop: &Stop{Reason: reason, Message: msg, Answer: answer}}
}

func (a *Agent) afterModel(n *State, o ModelOutcome) {
	if o.Messages != nil {
		n.Messages = o.Messages[:len(o.Messages):len(o.Messages)]
		n.Fits++
	}
	refit := n.Next.Refit
	n.Next.Refit = false
	err := o.Err
	var incomplete *llm.IncompleteError
	var history *HistoryError
	var le *llm.Error
	switch {
	case err == nil:
	case errors.As(err, &incomplete) && o.Response != nil:
		// The calls cut off are answered below, without running.
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		n.Next.Refit = refit
		return // the same call is to be made again, a refit still a refit
	case errors.As(err, &history):
		n.finish(InvalidHistory, history.Error(), "")
		return
	case errors.Is(err, llm.ErrEmptyMessage):
		if o.Response != nil {
			n.Usage = n.Usage.Add(o.Response.Usage)
		}
		if !n.Guard.EmptyRetried {
			n.Guard.EmptyRetried = true
			return // ask again, once
		}
		n.finish(EmptyAnswer, fmt.Sprintf("the model answered with an empty message twice in turn %d (%v); try again, or with another model", n.Turn+1, err), "")
		return
	case errors.Is(err, llm.ContextLength):
		if !n.Guard.Refitted {
			n.Guard.Refitted = true
			n.Next.Refit = true
			return
		}
		n.finish(ContextLength, "the provider refused the history as longer than the model's context window, also after it was fitted again: "+err.Error(), "")
		return
	case errors.As(err, &le) && le.Kind == llm.RateLimited:
		msg := "the provider rate-limited the model call and the client's retries are spent"
		if le.RetryAfter > 0 {
			msg += fmt.Sprintf(" (it asked to wait %v)", le.RetryAfter)
		}
		n.finish(ModelError, msg+"; try again later: "+err.Error(), "")
		return
	default:
		n.finish(ModelError, "the model call failed: "+err.Error(), "")
		return
	}
	resp := o.Response
	n.Turn++
	n.Usage = n.Usage.Add(resp.Usage)
	n.Guard.EmptyRetried = false
	msg := resp.Message
	if len(msg.ToolCalls()) == 0 {
		a.answer(n, msg)
		return
	}
	cut := map[int]llm.IncompleteCall{}
	if incomplete != nil {
		for _, c := range incomplete.Calls {
			cut[c.Index] = c
		}
	}
	msg = completeCalls(msg, n.Turn, cut)
	n.Messages = append(n.Messages, msg)
	var calls []PendingCall
	for i, c := range msg.ToolCalls() {
		pc := PendingCall{Call: c, Approval: a.approve[c.Name]}
		if a.level[c.Name] == tool.Level1 {
			pc.Key = idempotencyKey(n.ID, c.ID)
		}
		if ic, ok := cut[i]; ok {
			r := cutResult(c, ic, resp.Finish)
			pc.Result, pc.Approval = &r, false
		}
		calls = append(calls, pc)
	}
	n.Next = Effect{Kind: RunTools, Calls: calls}
	if len(n.Next.Runnable(true)) == 0 {
		a.endTurn(n, false) // every call was cut off: nothing to run
	}
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

// cutResult answers a call the stream cut off.
func cutResult(c llm.ToolCall, ic llm.IncompleteCall, f llm.Finish) llm.ToolResult {
	why := "its arguments did not arrive whole (" + ic.Problem + ")"
	sug := observe.Options("call " + c.Name + " again with complete arguments")
	if f.Reason == llm.FinishLength {
		why = "the answer hit the output token limit in the middle of this call: " + ic.Problem
		sug = observe.Options("call "+c.Name+" again with shorter arguments", "make fewer calls at once")
	}
	env := observe.Failure(observe.MalformedArguments, why+"; the call did not run")
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
func (a *Agent) afterTools(n *State, run []int, outcomes []tool.Outcome) {
	repeated := false
	turn := n.Turn
	var records []CallRecord // this turn's calls, merged after the turn
	for k, i := range run {
		pc := &n.Next.Calls[i]
		o := outcomes[k]
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
	if len(n.Next.Runnable(true)) > 0 {
		n.Next.Kind = AwaitApproval // the calls that need a person's decision
		return
	}
	a.endTurn(n, repeated)
}

// endTurn appends the tool message with every call's result, in call
// order, and decides what comes next.
func (a *Agent) endTurn(n *State, repeated bool) {
	results := make([]llm.ToolResult, len(n.Next.Calls))
	for i, pc := range n.Next.Calls {
		results[i] = *pc.Result
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
func withSuggestion(r llm.ToolResult, env observe.Envelope, nudges []string) llm.ToolResult {
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
