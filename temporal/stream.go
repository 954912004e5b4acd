package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"go.temporal.io/sdk/activity"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/session"
)

// The model's text as it streams. A workflow sees an activity's outcome,
// not its progress, and a delta per event in the history would bloat it;
// so the model activity publishes the text it has streamed so far to the
// session store the workers share (Config.Sessions), beside the
// history: one offloaded result per model call, replaced with the longer
// text every Config.TextInterval, under a ref derived from the workflow
// id and the number of the last event told before the call (what a
// client following the events has seen when the call starts). The
// results live in a store session of their own per workflow
// (streamSession), deleted when the call ends — its outcome then goes to
// the history — which also drops what a lost worker left. [Follow]
// reads them and yields "delta" events; the events of the workflow stay
// the authority, and Follow reconciles the two.

// streamRecord is what the store holds of one model call's text.
type streamRecord struct {
	// Call names the attempt that streamed it: the activity's id and
	// attempt. A new attempt (a lost worker, a call made again) starts
	// over.
	Call string `json:"call"`
	// Text is the text streamed so far.
	Text string `json:"text"`
}

// streamSession is the id of the store session that holds the streamed
// text of session id's model calls.
func streamSession(id string) string { return "toolwire-stream-" + digest(id) }

// streamRef is the ref of the text of the model call of session id
// made after its event numbered seq.
func streamRef(id string, seq int) string {
	return "r-stream-" + digest(id+"\x00"+strconv.Itoa(seq))
}

// digest is 32 letters and digits of the SHA-256 of s: workflow ids may
// hold characters that session ids and refs may not.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:20]))
}

// streamStore is a session store the model's text can be published to:
// it keeps results, and deletes the session that holds them.
type streamStore interface {
	session.Store
	session.Results
	session.Catalog
}

// textHook passes the model's text, as it streams, to the publisher of
// the model activity whose context it is told in. It is installed on
// the agents of a runtime that publishes.
type textHook struct{}

var _ toolwire.Hook = textHook{}

type publisherKey struct{}

func (textHook) Observe(ctx context.Context, e toolwire.Event) {
	if t, ok := e.(toolwire.TextEvent); ok {
		if p, ok := ctx.Value(publisherKey{}).(*publisher); ok {
			p.add(t.Text)
		}
	}
}

// publisher writes the text of one model call to the store every
// interval while the call streams.
type publisher struct {
	store   streamStore
	session string
	rec     streamRecord
	ref     string
	warn    func(msg string, kv ...any)

	mu    sync.Mutex
	text  strings.Builder
	dirty bool
}

// publish starts publishing the text of the model call of session id
// made after event seq, if the agent has a store to publish to; ctx is
// then the activity's context with the publisher, and stop ends it and
// deletes what it published. Publishing never fails the call: a store
// that refuses a write is logged, and the client falls back to the text
// in the workflow's events.
func (r *Runtime) publish(ctx context.Context, e *entry, id string, seq int) (context.Context, func()) {
	if e.streams == nil || r.cfg.TextInterval < 0 {
		return ctx, func() {}
	}
	info := activity.GetInfo(ctx)
	log := activity.GetLogger(ctx)
	p := &publisher{store: e.streams, session: streamSession(id), ref: streamRef(id, seq),
		rec: streamRecord{Call: info.ActivityID + "." + strconv.Itoa(int(info.Attempt))}, warn: log.Warn}
	_, err := p.store.Create(ctx, session.Session{ID: p.session, Title: "the streaming text of Temporal session " + id, Agent: e.name})
	if err != nil && !errors.Is(err, session.ErrConflict) {
		p.warn("the model's text cannot be published as it streams; followers see it when the call ends", "session", id, "err", err)
		return ctx, func() {}
	}
	stop := tick(ctx, r.cfg.TextInterval, func() bool { return p.flush(ctx) })
	return context.WithValue(ctx, publisherKey{}, p), func() {
		stop()
		// The call's outcome goes to the history now: what streamed of it
		// is no longer needed, nor what a lost attempt left.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := p.store.Delete(dctx, p.session); err != nil && !errors.Is(err, session.ErrNotFound) {
			p.warn("the model's streamed text could not be deleted from the session store", "session", id, "err", err)
		}
	}
}

// add appends a fragment of the text.
func (p *publisher) add(s string) {
	p.mu.Lock()
	p.text.WriteString(s)
	p.dirty = true
	p.mu.Unlock()
}

// flush writes the text streamed so far, if it grew; it reports false
// when the store refused it, which ends the publishing of this call.
func (p *publisher) flush(ctx context.Context) bool {
	p.mu.Lock()
	if !p.dirty {
		p.mu.Unlock()
		return true
	}
	p.rec.Text, p.dirty = p.text.String(), false
	p.mu.Unlock()
	b, err := json.Marshal(p.rec, jsonOpts)
	if err == nil {
		_, err = p.store.PutResult(ctx, p.session, session.Offloaded{Ref: p.ref, Tool: "temporal", Kind: "text", MediaType: "application/json", Data: b})
	}
	if err != nil {
		if ctx.Err() == nil {
			p.warn("the model's text could not be published as it streams; followers see it when the call ends", "session", p.session, "err", err)
		}
		return false
	}
	return true
}

// streamed reads the text the model call of session id made after event
// seq has streamed so far; ok is false when there is none (no call
// streams, it has ended, or the store has no such text).
func streamed(ctx context.Context, r session.Results, id string, seq int) (rec streamRecord, ok bool, err error) {
	o, err := r.Result(ctx, streamSession(id), streamRef(id, seq))
	if errors.Is(err, session.ErrNotFound) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	if err := json.Unmarshal(o.Data, &rec); err != nil {
		return rec, false, nil // not ours: nothing to show
	}
	return rec, true, nil
}
