package toolwire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// CheckpointVersion is the version of the JSON a run stores as each
// step's state in its session ([Checkpoint]).
const CheckpointVersion = 1

// A Checkpoint is what a run stores with every step of its session: the
// loop's state without its messages (those are the session's, stored once
// each) and what the step did.
type Checkpoint struct {
	// State is the state after the step; its Messages are empty.
	State *State
	// Trace says what the step did, for people reading the session.
	Trace StepTrace
}

// StepTrace is what one step of a stored run did.
type StepTrace struct {
	// Did is the effect the step performed: [CallModel], [RunTools], or
	// "start" and "resume" for the steps that begin a run and resume it.
	Did EffectKind `json:"did"`
	// DurationNS is how long the effect took, in nanoseconds.
	DurationNS int64 `json:"duration_ns,omitzero"`
	// For a model call: Sent counts the messages the model saw, Tokens
	// is their size as the agent counts it, Fitted says whether fitting
	// changed the history before the call (Cleared results, Removed
	// rounds), Usage is what the provider reported.
	Sent    int       `json:"sent,omitzero"`
	Tokens  int       `json:"tokens,omitzero"`
	Fitted  bool      `json:"fitted,omitzero"`
	Cleared int       `json:"cleared,omitzero"`
	Removed int       `json:"removed,omitzero"`
	Usage   usageJSON `json:"usage,omitzero"`
	// Error is why the model call failed, if it did.
	Error string `json:"error,omitzero"`
}

// The StepTrace.Did of the steps that begin and resume a run.
const (
	didStart  EffectKind = "start"
	didResume EffectKind = "resume"
)

type checkpointJSON struct {
	Version int            `json:"version"`
	State   jsontext.Value `json:"state"`
	Trace   StepTrace      `json:"trace"`
}

// encodeCheckpoint encodes st, without its messages, and what the step did.
func encodeCheckpoint(st *State, tr StepTrace) ([]byte, error) {
	bare := *st
	bare.Messages = nil
	b, err := bare.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return json.Marshal(checkpointJSON{Version: CheckpointVersion, State: b, Trace: tr}, jsonOpts)
}

// ParseCheckpoint decodes the state a run stored with a step of its
// session ([session.StepRecord].State), strictly.
func ParseCheckpoint(b []byte) (*Checkpoint, error) {
	var in checkpointJSON
	if err := json.Unmarshal(b, &in, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("toolwire: decode checkpoint: %w", err)
	}
	if in.Version != CheckpointVersion {
		return nil, fmt.Errorf("toolwire: decode checkpoint: version %d, but this release reads version %d", in.Version, CheckpointVersion)
	}
	st := new(State)
	if err := st.UnmarshalJSON(in.State); err != nil {
		return nil, err
	}
	return &Checkpoint{State: st, Trace: in.Trace}, nil
}

// UsageOf returns the usage a step's trace reports.
func (t StepTrace) UsageOf() llm.Usage { return llm.Usage(t.Usage) }

// Duration is how long the step's effect took.
func (t StepTrace) Duration() time.Duration { return time.Duration(t.DurationNS) }

// statusOf is the session status a state stands for.
func statusOf(st *State) session.Status {
	switch st.Next.Kind {
	case AwaitApproval:
		return session.StatusPaused
	case Done:
		switch st.Next.Stop.Reason {
		case ModelError, ContextLength, EmptyAnswer, InvalidHistory:
			return session.StatusFailed
		}
		return session.StatusDone
	}
	return session.StatusRunning
}

// runSession is the session a run commits its steps to.
type runSession struct {
	store   session.Store
	id      string
	version int64
	step    int
	rec     *recorder
}

// open creates the session of a new run, named by its id, with its first
// messages.
func (a *Agent) open(ctx context.Context, st *State) (*runSession, error) {
	title := ""
	for _, m := range st.Messages {
		if m.Role == llm.RoleUser {
			title = oneLine(m.Text(), 120)
			break
		}
	}
	s, err := a.cfg.Sessions.Create(ctx, session.Session{ID: st.ID, Title: title, Agent: a.cfg.Name, Model: a.sessionModel()})
	if errors.Is(err, session.ErrConflict) {
		return a.attach(ctx, st)
	}
	if err != nil {
		return nil, fmt.Errorf("toolwire: run: create session %s: %w", st.ID, err)
	}
	rs := &runSession{store: a.cfg.Sessions, id: s.ID, version: s.Version, step: s.Step}
	rs.rec = &recorder{rs: rs}
	if err := rs.commit(ctx, st, st.Messages, StepTrace{Did: didStart}); err != nil {
		return nil, err
	}
	return rs, nil
}

// sessionModel is the model the agent's sessions record: the caller's
// Config.SessionModel, with the options the agent sends filled in.
func (a *Agent) sessionModel() session.Model {
	m := a.cfg.SessionModel
	if m.Options.Temperature == nil && a.cfg.Temperature != nil {
		t := *a.cfg.Temperature
		m.Options.Temperature = &t
	}
	if m.Options.MaxOutputTokens == 0 {
		m.Options.MaxOutputTokens = a.cfg.MaxOutputTokens
	}
	if m.Options.Effort == "" {
		m.Options.Effort = a.cfg.Effort
	}
	return m
}

// attach continues the stored session of st, a state that a run of this
// session returned ([Result.State]) and that [Agent.Continue] is given
// again. st must be the session's latest state: a stale one would undo
// what was stored after it. Messages st has beyond the session's are
// stored with the step that attaches; a history that fitting shortened
// is not compared, since the session keeps every message.
func (a *Agent) attach(ctx context.Context, st *State) (*runSession, error) {
	snap, err := a.cfg.Sessions.Load(ctx, st.ID)
	if err != nil {
		return nil, fmt.Errorf("toolwire: run: continue session %s: %w", st.ID, err)
	}
	latest := &ResumeError{Session: st.ID, Problem: fmt.Sprintf("the state given is not the session's latest (step %d): continue the session with Resume", snap.Session.Step)}
	if len(snap.State) == 0 {
		return nil, latest
	}
	cp, err := ParseCheckpoint(snap.State)
	if err != nil {
		return nil, &session.CorruptError{Session: st.ID, Item: fmt.Sprintf("state of step %d", snap.Session.Step), Err: err}
	}
	stored, err1 := encodeCheckpoint(cp.State, StepTrace{})
	given, err2 := encodeCheckpoint(st, StepTrace{})
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("toolwire: run: continue session %s: %w", st.ID, err)
	}
	if !bytes.Equal(stored, given) {
		return nil, latest
	}
	var added []llm.Message
	if n := len(snap.Messages); n <= len(st.Messages) && sameMessages(snap.Messages, st.Messages[:n]) {
		added = st.Messages[n:]
	}
	rs := &runSession{store: a.cfg.Sessions, id: st.ID, version: snap.Session.Version, step: snap.Session.Step}
	rs.rec = &recorder{rs: rs, before: attempts(st, snap.Calls)}
	if err := rs.commit(ctx, st, added, StepTrace{Did: didResume}); err != nil {
		return nil, err
	}
	return rs, nil
}

// sameMessages reports whether a and b encode alike.
func sameMessages(a, b []llm.Message) bool {
	ea, err1 := llm.Conversation{Messages: a}.MarshalJSON()
	eb, err2 := llm.Conversation{Messages: b}.MarshalJSON()
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

// commit writes a step: the messages it added and the state after it.
// It writes even when ctx is done: what a cancelled run did is kept.
func (rs *runSession) commit(ctx context.Context, st *State, added []llm.Message, tr StepTrace) error {
	b, err := encodeCheckpoint(st, tr)
	if err != nil {
		return fmt.Errorf("toolwire: run: session %s: %w", rs.id, err)
	}
	s, err := rs.store.Commit(context.WithoutCancel(ctx), &session.Step{Session: rs.id, Version: rs.version, Number: rs.step + 1,
		Status: statusOf(st), Messages: added, State: b})
	if err != nil {
		return fmt.Errorf("toolwire: run: session %s: commit step %d: %w", rs.id, rs.step+1, err)
	}
	rs.rec.mu.Lock()
	rs.version, rs.step = s.Version, s.Step
	rs.rec.mu.Unlock()
	return nil
}

// A recorder writes the write-ahead record of every attempt of a tool
// call through the executor's [tool.Recorder] hook.
type recorder struct {
	rs *runSession
	mu sync.Mutex
	// before counts the attempts of each call recorded by earlier
	// processes, so that numbers go on where they stopped.
	before map[string]int
	err    error // the first write that failed
}

func (r *recorder) call(a tool.Attempt) (session.Call, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return session.Call{ID: a.Call.ID, Tool: a.Call.Name, Idempotency: a.Idempotency, IdempotencyKey: a.Key,
		Attempt: r.before[a.Call.ID] + a.Number, Arguments: []byte(a.Call.Input)}, r.rs.version
}

func (r *recorder) failed(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

// Start writes the started record before the attempt runs.
func (r *recorder) Start(ctx context.Context, a tool.Attempt) error {
	c, v := r.call(a)
	if err := r.rs.store.Record(ctx, r.rs.id, v, c); err != nil {
		err = fmt.Errorf("toolwire: run: session %s: record call %s started: %w", r.rs.id, c.ID, err)
		if ctx.Err() == nil {
			// Not so for a cancelled run: its call did not start, and is
			// left to run; nothing the session should hold is lost.
			r.failed(err)
		}
		return err
	}
	return nil
}

// Finish writes the finished record once the attempt returned. An
// attempt that a cancelled run cut short has no result to record: its
// record stays started, as a crash would leave it, and the step says
// what the call becomes ([RecoveryOf]).
func (r *recorder) Finish(ctx context.Context, a tool.Attempt, res llm.ToolResult, d time.Duration) {
	if a.Cut {
		return
	}
	c, v := r.call(a)
	c.Result, c.Duration = &res, d
	if err := r.rs.store.Record(ctx, r.rs.id, v, c); err != nil {
		r.failed(fmt.Errorf("toolwire: run: session %s: record call %s finished: %w", r.rs.id, c.ID, err))
	}
}

// takeErr returns and clears the first failed write.
func (r *recorder) takeErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.err
	r.err = nil
	return err
}

// sessionResults keeps offloaded results with the session of the run in
// ctx (a run's scope is its id, which names its session), and in
// fallback outside a run.
type sessionResults struct {
	r        session.Results
	fallback toolresult.Store
}

func (s sessionResults) Put(ctx context.Context, st toolresult.Stored) (string, error) {
	if id := toolresult.Scope(ctx); id != "" {
		return session.ResultStore(s.r, id).Put(ctx, st)
	}
	return s.fallback.Put(ctx, st)
}

func (s sessionResults) Keep(ctx context.Context, ref string, st toolresult.Stored) error {
	if id := toolresult.Scope(ctx); id != "" {
		return session.ResultStore(s.r, id).Keep(ctx, ref, st)
	}
	if k, ok := s.fallback.(toolresult.Keeper); ok {
		return k.Keep(ctx, ref, st)
	}
	return fmt.Errorf("toolwire: keep result %s: no session, and the store cannot keep a chosen ref", ref)
}

func (s sessionResults) Get(ctx context.Context, ref string) (toolresult.Stored, error) {
	if id := toolresult.Scope(ctx); id != "" {
		return session.ResultStore(s.r, id).Get(ctx, ref)
	}
	return s.fallback.Get(ctx, ref)
}

// oneLine returns s on one line, cut to at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
