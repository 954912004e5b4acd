package toolwire

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/observe"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/transcript"
)

// Run asks question and runs the loop until the model answers or the run
// stops. The error is nil exactly when the model answered; otherwise it
// is a [*StopError] (errors.Is(err, toolwire.MaxTurns), ...) and the
// Result says what the run gathered. Cancelling ctx stops the run
// cleanly: running tools get cancelled results, and Result.State holds
// every call answered, ready to be continued.
func (a *Agent) Run(ctx context.Context, question string) (*Result, error) {
	return a.RunState(ctx, a.Start(question))
}

// RunState is [Agent.Run] from a state: a new one from [Agent.Start], or
// one saved from an earlier run.
func (a *Agent) RunState(ctx context.Context, s *State) (*Result, error) {
	var res *Result
	for ev, err := range a.Continue(ctx, s) {
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

// Continue drives the loop from s: it performs the effect s names, steps
// to the next state, and so on, until the run ends, pauses for approval,
// or ctx ends. Nothing it starts outlives the iteration.
func (a *Agent) Continue(ctx context.Context, s *State) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if s == nil {
			yield(nil, errors.New("toolwire: continue: the state is nil"))
			return
		}
		r, err := a.newRun()
		if err != nil {
			yield(nil, err)
			return
		}
		r.loop(ctx, s, yield)
	}
}

// run is one drive of the loop: what lives as long as the iteration.
type run struct {
	a       *Agent
	model   llm.Model
	cached  llm.CachedModel
	cache   *llm.WireCache
	counter *memoCounter
	fitter  *budget.Fitter
	reserve int
	// The turn in progress.
	rep      TurnReport
	base     int                     // the history's length when the turn's call was made
	outcomes map[string]tool.Outcome // by call id
	lastErr  error                   // the model call's error, for StopError
	// With Config.Sessions: the session.
	sess *runSession
}

func (a *Agent) newRun() (*run, error) {
	r := &run{a: a, model: a.model, counter: &memoCounter{c: a.counter}}
	if cm, ok := a.model.(llm.CachedModel); ok {
		r.cached, r.cache = cm, new(llm.WireCache)
	}
	fc := budget.FitConfig{Store: a.store}
	if a.cfg.Fit != nil {
		fc = *a.cfg.Fit
		if fc.Store == nil {
			fc.Store = a.store
		}
	}
	r.reserve = fc.Reserve
	if r.reserve == 0 {
		r.reserve = min(a.cfg.Limits.MaxOutput, 8192)
	}
	var err error
	if r.fitter, err = budget.NewFitter(r.counter, a.cfg.Limits, a.fitWith, &fc); err != nil {
		return nil, fmt.Errorf("toolwire: run: %w", err)
	}
	return r, nil
}

func (r *run) loop(ctx context.Context, st *State, yield func(Event, error) bool) {
	if r.a.cfg.Sessions != nil && r.sess == nil {
		rs, err := r.a.open(ctx, st)
		if err != nil {
			yield(nil, err)
			return
		}
		r.sess = rs
	}
	// Offloaded results are kept apart by run: a model's read_result
	// reads its own run's results, never another user's.
	scope := st.ID
	if r.sess != nil {
		ctx, scope = withSession(ctx, r.sess.id), r.sess.id
	}
	if scope == "" {
		scope = newRunID() // a state built without an id: this run alone
	}
	ctx = observe.WithScope(ctx, scope)
	for {
		switch st.Next.Kind {
		case Done, AwaitApproval:
			res, err := r.result(st)
			if yield(DoneEvent{Result: res}, nil) && err != nil {
				yield(nil, err)
			}
			return
		case CallModel, RunTools:
		default:
			yield(nil, fmt.Errorf("toolwire: run: the state wants %q, which is no effect", st.Next.Kind))
			return
		}
		if err := ctx.Err(); err != nil {
			res := &Result{Stop: Cancelled, Turns: st.Turn, Usage: st.Usage, State: st, Session: r.sessionID(),
				Message: fmt.Sprintf("cancelled after %d turn(s); every call made is answered, and the run can be continued from its state", st.Turn)}
			if yield(DoneEvent{Result: res}, nil) {
				yield(nil, &StopError{Reason: Cancelled, Message: res.Message, Err: err})
			}
			return
		}
		var out Outcome
		began := time.Now()
		if st.Next.Kind == CallModel {
			o, ok := r.callModel(ctx, st, yield)
			if !ok {
				return
			}
			out = o
		} else {
			out = r.runTools(ctx, st)
		}
		next, err := r.a.Step(st, out)
		if err != nil {
			yield(nil, err)
			return
		}
		if r.sess != nil {
			if err := r.persist(ctx, st, next, out, time.Since(began)); err != nil {
				yield(nil, err)
				return
			}
		}
		if !r.emit(ctx, st, next, out, yield) {
			return
		}
		st = next
	}
}

// sessionID is the run's session id, "" without one.
func (r *run) sessionID() string {
	if r.sess == nil {
		return ""
	}
	return r.sess.id
}

// persist commits the step from st to next: the messages it added, the
// state, and what it did. A call record that could not be written fails
// the step: the session no longer says what ran.
func (r *run) persist(ctx context.Context, st, next *State, out Outcome, took time.Duration) error {
	base := len(st.Messages)
	tr := StepTrace{Did: st.Next.Kind, DurationNS: int64(took)}
	switch o := out.(type) {
	case ModelOutcome:
		sent := st.Messages
		if o.Messages != nil {
			sent, base = o.Messages, len(o.Messages)
			tr.Fitted, tr.Cleared, tr.Removed = true, r.rep.Fit.Cleared, r.rep.Fit.Removed
		}
		tr.Sent, tr.Tokens = len(sent), r.fitter.Tokens(sent)
		if o.Response != nil {
			tr.Usage = usageJSON(o.Response.Usage)
		}
		if o.Err != nil {
			tr.Error = o.Err.Error()
		}
	case ToolsOutcome:
		if err := r.sess.rec.takeErr(); err != nil {
			return err
		}
	}
	return r.sess.commit(ctx, next, next.Messages[min(base, len(next.Messages)):], tr)
}

// emit yields what a step did: the calls of a new answer, the results of
// a finished turn, the turn's summary, and the step.
func (r *run) emit(ctx context.Context, st, next *State, out Outcome, yield func(Event, error) bool) bool {
	mo, fromModel := out.(ModelOutcome)
	base := len(st.Messages)
	fitted := fromModel && mo.Messages != nil
	if fitted {
		base = len(mo.Messages)
	}
	if fromModel {
		r.lastErr = mo.Err
		if mo.Response != nil {
			r.rep.Usage = r.rep.Usage.Add(mo.Response.Usage)
		}
	}
	added := next.Messages[min(base, len(next.Messages)):]
	for _, m := range added {
		switch m.Role {
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls() {
				if !yield(CallEvent{Turn: next.Turn, Call: c, Approval: r.a.approve[c.Name]}, nil) {
					return false
				}
			}
		case llm.RoleTool:
			for _, res := range m.ToolResults() {
				o := r.outcomes[res.CallID]
				if !yield(ResultEvent{Turn: next.Turn, Result: res, Duration: durationOf(o), Shaping: o.Shaping}, nil) {
					return false
				}
			}
		}
	}
	answered := next.Turn >= r.rep.Turn
	if next.Next.Kind != RunTools && (next.Next.Kind != CallModel || answered) {
		r.finishTurn(ctx, next)
		if !yield(TurnEvent{Report: r.rep}, nil) {
			return false
		}
	}
	return yield(StepEvent{State: next, Added: added, Fitted: fitted}, nil)
}

// callModel fits the history, checks it and calls the model. ok is false
// when the consumer stopped listening.
func (r *run) callModel(ctx context.Context, st *State, yield func(Event, error) bool) (o ModelOutcome, ok bool) {
	a := r.a
	r.rep = TurnReport{Turn: st.Turn + 1}
	r.outcomes = nil
	msgs := st.Messages
	r.base = len(msgs)
	fitter := r.fitter
	if st.Next.Refit {
		fitter = r.refitter(msgs)
	}
	f, rep, err := fitter.Fit(ctx, msgs)
	switch {
	case err == nil, errors.Is(err, budget.ErrDoesNotFit):
	case ctx.Err() != nil:
		return ModelOutcome{Err: ctx.Err()}, true
	default:
		a.cfg.Logger.Warn("fitting failed; the history is sent as it is", "turn", st.Turn+1, "err", err)
		f = msgs
	}
	if !sameSlice(f, msgs) {
		o.Messages = f
		msgs = f
		r.base = len(f)
		r.rep.Fitted, r.rep.Fit = true, rep
	}
	if a.dialect != "" {
		if vs := transcript.CheckRequest(transcript.Request{Messages: msgs, Tools: a.specs, Model: a.name, ReasoningEffort: string(a.cfg.Effort)}, a.dialect); !transcript.Accepted(vs) {
			var errs []transcript.Violation
			for _, v := range vs {
				if !v.Warning {
					errs = append(errs, v)
				}
			}
			o.Err = &HistoryError{Dialect: a.dialect, Violations: errs}
			return o, true
		}
	}
	req := &llm.Request{Messages: msgs, Tools: a.specs, Temperature: a.cfg.Temperature,
		MaxOutputTokens: a.cfg.MaxOutputTokens, Effort: a.cfg.Effort}
	var stream iter.Seq2[llm.Event, error]
	var reused, encoded int
	if r.cached != nil {
		reused, encoded = r.cache.Stats()
		stream = r.cached.StreamCached(ctx, req, r.cache)
	} else {
		stream = r.model.Stream(ctx, req)
	}
	var acc llm.Accumulator
	for ev, err := range stream {
		if err != nil {
			o.Err = err
			return o, true
		}
		acc.Add(ev)
		if td, isText := ev.(llm.TextDelta); isText && td.Text != "" {
			if !yield(TextDelta{Turn: st.Turn + 1, Text: td.Text}, nil) {
				return o, false
			}
		}
	}
	if r.cached != nil {
		nr, ne := r.cache.Stats()
		r.rep.Reused, r.rep.Encoded = nr-reused, ne-encoded
	}
	o.Response, o.Err = acc.Response()
	return o, true
}

// refitter returns a fitter for a history the provider refused as too
// long: one whose window is a little smaller than what the history
// counts, so that fitting compacts it to about 60% of that.
func (r *run) refitter(msgs []llm.Message) *budget.Fitter {
	l := r.a.cfg.Limits
	cur := r.fitter.Tokens(msgs)
	window := r.reserve + max(cur*6/7, 1)
	if window >= l.Window {
		window = l.Window - 1
	}
	small := budget.Limits{Window: window, MaxOutput: min(l.MaxOutput, window-1), Encoding: l.Encoding, NoToolResultImages: l.NoToolResultImages}
	fc := budget.FitConfig{Store: r.a.store, Reserve: r.reserve}
	if c := r.a.cfg.Fit; c != nil {
		fc = *c
		fc.Reserve = r.reserve
		fc.High, fc.Low = 0, 0
		if fc.Store == nil {
			fc.Store = r.a.store
		}
	}
	f, err := budget.NewFitter(r.counter, small, r.a.fitWith, &fc)
	if err != nil {
		return r.fitter
	}
	return f
}

// runTools runs the calls the state names, each result shaped to its share
// of the room the history leaves.
func (r *run) runTools(ctx context.Context, st *State) ToolsOutcome {
	a := r.a
	approver := a.cfg.Executor != nil && a.cfg.Executor.Approver != nil
	idx := st.Next.Runnable(approver)
	calls := make([]llm.ToolCall, len(idx))
	keys := map[string]string{}
	var decisions map[string]*Decision // for the agent's approver
	for k, i := range idx {
		pc := st.Next.Calls[i]
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
	room, err := budget.Room(a.cfg.Limits, r.fitter.Tokens(st.Messages), a.cfg.Room)
	if err != nil {
		a.cfg.Logger.Warn("the room for results could not be computed; the shaper's default applies", "err", err)
		room = 0
	}
	ctx = tool.WithIdempotencyKeys(ctx, keys)
	if r.sess != nil {
		ctx = tool.WithRecorder(ctx, r.sess.rec)
	}
	if decisions != nil {
		ctx = context.WithValue(ctx, decisionsKey{}, decisions)
	}
	outcomes := a.exec.RunWithin(ctx, calls, room)
	if r.outcomes == nil {
		r.outcomes = map[string]tool.Outcome{}
	}
	for k, o := range outcomes {
		r.outcomes[calls[k].ID] = o
		// The shaper counted the rendered result exactly: fitting need
		// not count it again.
		if o.Shaping != nil && len(o.Result.Content) > 0 {
			if t, ok := o.Result.Content[0].(llm.Text); ok {
				r.counter.remember(t.Text, o.Shaping.TokensAfter)
			}
		}
	}
	return ToolsOutcome{Outcomes: outcomes}
}

// finishTurn completes the turn's report from the state it ended in,
// and logs it.
func (r *run) finishTurn(ctx context.Context, st *State) {
	rep := &r.rep
	rep.Added = len(st.Messages) - r.base
	rep.Tokens = r.fitter.Tokens(st.Messages)
	rep.Headroom = max(0, r.a.cfg.Limits.Window-rep.Tokens-r.reserve)
	rep.Calls = rep.Calls[:0]
	if n := len(st.Messages); n > 0 && st.Messages[n-1].Role == llm.RoleTool {
		for _, res := range st.Messages[n-1].ToolResults() {
			cr := CallReport{ID: res.CallID, Tool: res.Name, Status: res.Status}
			if o, ok := r.outcomes[res.CallID]; ok {
				cr.Duration = durationOf(o)
				if o.Envelope.Error != nil {
					cr.Error = o.Envelope.Error.Type
				}
				if o.Envelope.Meta.Truncated {
					rep.Truncated = true
				}
			}
			rep.Calls = append(rep.Calls, cr)
		}
	}
	attrs := []slog.Attr{
		slog.Int("turn", rep.Turn),
		slog.Int("added", rep.Added),
		slog.Int("tokens", rep.Tokens),
		slog.Int("headroom", rep.Headroom),
	}
	if len(rep.Calls) > 0 {
		ids := make([]string, len(rep.Calls))
		tools := make([]string, len(rep.Calls))
		for i, c := range rep.Calls {
			ids[i] = c.ID
			s := c.Tool + ":" + string(c.Status)
			if c.Error != "" {
				s += ":" + string(c.Error)
			}
			tools[i] = s + ":" + c.Duration.Round(100_000).String()
		}
		attrs = append(attrs, slog.String("call_ids", strings.Join(ids, ",")), slog.String("tools", strings.Join(tools, ",")))
	}
	attrs = append(attrs,
		slog.Bool("truncated", rep.Truncated),
		slog.Bool("fitted", rep.Fitted),
		slog.Int("input_tokens", rep.Usage.InputTokens),
		slog.Int("output_tokens", rep.Usage.OutputTokens),
	)
	if rep.Usage.CacheReadTokens > 0 {
		attrs = append(attrs, slog.Int("cache_read_tokens", rep.Usage.CacheReadTokens))
	}
	if r.cached != nil {
		attrs = append(attrs, slog.Int("encoded", rep.Encoded), slog.Int("reused", rep.Reused))
	}
	if st.Next.Kind == Done {
		attrs = append(attrs, slog.String("stop", string(st.Next.Stop.Reason)))
	}
	r.a.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "turn", attrs...)
}

// result is how the run ended in st, and its error.
func (r *run) result(st *State) (*Result, error) {
	res := &Result{Turns: st.Turn, Usage: st.Usage, State: st, Session: r.sessionID()}
	if st.Next.Kind == AwaitApproval {
		var names []string
		for _, pc := range st.Next.Calls {
			if pc.Result == nil {
				names = append(names, pc.Call.Name+" ("+pc.Call.ID+")")
			}
		}
		res.Stop = Paused
		res.Message = fmt.Sprintf("paused in turn %d: %s wait(s) for a person's approval", st.Turn, strings.Join(names, ", "))
		return res, &StopError{Reason: Paused, Message: res.Message}
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
		e.Err = r.lastErr
	}
	return res, e
}

// sameSlice reports whether a and b are the same slice.
func sameSlice(a, b []llm.Message) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// memoCounter remembers the counts of the texts of a history, which
// fitting counts before every call: a turn then counts only its new
// messages. A long text is recognised by its memory, which the memo keeps
// alive (a string's bytes never change), a short one by its content.
type memoCounter struct {
	c     budget.Counter
	mu    sync.Mutex
	m     map[memoKey]int
	short map[string]int
}

type memoKey struct {
	p *byte
	n int
}

// memoMin is the shortest text remembered; shorter ones are counted again.
const memoMin = 256

// remember records the count of s, counted elsewhere.
func (m *memoCounter) remember(s string, n int) {
	if len(s) < memoMin || n <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[memoKey]int{}
	}
	m.m[memoKey{unsafe.StringData(s), len(s)}] = n
}

func (m *memoCounter) Count(s string) int {
	if len(s) < memoMin {
		// Short texts (names, arguments) are made anew for each count:
		// remember them by content.
		return memo(&m.mu, &m.short, s, func() int { return m.c.Count(s) })
	}
	return memo(&m.mu, &m.m, memoKey{unsafe.StringData(s), len(s)}, func() int { return m.c.Count(s) })
}

// memo returns (*cache)[k], counting it first if it is not there.
func memo[K comparable](mu *sync.Mutex, cache *map[K]int, k K, count func() int) int {
	mu.Lock()
	n, ok := (*cache)[k]
	mu.Unlock()
	if ok {
		return n
	}
	n = count()
	mu.Lock()
	if *cache == nil {
		*cache = map[K]int{}
	}
	(*cache)[k] = n
	mu.Unlock()
	return n
}
