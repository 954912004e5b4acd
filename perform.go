package toolwire

import (
	"context"
	"iter"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// Perform does the I/O that s.Next asks for, and nothing else: it calls
// the model with the request Step prepared ([Agent.Request]), after
// keeping the results fitting cleared ([Effect.Offload]); or it runs the
// calls [Effect.Runnable] names through the tool executor, each result
// shaped to its share of [Effect.Room]. It returns the outcome for
// [Agent.Step]; a failure is an outcome too, never a Go error. For a
// state that wants nothing performed (a pause, the end) it returns nil.
//
// Offloaded results are kept in the run's scope (toolresult.WithScope with
// s.ID), so that read_result reads this run's results only. Hooks are
// told of the model call and of each tool call attempt.
//
// The driver ([Agent.Continue]) adds what belongs to a run rather than to
// one effect: the model's text as it streams, and with Config.Sessions
// the write-ahead record of every tool call. A caller that drives the
// loop itself with Perform and Step persists what Step returns.
func (a *Agent) Perform(ctx context.Context, s *State) Input {
	ctx = a.runContext(ctx, s)
	switch s.Next.Kind {
	case CallModel:
		return a.callModel(ctx, s)
	case RunTools:
		return a.runTools(ctx, s)
	}
	return nil
}

// runContext is ctx with what a run's effects need: its id for hooks,
// its scope for offloaded results.
func (a *Agent) runContext(ctx context.Context, s *State) context.Context {
	if RunID(ctx) == s.ID && toolresult.Scope(ctx) == s.ID {
		return ctx
	}
	ctx = context.WithValue(ctx, runIDKey{}, s.ID)
	return toolresult.WithScope(ctx, s.ID)
}

type textSinkKey struct{}

// withTextSink returns ctx under which the model's text, as it streams,
// goes to sink; sink returns false when nobody listens any more, which
// stops the call.
func withTextSink(ctx context.Context, sink func(TextEvent) bool) context.Context {
	return context.WithValue(ctx, textSinkKey{}, sink)
}

// callModel keeps what fitting cleared and calls the model.
func (a *Agent) callModel(ctx context.Context, s *State) ModelOutcome {
	turn := s.Turn + 1
	if k, ok := a.store.(toolresult.Keeper); ok {
		for _, o := range s.Next.Offload {
			if err := k.Keep(ctx, o.Ref, o.Result); err != nil {
				if ctx.Err() != nil {
					return ModelOutcome{Failure: failureOf(ctx.Err(), nil)}
				}
				a.cfg.Logger.Warn("a result that fitting cleared could not be kept; read_result will not find it", "ref", o.Ref, "err", err)
			}
		}
	}
	req := a.Request(s)
	if len(a.hooks) > 0 {
		a.notify(ctx, ModelCallEvent{Turn: turn, Request: req})
	}
	began := time.Now()
	o := a.stream(ctx, s, req, turn)
	o.Duration = time.Since(began)
	if len(a.hooks) > 0 {
		ev := ModelDoneEvent{Turn: turn, Duration: o.Duration, Failure: o.Failure}
		if o.Response != nil {
			r := o.Response
			ev.Usage, ev.Finish, ev.Model, ev.ResponseID = r.Usage, r.Finish.Reason, r.Model, r.ID
		}
		a.notify(ctx, ev)
	}
	return o
}

// stream makes the call and accumulates its answer.
func (a *Agent) stream(ctx context.Context, s *State, req *llm.Request, turn int) ModelOutcome {
	var o ModelOutcome
	sink, _ := ctx.Value(textSinkKey{}).(func(TextEvent) bool)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var events iter.Seq2[llm.Event, error]
	cm, cached := a.model.(llm.CachedModel)
	var cache *llm.WireCache
	if cached {
		cache = s.wireCache()
	}
	var reused, encoded int
	if cache != nil {
		reused, encoded = cache.Stats()
		events = cm.StreamCached(ctx, req, cache)
	} else {
		events = a.model.Stream(ctx, req)
	}
	var acc llm.Accumulator
	for ev, err := range events {
		if err != nil {
			o.Failure = failureOf(err, nil)
			return o
		}
		acc.Add(ev)
		if td, isText := ev.(llm.TextDelta); isText && td.Text != "" {
			d := TextEvent{Turn: turn, Text: td.Text}
			if len(a.hooks) > 0 {
				a.notify(ctx, d)
			}
			if sink != nil && !sink(d) {
				stop()
				o.Failure = failureOf(context.Canceled, nil)
				return o
			}
		}
	}
	if cache != nil {
		nr, ne := cache.Stats()
		o.Reused, o.Encoded = nr-reused, ne-encoded
	}
	resp, err := acc.Response()
	o.Response, o.Failure = resp, failureOf(err, resp)
	return o
}

// wireCache returns the run's cache of the messages' wire encodings.
func (s *State) wireCache() *llm.WireCache {
	if s.mem == nil {
		return nil // a state no step made: encode it whole
	}
	if s.mem.wire == nil {
		s.mem.wire = new(llm.WireCache)
	}
	return s.mem.wire
}

type runRecorderKey struct{}

// runTools runs the calls the state names, each result shaped to its
// share of the room.
func (a *Agent) runTools(ctx context.Context, s *State) ToolsOutcome {
	idx := s.Next.Runnable(a.hasApprover())
	calls := make([]llm.ToolCall, len(idx))
	keys := map[string]string{}
	var decisions map[string]*Decision // for the agent's approver
	for k, i := range idx {
		pc := s.Next.Calls[i]
		calls[k] = pc.Call
		if pc.Key != "" {
			keys[pc.Call.ID] = pc.Key
		}
		if pc.Decision != nil {
			if decisions == nil {
				decisions = map[string]*Decision{}
			}
			decisions[pc.Call.ID] = pc.Decision
		}
	}
	ctx = tool.WithIdempotencyKeys(ctx, keys)
	rec, _ := ctx.Value(runRecorderKey{}).(tool.Recorder)
	if len(a.hooks) > 0 {
		rec = hookRecorder{a: a, turn: s.Turn, next: rec}
		turn := s.Turn
		ctx = tool.WithProgress(ctx, func(ctx context.Context, p tool.Progress) {
			ci, _ := tool.CallInfoFrom(ctx)
			a.notify(ctx, ToolProgressEvent{Turn: turn, CallID: ci.ID, Tool: ci.Name, Attempt: ci.Attempt, Progress: p})
		})
	}
	if rec != nil {
		ctx = tool.WithRecorder(ctx, rec)
	}
	if decisions != nil {
		ctx = context.WithValue(ctx, decisionsKey{}, decisions)
	}
	outcomes := a.exec.RunWithin(ctx, calls, s.Next.Room)
	if s.mem != nil && s.mem.counter != nil {
		for _, o := range outcomes {
			// The shaper counted the rendered result exactly: fitting
			// need not count it again.
			if o.Shaping != nil && len(o.Result.Content) > 0 {
				if t, ok := o.Result.Content[0].(llm.Text); ok {
					s.mem.counter.remember(t.Text, o.Shaping.TokensAfter)
				}
			}
		}
	}
	return ToolsOutcome{Outcomes: outcomes}
}
