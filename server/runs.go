package server

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"sync"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"

	"github.com/toolwire/toolwire/session"
)

// A run is a run of the loop going on in this server, for one session.
type run struct {
	id  string
	hub *hub
	// started is closed once the run is under way: its first commit is
	// written (a new session, a resume's decisions), or it failed before;
	// err is then why.
	started  chan struct{}
	once     sync.Once
	err      error
	cancel   context.CancelFunc
	finished chan struct{}
}

// start ends the wait for the run's start, with err when it failed.
func (r *run) start(err error) {
	r.once.Do(func() {
		r.err = err
		close(r.started)
	})
}

// runs are the runs going on, by session id, and the limit on them.
type runs struct {
	mu      sync.Mutex
	m       map[string]*run
	slots   chan struct{}
	wg      sync.WaitGroup
	closing bool
}

// closingNow reports whether a shutdown has begun.
func (rs *runs) closingNow() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.closing
}

// get returns the run of session id, nil when none goes on.
func (rs *runs) get(id string) *run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.m[id]
}

// launch starts a run of session id whose latest stored step is step,
// with the events of events; it returns once the run is under way, or
// with the error that kept it from starting: 409 when the session has a
// run going on, 429 when the server runs as many as it may, 503 when it
// is shutting down.
func (s *Server) launch(id string, step int, events func(ctx context.Context) iter.Seq2[toolwire.Event, error]) error {
	rs := &s.runs
	rs.mu.Lock()
	if rs.closing {
		rs.mu.Unlock()
		return errorf(http.StatusServiceUnavailable, codeShuttingDown, "the server is shutting down; try again on its next start")
	}
	if _, busy := rs.m[id]; busy {
		rs.mu.Unlock()
		return errorf(http.StatusConflict, codeBusy, "session %s has a run going on; wait for it to pause or end (GET /v1/sessions/%s/events)", id, id)
	}
	select {
	case rs.slots <- struct{}{}:
	default:
		rs.mu.Unlock()
		e := errorf(http.StatusTooManyRequests, codeTooManyRuns, "the server runs %d sessions at once, its limit; try again when one ends", cap(rs.slots))
		e.Retry = 1
		return e
	}
	ctx, cancel := context.WithCancel(s.base)
	r := &run{id: id, hub: s.hubs.acquire(id), started: make(chan struct{}), cancel: cancel, finished: make(chan struct{})}
	r.hub.begin(step)
	if rs.m == nil {
		rs.m = map[string]*run{}
	}
	rs.m[id] = r
	rs.wg.Add(1)
	rs.mu.Unlock()
	go s.drive(ctx, r, events(ctx))
	<-r.started
	if r.err != nil {
		<-r.finished // the session is free again when the answer says so
	}
	return r.err
}

// drive runs the loop's events to their end, syncing the session's hub
// after every step, and stops at the next step once the server drains.
func (s *Server) drive(ctx context.Context, r *run, events iter.Seq2[toolwire.Event, error]) {
	defer func() {
		r.start(errors.New("the run ended before it started"))
		_ = r.hub.sync(ctx, s) // what the run's last commit wrote
		r.hub.live(evIdle, idleData{Status: statusOf(r.hub)})
		// The session is free, and its slot too, before a stream says so:
		// a client that reads the end of the run and resumes at once must
		// not get 409 or 429. Under runs.mu, so that no run of the session
		// begins on the hub before this one ends on it.
		s.runs.mu.Lock()
		delete(s.runs.m, r.id)
		<-s.runs.slots
		r.hub.end()
		s.runs.mu.Unlock()
		s.hubs.release(r.hub)
		r.cancel()
		close(r.finished)
		s.runs.wg.Done()
	}()
	for ev, err := range events {
		if err != nil {
			var stop *toolwire.StopError
			if errors.As(err, &stop) {
				return // how the run ended is in its DoneEvent and its session
			}
			r.start(err)
			if r.err == nil { // the run had started: its client is gone
				s.log.Warn("a run stopped on an error", "session", r.id, "err", err)
				r.hub.live(evError, errorData{Message: publicMessage(err)})
			}
			return
		}
		r.start(nil)
		if _, ok := ev.(toolwire.StepEvent); ok {
			if err := r.hub.sync(ctx, s); err != nil {
				s.log.Warn("the session's events could not be read back", "session", r.id, "err", err)
			}
			select {
			case <-s.drain:
				return // stopped between two steps: the session holds the state to resume
			default:
			}
		}
	}
}

// statusOf is the session status the hub last read.
func statusOf(h *hub) session.Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

// observe is the agents' hook: it gives a run's hub the live events.
func (s *Server) observe(ctx context.Context, e toolwire.Event) {
	r := s.runs.get(toolwire.RunID(ctx))
	if r == nil {
		return
	}
	var typ string
	var v any
	switch e := e.(type) { // RunStartEvent comes before the session is opened: not one of these
	case toolwire.TextEvent:
		typ, v = evText, textData{Turn: e.Turn, Text: e.Text}
	case toolwire.ToolStartEvent:
		typ, v = evToolStart, toolStartData{Turn: e.Turn, CallID: e.Call.ID, Tool: e.Call.Name, Attempt: e.Attempt}
	case toolwire.ToolDoneEvent:
		typ, v = evToolDone, toolDoneData{Turn: e.Turn, CallID: e.Call.ID, Tool: e.Call.Name, Attempt: e.Attempt, Status: e.Result.Status, DurationMS: ms(e.Duration)}
	case toolwire.ToolProgressEvent:
		p := e.Progress
		typ, v = evProgress, progressData{Turn: e.Turn, CallID: e.CallID, Tool: e.Tool, Attempt: e.Attempt, Progress: p.Progress, Total: p.Total, Message: p.Message}
	default:
		return
	}
	r.start(nil) // these events come only after the run's first commit
	r.hub.mu.Lock()
	synced := r.hub.synced
	r.hub.mu.Unlock()
	if !synced {
		_ = r.hub.sync(ctx, s)
	}
	r.hub.live(typ, v)
}

// publicMessage is what a client reads of a run's error: a provider's
// classified failure, or a general line; the server's log has the rest.
func publicMessage(err error) string {
	var le *llm.Error
	if errors.As(err, &le) {
		return "the model call failed: " + string(le.Kind)
	}
	return "the run stopped on an internal error; the server's log says more"
}
