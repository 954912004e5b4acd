package modeltest

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// stopWithin is how long a stream may take to end once its context is
// done or its loop broke; a model that takes longer hangs.
const stopWithin = 10 * time.Second

// checkContextError fails t unless err wraps want and is not a retryable
// [*llm.Error]: a loop must not send again what its caller cancelled.
func checkContextError(t *testing.T, err, want error) {
	t.Helper()
	var le *llm.Error
	switch {
	case !errors.Is(err, want):
		t.Errorf("error = %v, want one that wraps %v", err, want)
	case errors.As(err, &le) && le.Retryable():
		t.Errorf("error = %v, a retryable *llm.Error of kind %q; want the context's error, which no retry can help", err, string(le.Kind))
	}
}

// testCancelBefore: a stream whose context is done before it starts
// yields the context's error alone and sends nothing.
func testCancelBefore(t *testing.T, h *Harness) {
	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
		{"deadline passed", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			b := h.open(t, Turn{Text: "never answered"})
			ctx, cancel := tt.ctx()
			defer cancel()
			var r run
			bounded(t, stopWithin, "Stream() with a done context", func() { r = consume(t, b.Model.Stream(ctx, ask("hi")), nil) })
			if len(r.events) > 0 {
				t.Errorf("Stream() yielded %s with a done context, want only its error", describeAll(r.events))
			}
			checkContextError(t, r.err, tt.want)
			if reqs := h.requests(b); len(reqs) > 0 {
				t.Errorf("the server received %d requests, want none: a done context sends nothing", len(reqs))
			}
		})
	}
}

// testCancelMidStream: once its context is cancelled, a stream yields no
// more events: its next pair is the context's error, whatever the model
// had already read.
func testCancelMidStream(t *testing.T, h *Harness) {
	long := bytes.Repeat([]byte(answerText+" "), 400)
	b := h.open(t, Turn{Text: string(long), Calls: parallel, Chunk: 16})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var after []llm.Event
	var r run
	bounded(t, stopWithin, "Stream() after its context was cancelled", func() {
		r = consume(t, b.Model.Stream(ctx, ask("hi")), func(ev llm.Event) bool {
			if ctx.Err() == nil {
				cancel()
			} else {
				after = append(after, ev)
			}
			return true
		})
	})
	if len(r.events) == 0 {
		t.Fatalf("Stream() yielded no event, error %v; want events until the cancel", r.err)
	}
	if len(after) > 0 {
		t.Errorf("Stream() yielded %d events after its context was cancelled: %s; want none", len(after), describeAll(after))
	}
	checkContextError(t, r.err, context.Canceled)
}

// testBreakEarly: breaking out of the loop at any event is safe: the
// iterator yields nothing more, leaves nothing running, and the model
// answers the next request.
func testBreakEarly(t *testing.T, h *Harness) {
	for _, tt := range []struct {
		name string
		at   func(ev llm.Event) bool
	}{
		{"first event", func(llm.Event) bool { return true }},
		{"first call fragment", func(ev llm.Event) bool { _, ok := ev.(llm.ToolCallDelta); return ok }},
		{"usage", func(ev llm.Event) bool { _, ok := ev.(llm.Usage); return ok }},
		{"finish", func(ev llm.Event) bool { _, ok := ev.(llm.Finish); return ok }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			long := bytes.Repeat([]byte(answerText+" "), 100)
			turn := Turn{Text: string(long), Calls: parallel, Chunk: 16}
			b := h.open(t, turn, Turn{Text: "ok"})
			var r run
			bounded(t, stopWithin, "Stream() after the loop broke", func() {
				r = consume(t, b.Model.Stream(context.Background(), ask("hi")), func(ev llm.Event) bool { return !tt.at(ev) })
			})
			if !r.stopped {
				t.Fatalf("the stream ended (error %v) before the event to break at; events: %s", r.err, describeAll(r.events))
			}
			req := ask("hi")
			req.Messages = append(req.Messages, llm.Assistant(llm.Text{Text: "Sorry, I was cut off."}), llm.User("Again?"))
			checkText(t, generate(t, b.Model, req).Message, "ok")
		})
	}
}

// testRangeTwice: the request is sent when iteration starts, and each
// iteration sends it again, the same bytes, and gets its own answer; the
// request is not modified.
func testRangeTwice(t *testing.T, h *Harness) {
	temp := 0.5
	newReq := func() *llm.Request {
		return &llm.Request{Messages: history(), Tools: tools, Temperature: &temp, MaxOutputTokens: 1000}
	}
	// Two requests, of a history that holds two answers: a model that
	// answers by position looks for the third turn.
	b := h.open(t, repeat(Turn{Text: "Paris: 18°C.", Calls: parallel[:2]}, 3)...)
	req := newReq()
	seq := b.Model.Stream(context.Background(), req)
	if reqs := h.requests(b); len(reqs) > 0 {
		t.Errorf("Stream() sent %d requests before the iteration started, want none", len(reqs))
	}
	var answers [2]*llm.Response
	for i := range answers {
		r := consume(t, seq, nil)
		if r.err != nil {
			t.Fatalf("iteration %d: error %v, want none", i+1, r.err)
		}
		resp, err := accumulate(r.events)
		if err != nil {
			t.Fatalf("iteration %d: Accumulator.Response() error = %v", i+1, err)
		}
		answers[i] = resp
	}
	for i, resp := range answers {
		if got := resp.Message.Text(); got != "Paris: 18°C." {
			t.Errorf("iteration %d: text = %q, want %q", i+1, got, "Paris: 18°C.")
		}
		checkCalls(t, resp.Message.ToolCalls(), parallel[:2])
	}
	if !reflect.DeepEqual(req, newReq()) {
		t.Errorf("Stream() modified its request: %+v", req)
	}
	if reqs := h.accepted(t, b, 2); len(reqs) == 2 && !bytes.Equal(reqs[0].Body, reqs[1].Body) {
		t.Errorf("the same request was sent as two bodies:\n%s\n%s", reqs[0].Body, reqs[1].Body)
	}
}

// testConcurrent: one model serves several streams at once.
func testConcurrent(t *testing.T, h *Harness) {
	const n = 4
	b := h.open(t, repeat(Turn{Text: answerText, Chunk: 8}, n)...)
	var wg sync.WaitGroup
	resps := make([]*llm.Response, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			resps[i], errs[i] = llm.Generate(context.Background(), b.Model, ask("Weather in Paris and Beijing?"))
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("stream %d: error %v, want none", i, errs[i])
			continue
		}
		checkText(t, resps[i].Message, answerText)
	}
	h.accepted(t, b, n)
}

// testCached: a CachedModel answers StreamCached as it answers Stream,
// from the same request bytes, over a conversation whose history grows,
// and reuses the encodings it keeps.
func testCached(t *testing.T, h *Harness) {
	script := []Turn{
		{Text: "Checking.", Calls: parallel[:3]},
		{Text: "Paris: 18°C; Beijing: 6°C."},
		{Calls: parallel[3:]},
		{Text: "Paris and Beijing."},
	}
	var turns []Turn
	for _, turn := range script {
		turns = append(turns, turn, turn) // once for Stream, once for StreamCached
	}
	b := h.open(t, turns...)
	cm, ok := b.Model.(llm.CachedModel)
	if !ok {
		t.Skipf("%T does not implement llm.CachedModel", b.Model)
	}
	var cache llm.WireCache
	req := ask("Weather in Paris and Beijing?")
	for i := range script {
		plain := consume(t, cm.Stream(context.Background(), req), nil)
		cached := consume(t, cm.StreamCached(context.Background(), req, &cache), nil)
		if plain.err != nil || cached.err != nil {
			t.Fatalf("request %d: Stream() error = %v, StreamCached() error = %v; want none", i+1, plain.err, cached.err)
		}
		want, err := accumulate(plain.events)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		got, _ := accumulate(cached.events)
		if !sameAnswer(got, want) {
			t.Errorf("request %d: StreamCached() = %+v\nwant what Stream() gave: %+v", i+1, got, want)
		}
		req.Messages = append(req.Messages, want.Message)
		if calls := want.Message.ToolCalls(); len(calls) > 0 {
			tool := llm.Message{Role: llm.RoleTool}
			for _, c := range calls {
				tool.Parts = append(tool.Parts, result(c, llm.StatusSuccess, "ok: "+c.Name))
			}
			req.Messages = append(req.Messages, tool)
		} else {
			req.Messages = append(req.Messages, llm.User("Which cities?"))
		}
	}
	if reused, _ := cache.Stats(); reused == 0 {
		t.Errorf("WireCache.Stats() reused = 0 after %d requests of a growing history, want the kept encodings reused", len(script))
	}
	reqs := h.accepted(t, b, 2*len(script))
	for i := 0; i+1 < len(reqs); i += 2 {
		if !bytes.Equal(reqs[i].Body, reqs[i+1].Body) {
			t.Errorf("request %d: StreamCached() sent\n%s\nStream() sent\n%s", i/2+1, reqs[i+1].Body, reqs[i].Body)
		}
	}
}

// testDialect: the model names a dialect transcript knows, or none.
func testDialect(t *testing.T, h *Harness) {
	b := h.open(t)
	d := b.Model.Dialect()
	if d == "" {
		t.Skip("Dialect() is empty: the model has no wire rules to check a history by")
	}
	if _, err := transcript.ParseDialect(d); err != nil {
		t.Errorf("Dialect() = %q: %v", d, err)
	}
	if again := b.Model.Dialect(); again != d {
		t.Errorf("Dialect() = %q, then %q; want the same", d, again)
	}
}

// testName: a Named model names the model it calls.
func testName(t *testing.T, h *Harness) {
	b := h.open(t)
	n, ok := b.Model.(llm.Named)
	if !ok {
		t.Skipf("%T does not implement llm.Named", b.Model)
	}
	if n.Name() == "" {
		t.Error(`Name() = "", want the name of the model it calls`)
	}
}
