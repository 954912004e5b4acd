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
	cursor, follow, err := streamQuery(r)
	if err != nil {
		return err
	}
	h := s.hubs.acquire(id)
	defer s.hubs.release(h)
	tr, err := s.catalog.Show(r.Context(), id)
	if err != nil {
		return err
	}
	known := tr.Session.Step
	sw, err := startStream(w, s.cfg.WriteTimeout, cursor)
	if err != nil {
		return err
	}
	// Once the stream has begun, its errors are a client gone or a
	// session deleted: the stream ends, with no error to answer.
	sw.buf = append(sw.buf, "retry: 2000\n\n"...)
	if sw.send(timeline(tr, s.agents.windowOf(tr.Session.Agent))) != nil || sw.flush() != nil {
		return nil
	}
	beat := time.NewTicker(s.cfg.Heartbeat)
	defer beat.Stop()
	shown := true // the store was read since the hub last changed
	for {
		v := h.after(sw.cursor, known)
		if !v.covered && !shown {
			tr, err := s.catalog.Show(r.Context(), id)
			if err != nil {
				return nil // the session was deleted, or the store failed
			}
			known, shown = tr.Session.Step, true
			if sw.send(timeline(tr, s.agents.windowOf(tr.Session.Agent))) != nil {
				return nil
			}
			continue
		}
		if sw.send(v.events) != nil || (!v.running && !follow) {
			return nil
		}
		select {
		case <-v.wake:
			shown = false
		case <-beat.C:
			sw.buf = append(sw.buf, ": keep-alive\n\n"...)
			if sw.flush() != nil {
				return nil
			}
		case <-r.Context().Done():
			return nil
		case <-s.stopping:
			return nil
		}
	}
}

// streamQuery reads where a stream starts (Last-Event-ID, or ?after=ID)
// and whether it follows the session's next runs (?follow=true).
func streamQuery(r *http.Request) (cursor ID, follow bool, err error) {
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("after")
	}
	if cursor, err = ParseID(last); err != nil {
		return cursor, false, errorf(http.StatusBadRequest, codeBadRequest, "Last-Event-ID %q: %v", cut(last, 40), err)
	}
	if f := r.URL.Query().Get("follow"); f != "" {
		if follow, err = strconv.ParseBool(f); err != nil {
			return cursor, false, errorf(http.StatusBadRequest, codeBadRequest, "follow=%s: want true or false", cut(f, 20))
		}
	}
	return cursor, follow, nil
}

// An sseWriter writes a stream's events after its cursor, each once.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
	cursor  ID // the last event sent
}

// startStream answers with an event stream that outlives the
// connection's read and write timeouts: no read deadline (the server's
// read of a closed connection still ends it), and a write deadline moved
// on before every write.
func startStream(w http.ResponseWriter, timeout time.Duration, cursor ID) (*sseWriter, error) {
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: timeout, cursor: cursor}
	if err := sw.rc.SetReadDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil, err
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return sw, nil
}

// send writes the events of evs after the cursor, and moves it on.
func (sw *sseWriter) send(evs []Event) error {
	for _, ev := range evs {
		if sw.cursor.Less(ev.ID) {
			sw.buf = sse.AppendEvent(sw.buf, sse.Event{Type: ev.Type, Data: ev.Data, ID: ev.ID.String()})
			sw.cursor = ev.ID
		}
	}
	if len(sw.buf) == 0 {
		return nil
	}
	return sw.flush()
}

// flush writes what is buffered, within the write timeout.
func (sw *sseWriter) flush() error {
	if len(sw.buf) == 0 {
		return nil
	}
	if err := sw.rc.SetWriteDeadline(time.Now().Add(sw.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if _, err := sw.w.Write(sw.buf); err != nil {
		return err
	}
	sw.buf = sw.buf[:0]
	return sw.rc.Flush()
}
