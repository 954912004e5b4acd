package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/toolwire/toolwire/internal/sse"
)

// This file answers the read_result calls of a shaped request that asks
// for a stream. The model's answers arrive as streams of events; the
// client reads one stream, which the gateway joins from them:
//
//   - the events that show content (text, reasoning) go to the client as
//     they come;
//   - from the first event of a tool call, the rest of the answer is held
//     until it ends, when the gateway knows whether the model called
//     read_result. If it did, the held events are dropped, the gateway
//     answers the reads and asks again, and the next answer's events
//     follow the ones written, numbered on from them; if it did not, the
//     held events are written.
//   - the events that open an answer are written once, just before the
//     first event that follows them: when the model calls read_result
//     before it says anything, the client's stream opens with the answer
//     that does.
//
// What a dialect's events are, and how they are numbered, is its
// joiner's business (streamjoin.go).

// A joiner knows one dialect's stream well enough to join several
// answers into one.
type joiner interface {
	// read notes ev, the next event of the answer at hand, and says what
	// it is.
	read(ev sse.Event) eventKind
	// write returns ev, which is about to be written to the client, as the
	// client must read it after the events written before it.
	write(ev sse.Event) sse.Event
	// next ends the answer at hand: the next one continues it.
	next()
	// fail returns e, the gateway's error, as an event of the stream.
	fail(e *refusal) sse.Event
}

// An eventKind is what an event is to the joining of answers.
type eventKind int

const (
	// kindStart opens an answer (a message's start, a role, a ping): it
	// is written once, before the first event that follows it.
	kindStart eventKind = iota
	// kindContent shows content: it is written as it comes.
	kindContent
	// kindCall is part of a tool call: from it on, the answer is held
	// until it ends.
	kindCall
	// kindEnd closes the answer (its finish, its usage): it is held until
	// the answer ends.
	kindEnd
)

// streamShaped sends body, the shaped request (in as received), upstream
// and writes the model's answers to w as one stream, answering the
// model's read_result calls itself.
func (g *Gateway) streamShaped(w http.ResponseWriter, r *http.Request, x *exchange, s *shaping, in, body []byte) {
	ctx := r.Context()
	o := &joined{w: w, x: x, j: x.p.join()}
	first := body
	for round := 1; ; round++ {
		resp, err := g.send(ctx, r, x, body)
		if err != nil {
			if o.started {
				o.fail(&refusal{status: http.StatusBadGateway, code: codeUnreachable, message: fmt.Sprintf("toolwire gateway: the upstream failed while answering read_result: %v", unwrapURL(err))})
				break
			}
			g.upstreamError(w, r.WithContext(context.WithValue(ctx, exchangeKey{}, x)), err)
			return
		}
		if resp.StatusCode != http.StatusOK || !isEventStream(resp.Header) {
			answer, err := readAnswer(resp, g.cfg.IdleTimeout)
			if o.started {
				o.fail(&refusal{status: http.StatusBadGateway, code: codeUnreachable, message: fmt.Sprintf("toolwire gateway: after read_result, the upstream answered %d: %s", resp.StatusCode, cut(string(answer), 500))})
				break
			}
			if err != nil {
				g.upstreamError(w, r.WithContext(context.WithValue(ctx, exchangeKey{}, x)), err)
				return
			}
			x.record = g.recordShaping(ctx, r, x, in, first)
			g.writeAnswer(w, x, resp, answer)
			return
		}
		o.resp = resp
		held, answer, whole := o.answer(newIdleBody(resp.Body, g.cfg.IdleTimeout))
		resp.Body.Close()
		var next []byte
		if whole && answer != nil {
			next, err = continuation(ctx, x.p.dialect, s, body, answer, true, round)
			if err != nil {
				o.fail(&refusal{status: http.StatusInternalServerError, code: codeInternal, message: fmt.Sprintf("toolwire gateway: answering read_result failed: %v", err)})
				break
			}
		}
		if next == nil {
			o.write(held...)
			break
		}
		body = next
		x.reads++
		o.next()
	}
	x.record = g.recordShaping(ctx, r, x, in, first)
	o.end()
}

// joined is the stream the client reads, joined from the answers.
type joined struct {
	w    http.ResponseWriter
	x    *exchange
	j    joiner
	resp *http.Response // the answer at hand, whose headers open the stream

	started bool        // the headers are written
	opened  bool        // an answer's opening events are written
	pending []sse.Event // the opening events of the answer at hand, not yet written
	buf     []byte
}

// answer reads one answer and writes it as it comes, but for its end and
// the events from its first tool call on, which it holds and returns.
// When the answer made a call, it also returns all of the answer's events
// as read, for the model's message; whole is false when the answer broke
// off.
func (o *joined) answer(body io.Reader) (held []sse.Event, answer []byte, whole bool) {
	rd := sse.NewReader(body, 0)
	called := false
	for {
		ev, err := rd.Next()
		if err != nil {
			if !called {
				answer = nil
			}
			return held, answer, errors.Is(err, io.EOF)
		}
		ev.Data = bytes.Clone(ev.Data) // the reader reuses it
		answer = sse.AppendEvent(answer, ev)
		switch k := o.j.read(ev); {
		case called || k == kindCall || k == kindEnd:
			called = called || k == kindCall
			held = append(held, ev)
		case k == kindStart:
			if !o.opened {
				o.pending = append(o.pending, ev)
			}
		default:
			o.write(ev)
		}
	}
}

// next ends an answer that the next one continues.
func (o *joined) next() {
	if !o.opened {
		o.pending = nil // the next answer's opening is the one written
	}
	o.j.next()
}

// write writes evs to the client, after the headers and the opening
// events when they are not written yet, and flushes them.
func (o *joined) write(evs ...sse.Event) {
	if !o.started {
		o.started = true
		h := o.w.Header()
		for k, vs := range o.resp.Header {
			h[k] = vs
		}
		for _, k := range append(hopHeaders, "Content-Length") {
			h.Del(k)
		}
		h.Set(VerdictHeader, string(o.x.verdict))
		if o.x.rules != "" {
			h.Set(RulesHeader, o.x.rules)
		}
		if o.x.record != "" {
			h.Set(RecordHeader, o.x.record)
		}
		h.Set(ShapedHeader, o.shapedValue())
		o.w.WriteHeader(http.StatusOK)
	}
	o.buf = o.buf[:0]
	if len(evs) > 0 && !o.opened {
		o.opened = true
		for _, ev := range o.pending {
			o.buf = sse.AppendEvent(o.buf, o.j.write(ev))
		}
		o.pending = nil
	}
	for _, ev := range evs {
		o.buf = sse.AppendEvent(o.buf, o.j.write(ev))
	}
	if len(o.buf) > 0 {
		_, _ = o.w.Write(o.buf)
	}
	_ = http.NewResponseController(o.w).Flush()
}

// fail ends the client's stream with the gateway's error, as the
// provider's stream says an error.
func (o *joined) fail(e *refusal) {
	e.dialect = o.x.p.dialect
	o.write(o.j.fail(e))
}

// end ends the client's stream: the trailers say how many reads were
// answered, and the record of the shaping.
func (o *joined) end() {
	if !o.opened {
		evs := o.pending // an answer that only opened
		o.pending = nil
		o.write(evs...)
	}
	h := o.w.Header()
	h.Set(http.TrailerPrefix+ShapedHeader, o.shapedValue())
	if o.x.record != "" {
		h.Set(http.TrailerPrefix+RecordHeader, o.x.record)
	}
}

func (o *joined) shapedValue() string {
	return fmt.Sprintf("%d results, %d reads", len(o.x.shaped), o.x.reads)
}

// isEventStream reports whether an answer's Content-Type is
// text/event-stream.
func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// unwrapURL returns err without its *url.Error, whose URL may hold a key.
func unwrapURL(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
