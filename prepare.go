package toolwire

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"unsafe"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// prepare readies the model call n wants: it fits the history into the
// window (harder when Next.Refit is set), checks it by the provider's
// rules, and builds the request. A result that fitting clears without a
// ref of its own gets one derived from the run, and its content goes in
// Next.Offload for Perform to keep before the call.
func (a *Agent) prepare(n *State, ch *Change) {
	var plan *offloadPlan
	if _, ok := a.store.(toolresult.Keeper); ok {
		plan = &offloadPlan{run: n.ID, fit: n.Fits}
	}
	fitted, rep, err := a.fitter(n, plan).Fit(context.Background(), n.Messages)
	switch {
	case err == nil, errors.Is(err, budget.ErrDoesNotFit):
	default:
		a.cfg.Logger.Warn("fitting failed; the history is sent as it is", "turn", n.Turn+1, "err", err)
		fitted = n.Messages
	}
	if !sameSlice(fitted, n.Messages) {
		n.Messages = fitted[:len(fitted):len(fitted)]
		n.Fits++
		n.Previous = nil // the provider's stored history is not this one
		ch.Fitted, ch.Fit = true, rep
		if plan != nil {
			n.Next.Offload = plan.kept
		}
	}
	n.turn = turnProgress{rep: TurnReport{Turn: n.Turn + 1, Fitted: ch.Fitted, Fit: ch.Fit}, base: len(n.Messages)}
	if a.dialect != "" {
		if vs := transcript.CheckRequest(transcript.Request{Messages: n.Messages, Tools: a.toolset().specs, Model: a.name, ReasoningEffort: string(a.cfg.Effort)}, a.dialect); !transcript.Accepted(vs) {
			var errs []transcript.Violation
			for _, v := range vs {
				if !v.Warning {
					errs = append(errs, v)
				}
			}
			he := &HistoryError{Dialect: a.dialect, Violations: errs}
			n.finish(InvalidHistory, he.Error(), "")
			ch.Err = he
			a.endReport(n, ch)
			return
		}
	}
	n.Next.Request = a.request(n)
	ch.Events = append(ch.Events, TurnStartEvent{Turn: n.Turn + 1})
}

// Request returns the request of the model call s wants: the one Step
// prepared, or, for a state decoded from JSON, the same one built again
// from the state (its history was fitted and checked when it was
// prepared). It returns nil when s wants no model call.
func (a *Agent) Request(s *State) *llm.Request {
	if s.Next.Kind != CallModel {
		return nil
	}
	if s.Next.Request != nil {
		return s.Next.Request
	}
	return a.request(s)
}

func (a *Agent) request(s *State) *llm.Request {
	req := &llm.Request{Messages: s.Messages, Tools: a.toolset().specs, Temperature: a.cfg.Temperature,
		MaxOutputTokens: a.cfg.MaxOutputTokens, Effort: a.cfg.Effort}
	if p := s.Previous; p != nil && p.Messages < len(s.Messages) {
		req.Previous = p
	}
	return req
}

// room is the tokens the results of n's turn may take together.
func (a *Agent) room(n *State) int {
	room, err := budget.Room(a.cfg.Limits, a.tokens(n, n.Messages), a.cfg.Room)
	if err != nil {
		a.cfg.Logger.Warn("the room for results could not be computed; the shaper's default applies", "err", err)
		return 0
	}
	return room
}

// tokens counts msgs as fitting does, with the run's memo.
func (a *Agent) tokens(n *State, msgs []llm.Message) int {
	return a.fitter(n, nil).Tokens(msgs)
}

// counter returns the run's memo of token counts.
func (n *State) counter(a *Agent) *memoCounter {
	if n.mem == nil {
		n.mem = &scratch{}
	}
	if n.mem.counter == nil {
		n.mem.counter = &memoCounter{c: a.counter}
	}
	return n.mem.counter
}

// fitter returns the fitter of n's next model call, counting with the
// run's memo, clearing results into plan (nil: without a ref of their
// own). After a context-length failure (Next.Refit) its window is a
// little smaller than what the history counts, so that fitting compacts
// it to about 60% of that.
func (a *Agent) fitter(n *State, plan *offloadPlan) *budget.Fitter {
	fc := budget.FitConfig{}
	if a.cfg.Fit != nil {
		fc = *a.cfg.Fit
	}
	fc.Store = nil
	if plan != nil {
		fc.Store = plan
	}
	l := a.cfg.Limits
	ctr := n.counter(a)
	if n.Next.Refit {
		f, err := budget.NewFitter(ctr, l, a.fitWith, &fc)
		if err == nil {
			window := a.reserve + max(f.Tokens(n.Messages)*6/7, 1)
			if window >= l.Window {
				window = l.Window - 1
			}
			small := budget.Limits{Window: window, MaxOutput: min(l.MaxOutput, window-1), Encoding: l.Encoding, NoToolResultImages: l.NoToolResultImages}
			refit := fc
			refit.Reserve, refit.High, refit.Low = a.reserve, 0, 0
			if rf, err := budget.NewFitter(ctr, small, a.fitWith, &refit); err == nil {
				return rf
			}
		}
	}
	f, err := budget.NewFitter(ctr, l, a.fitWith, &fc)
	if err != nil {
		return a.fit // New checked this configuration: not reached
	}
	return f
}

// offloadPlan is the store fitting sees in a step: it keeps nothing, but
// names each result with a ref derived from the run and the fit, and
// lists what Perform is to keep under it.
type offloadPlan struct {
	run  string
	fit  int
	kept []Offload
}

func (p *offloadPlan) Put(_ context.Context, r toolresult.Stored) (string, error) {
	ref := toolresult.DeriveRef(p.run, "fit", strconv.Itoa(p.fit), strconv.Itoa(len(p.kept)))
	p.kept = append(p.kept, Offload{Ref: ref, Result: r})
	return ref, nil
}

func (p *offloadPlan) Get(context.Context, string) (toolresult.Stored, error) {
	return toolresult.Stored{}, toolresult.ErrNotFound
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
