package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/toolwire/toolwire/internal/sse"
)

// streamEvents answers GET /v1/sessions/{id}/events: the session's
// events as server-sent events, each with its id. A client that
// reconnects with Last-Event-ID (or ?after=ID) gets every event after
// that one and none before: the stored ones from the store, the live
// ones from the run going on. The stream ends once the session has no
// run going on in this server and every event is sent, unless
// ?follow=true, which waits for the next run; it ends too when the
// server shuts down or the client goes.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("after")
	}
	cursor, err := ParseID(last)
	if err != nil {
		return errorf(http.StatusBadRequest, codeBadRequest, "Last-Event-ID %q: %v", cut(last, 40), err)
	}
	follow := false
	if f := r.URL.Query().Get("follow"); f != "" {
		if follow, err = strconv.ParseBool(f); err != nil {
			return errorf(http.StatusBadRequest, codeBadRequest, "follow=%s: want true or false", cut(f, 20))
		}
	}
	h := s.hubs.acquire(id)
	defer s.hubs.release(h)
	tr, err := s.catalog.Show(r.Context(), id)
	if err != nil {
		return err
	}
	known := tr.Session.Step
	stored := timeline(tr, s.agents.windowOf(tr.Session.Agent))

	rc := http.NewResponseController(w)
	// A stream outlives the connection's read and write timeouts: no read
	// deadline (the server's read of a closed connection still ends it),
	// and a write deadline moved on before every write.
	if err := rc.SetReadDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	var buf []byte
	write := func() error {
		if err := rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
		return rc.Flush()
	}
	send := func(evs []Event) error {
		for _, ev := range evs {
			if cursor.Less(ev.ID) {
				buf = sse.AppendEvent(buf, sse.Event{Type: ev.Type, Data: ev.Data, ID: ev.ID.String()})
				cursor = ev.ID
			}
		}
		if len(buf) == 0 {
			return nil
		}
		return write()
	}
	buf = append(buf, "retry: 2000\n\n"...)
	if err := send(stored); err != nil {
		return nil
	}
	if len(buf) > 0 {
		if err := write(); err != nil {
			return nil
		}
	}
	beat := time.NewTicker(s.cfg.Heartbeat)
	defer beat.Stop()
	shown := true // the store was read since the hub last changed
	for {
		v := h.after(cursor, known)
		if !v.covered && !shown {
			tr, err := s.catalog.Show(r.Context(), id)
			if err != nil {
				return nil // the session was deleted, or the store failed: the stream ends
			}
			known, shown = tr.Session.Step, true
			if err := send(timeline(tr, s.agents.windowOf(tr.Session.Agent))); err != nil {
				return nil
			}
			continue
		}
		if err := send(v.events); err != nil {
			return nil
		}
		if !v.running && !follow {
			return nil
		}
		select {
		case <-v.wake:
			shown = false
		case <-beat.C:
			buf = append(buf, ": keep-alive\n\n"...)
			if err := write(); err != nil {
				return nil
			}
		case <-r.Context().Done():
			return nil
		case <-s.stopping:
			return nil
		}
	}
}
