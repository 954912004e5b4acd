// Package memory is a [session.Store] that keeps sessions in memory, for
// tests and for runs that need not survive the process.
//
// It keeps what the database stores keep, in the same encoding: messages
// and results in the persistence format, so that what it accepts and what
// it gives back match session/sqlite and session/postgres exactly (it
// passes the same conformance suite), and nothing a caller changes after a
// write alters what is stored.
package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/internal/rows"
)

// Config configures a [Store]; see [session.StoreConfig]. A nil *Config,
// or a zero field, means the documented default.
type Config = session.StoreConfig

// Store keeps sessions in memory. It is safe for concurrent use; its
// methods hold one lock while they run, so every write is atomic and every
// read sees one state.
type Store struct {
	cfg *Config

	mu       sync.Mutex
	sessions map[string]*entry
	results  map[string]*offloaded // by ref
	ord      int64                 // orders results across sessions
}

type entry struct {
	s        session.Session
	messages [][]byte
	steps    []session.StepRecord // State is the store's own copy
	calls    []rows.Call
	index    map[callKey]int // into calls
	refs     []string        // offloaded results, in the order stored
}

// session returns the entry's session with a model of its own, so that a
// caller that changes it changes nothing stored.
func (e *entry) session() session.Session {
	s := e.s
	s.Model = rows.CopyModel(s.Model)
	return s
}

type callKey struct {
	id      string
	attempt int
}

type offloaded struct {
	r   session.Offloaded
	ord int64
}

var (
	_ session.Store   = (*Store)(nil)
	_ session.Catalog = (*Store)(nil)
	_ session.Results = (*Store)(nil)
	_ session.Pruner  = (*Store)(nil)
)

// New returns an empty store. A nil cfg means defaults.
func New(cfg *Config) (*Store, error) {
	c := cfg.WithDefaults()
	if err := rows.CheckConfig("session/memory", c.Retention); err != nil {
		return nil, err
	}
	return &Store{cfg: c, sessions: map[string]*entry{}, results: map[string]*offloaded{}}, nil
}

func (s *Store) now() time.Time { return rows.Now(s.cfg.Now) }

// Create stores a new session; see [session.Store].
func (s *Store) Create(ctx context.Context, in session.Session) (session.Session, error) {
	if err := ctx.Err(); err != nil {
		return session.Session{}, fmt.Errorf("session/memory: create: %w", err)
	}
	sess, err := rows.NewSession(in, s.now())
	if err != nil {
		return session.Session{}, fmt.Errorf("session/memory: create: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.sessions[sess.ID]; ok {
		return session.Session{}, fmt.Errorf("session/memory: create: %w", &session.ConflictError{Session: sess.ID, Current: e.s.Version})
	}
	e := &entry{s: sess, index: map[callKey]int{}}
	s.sessions[sess.ID] = e
	return e.session(), nil
}

// Commit writes a step atomically; see [session.Store].
func (s *Store) Commit(ctx context.Context, st *session.Step) (session.Session, error) {
	enc, err := rows.CheckStep(st)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return session.Session{}, fmt.Errorf("session/memory: commit: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		next    session.Session
		rec     session.StepRecord
		actions []rows.Action
	)
	e, err := s.current(st.Session, st.Version)
	if err == nil {
		next, rec, err = rows.Advance(e.s, st, len(enc.Messages), s.now())
	}
	if err == nil {
		actions, err = e.plan(enc.Calls)
	}
	if err != nil {
		return session.Session{}, fmt.Errorf("session/memory: commit %s: %w", st.Session, err)
	}
	e.writeCalls(enc.Calls, actions, next.Updated)
	e.messages = append(e.messages, enc.Messages...)
	rec.State = slices.Clone(rec.State)
	e.steps = append(e.steps, rec)
	e.s = next
	return e.session(), nil
}

// Record writes call records; see [session.Store].
func (s *Store) Record(ctx context.Context, id string, version int64, calls ...session.Call) error {
	enc, err := rows.CheckCalls(calls, 0)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("session/memory: record: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var actions []rows.Action
	e, err := s.current(id, version)
	if err == nil {
		rows.Latest(enc, e.s.Step)
		actions, err = e.plan(enc)
	}
	if err != nil {
		return fmt.Errorf("session/memory: record %s: %w", id, err)
	}
	e.writeCalls(enc, actions, s.now())
	return nil
}

// current returns the session id if it is at version.
func (s *Store) current(id string, version int64) (*entry, error) {
	e, ok := s.sessions[id]
	if !ok {
		return nil, session.ErrNotFound
	}
	return e, rows.Current(e.s, version)
}

// plan decides what writing calls does to the stored records; see
// [rows.Plan].
func (e *entry) plan(calls []rows.Call) ([]rows.Action, error) {
	return rows.Plan(e.s.ID, e.s.Version, calls, func(id string, attempt int) (exists, finished bool) {
		j, ok := e.index[callKey{id, attempt}]
		return ok, ok && e.calls[j].Result != nil
	})
}

// writeCalls applies call records as plan decided.
func (e *entry) writeCalls(calls []rows.Call, actions []rows.Action, now time.Time) {
	for i, c := range calls {
		k := callKey{c.ID, c.Attempt}
		switch actions[i] {
		case rows.Insert:
			c.Arguments = slices.Clone(c.Arguments)
			c.Started = now
			if c.Result != nil {
				c.Finished = now
			}
			e.index[k] = len(e.calls)
			e.calls = append(e.calls, c)
		case rows.Finish:
			old := &e.calls[e.index[k]]
			old.Result, old.Status, old.Duration, old.Finished = c.Result, c.Status, c.Duration, now
		}
	}
}

// Load reads a session; see [session.Store].
func (s *Store) Load(ctx context.Context, id string) (*session.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, msgs, err := s.read(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("session/memory: load %s: %w", id, err)
	}
	snap := &session.Snapshot{Session: e.session(), Messages: msgs}
	if n := len(e.steps); n > 0 {
		snap.State = slices.Clone(e.steps[n-1].State)
	}
	for _, c := range e.calls {
		if c.Step >= e.s.Step {
			snap.Calls = append(snap.Calls, e.decodeCall(c))
		}
	}
	return snap, nil
}

// read returns a session and its messages; s.mu is held.
func (s *Store) read(ctx context.Context, id string) (*entry, []llm.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	e, ok := s.sessions[id]
	if !ok {
		return nil, nil, session.ErrNotFound
	}
	msgs := make([]llm.Message, len(e.messages))
	for i, b := range e.messages {
		m, err := rows.DecodeMessage(b)
		if err != nil {
			return nil, nil, rows.Corrupt(e.s.ID, fmt.Sprintf("message %d", i), err)
		}
		msgs[i] = m
	}
	return e, msgs, nil
}

// decodeCall returns a stored call record; its result was encoded by this
// store and is not shared, so it is returned as is.
func (e *entry) decodeCall(c rows.Call) session.Call {
	out := c.Call
	out.Arguments = slices.Clone(c.Arguments)
	if c.Result != nil {
		r, _ := rows.DecodeResult(c.Result) // written by rows.EncodeResult, which checked it reads back
		out.Result = r
	}
	return out
}

// List returns a page of sessions, newest first; see [session.Catalog].
func (s *Store) List(ctx context.Context, opts *session.ListOptions) (session.Page, error) {
	limit, cur, err := rows.List(opts)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return session.Page{}, fmt.Errorf("session/memory: list: %w", err)
	}
	s.mu.Lock()
	all := make([]session.Session, 0, len(s.sessions))
	for _, e := range s.sessions {
		if cur.After(e.s) {
			all = append(all, e.session())
		}
	}
	s.mu.Unlock()
	slices.SortFunc(all, func(a, b session.Session) int {
		if rows.Newer(a, b) {
			return -1
		}
		return 1
	})
	return rows.Page(all[:min(len(all), limit+1)], limit), nil
}

// Show returns everything stored about a session; see [session.Catalog].
func (s *Store) Show(ctx context.Context, id string) (*session.Trace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, msgs, err := s.read(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("session/memory: show %s: %w", id, err)
	}
	tr := &session.Trace{Session: e.session(), Messages: msgs}
	for _, rec := range e.steps {
		rec.State = slices.Clone(rec.State)
		tr.Steps = append(tr.Steps, rec)
	}
	for _, c := range e.calls {
		tr.Calls = append(tr.Calls, e.decodeCall(c))
	}
	for _, ref := range e.refs {
		r := s.results[ref].r
		r.Data, r.Rules = nil, slices.Clone(r.Rules)
		tr.Results = append(tr.Results, r)
	}
	return tr, nil
}

// Delete removes a session and all it holds; see [session.Catalog].
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("session/memory: delete %s: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[id]
	if !ok {
		return fmt.Errorf("session/memory: delete %s: %w", id, session.ErrNotFound)
	}
	for _, ref := range e.refs {
		delete(s.results, ref)
	}
	delete(s.sessions, id)
	return nil
}

// PutResult stores an offloaded result; see [session.Results].
func (s *Store) PutResult(ctx context.Context, id string, r session.Offloaded) (string, error) {
	chosen := r.Ref != ""
	r, err := rows.CheckOffloaded(id, r, s.now())
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return "", fmt.Errorf("session/memory: put result: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[id]
	if !ok {
		return "", fmt.Errorf("session/memory: put result %s: %w", id, session.ErrNotFound)
	}
	if old := s.results[r.Ref]; chosen && old != nil {
		if old.r.Session != id {
			return "", fmt.Errorf("session/memory: put result %s: %w: ref %s names another session's result", id, session.ErrConflict, r.Ref)
		}
		delete(s.results, r.Ref) // the session's result of that ref is replaced
		e.refs = slices.DeleteFunc(e.refs, func(ref string) bool { return ref == r.Ref })
	}
	for s.results[r.Ref] != nil {
		r.Ref = rows.NewRef()
	}
	// CheckOffloaded made a nil Data []byte{}, and slices.Clone keeps it so.
	r.Data, r.Rules = slices.Clone(r.Data), slices.Clone(r.Rules)
	s.ord++
	s.results[r.Ref] = &offloaded{r: r, ord: s.ord}
	e.refs = append(e.refs, r.Ref)
	return r.Ref, nil
}

// Result returns an offloaded result; see [session.Results].
func (s *Store) Result(ctx context.Context, id, ref string) (session.Offloaded, error) {
	if err := ctx.Err(); err != nil {
		return session.Offloaded{}, fmt.Errorf("session/memory: result %s: %w", ref, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.results[ref]
	if !ok || o.r.Session != id {
		return session.Offloaded{}, fmt.Errorf("session/memory: result %s of session %s: %w", ref, id, session.ErrNotFound)
	}
	r := o.r
	r.Data, r.Rules = slices.Clone(r.Data), slices.Clone(r.Rules)
	return r, nil
}

// Prune deletes the offloaded results that the Retention of the store's
// [Config] no longer keeps; see [session.Pruner].
func (s *Store) Prune(ctx context.Context) (session.Pruned, error) {
	var p session.Pruned
	if err := ctx.Err(); err != nil {
		return p, fmt.Errorf("session/memory: prune: %w", err)
	}
	ret := s.cfg.Retention
	s.mu.Lock()
	defer s.mu.Unlock()
	all := make([]*offloaded, 0, len(s.results))
	for _, o := range s.results {
		all = append(all, o)
	}
	slices.SortFunc(all, func(a, b *offloaded) int { return cmp.Compare(b.ord, a.ord) }) // newest first
	cutoff := s.now().Add(-ret.MaxAge)
	var kept int64
	for _, o := range all {
		tooOld := ret.MaxAge > 0 && o.r.Created.Before(cutoff)
		if !tooOld {
			kept += o.r.Size
		}
		if tooOld || ret.MaxBytes > 0 && kept > ret.MaxBytes {
			s.drop(o.r)
			p.Results++
			p.Bytes += o.r.Size
		}
	}
	return p, nil
}

// drop deletes an offloaded result.
func (s *Store) drop(r session.Offloaded) {
	delete(s.results, r.Ref)
	if e := s.sessions[r.Session]; e != nil {
		e.refs = slices.DeleteFunc(e.refs, func(ref string) bool { return ref == r.Ref })
	}
}
