package server

import (
	"context"
	"math"
	"slices"
	"sync"

	"github.com/toolwire/toolwire/session"
)

// A hub holds the events of one session while a run goes on in this
// server, or a client follows its stream: the stored events of each step
// the run commits, read back from the store as [timeline] derives them,
// and the live events between them. Streams read it; a run writes it.
type hub struct {
	id string

	syncMu sync.Mutex // one sync at a time

	mu     sync.Mutex
	refs   int     // runs and streams holding the hub
	events []Event // every event after step base, in order
	// covered reports that events holds every event after step base:
	// false until a run starts.
	covered bool
	base    int
	// last is the id of the last event; step and seq where the next
	// live event goes.
	last    ID
	synced  bool // the run going on has synced once
	running bool
	status  session.Status // the session's status after the last sync
	wake    chan struct{}
}

func newHub(id string) *hub { return &hub{id: id, wake: make(chan struct{})} }

// notify wakes every stream waiting on h; h.mu is held.
func (h *hub) notify() {
	close(h.wake)
	h.wake = make(chan struct{})
}

// begin marks the start of a run from step start (the session's latest
// step before it): the events the hub holds go on if they end there,
// else the hub starts over from it.
func (h *hub) begin(start int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.covered || h.last.Step != start {
		h.events, h.base, h.covered = nil, start, true
		h.last = ID{Step: start, Seq: math.MaxInt32}
	}
	h.running, h.synced = true, false
	h.notify()
}

// end marks the end of the run.
func (h *hub) end() {
	h.mu.Lock()
	h.running = false
	h.notify()
	h.mu.Unlock()
}

// sync reads the session's trace and appends the stored events it does
// not hold yet.
func (h *hub) sync(ctx context.Context, s *Server) error {
	h.syncMu.Lock()
	defer h.syncMu.Unlock()
	tr, err := s.catalog.Show(context.WithoutCancel(ctx), h.id)
	if err != nil {
		return err
	}
	evs := timeline(tr, s.agents.windowOf(tr.Session.Agent))
	h.mu.Lock()
	defer h.mu.Unlock()
	h.synced = true
	h.status = tr.Session.Status
	n := 0
	for _, ev := range evs {
		if h.last.Less(ev.ID) {
			h.events = append(h.events, ev)
			h.last = ev.ID
			n++
		}
	}
	if n > 0 {
		h.notify()
	}
	return nil
}

// live appends a live event after the last one. Before the run's first
// sync there is no step to number it after, and it is dropped.
func (h *hub) live(typ string, v any) {
	data := encode(v)
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.synced || h.last.Seq == math.MaxInt32 {
		return
	}
	h.last.Seq++
	h.events = append(h.events, Event{ID: h.last, Type: typ, Data: data})
	h.notify()
}

// view is what a stream reads of h at once.
type view struct {
	events  []Event // the events after the cursor
	covered bool    // h holds every event after the cursor
	running bool
	wake    <-chan struct{}
}

// after returns the events after cursor, given that the store was read
// up to step known.
func (h *hub) after(cursor ID, known int) view {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := view{running: h.running, wake: h.wake}
	v.covered = h.covered && (cursor.Step >= h.base || known >= h.base)
	if v.covered {
		i, _ := slices.BinarySearchFunc(h.events, cursor, func(e Event, id ID) int { return e.ID.Compare(id) })
		for i < len(h.events) && !cursor.Less(h.events[i].ID) {
			i++
		}
		v.events = h.events[i:len(h.events):len(h.events)]
	}
	return v
}

// hubs are the hubs of the sessions that have one, by session id.
type hubs struct {
	mu sync.Mutex
	m  map[string]*hub
}

// acquire returns the hub of session id, made if there is none, and
// holds it until release.
func (hs *hubs) acquire(id string) *hub {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.m == nil {
		hs.m = map[string]*hub{}
	}
	h := hs.m[id]
	if h == nil {
		h = newHub(id)
		hs.m[id] = h
	}
	h.mu.Lock()
	h.refs++
	h.mu.Unlock()
	return h
}

// release lets go of h; the last one out forgets it.
func (hs *hubs) release(h *hub) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h.mu.Lock()
	h.refs--
	gone := h.refs == 0
	h.mu.Unlock()
	if gone && hs.m[h.id] == h {
		delete(hs.m, h.id)
	}
}

// count returns how many hubs there are, for tests.
func (hs *hubs) count() int {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return len(hs.m)
}
