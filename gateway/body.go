package gateway

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// bodies are the buffers request bodies of a declared length are read
// into, kept for the next request: a fresh buffer the size of the body is
// allocated, cleared and collected per request, which costs a proxy that
// holds a 10 MB body about a third of what forwarding it costs
// (BenchmarkGatewayOverhead, docs/benchmarks.md).
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// recycle gives a buffer back to bodies (a variable, for a test to see
// when it is called).
var recycle = func(b *[]byte) { bodies.Put(b) }

// A held body is a request body read whole, by the handler that owns it
// until release.
type held struct {
	buf *[]byte       // nil when the buffer is not pooled
	up  *upstreamBody // the body sent upstream, if any
}

// hold reads a body whose declared length (-1 when unknown) is at most
// max: into a pooled buffer when it is declared, else into a buffer that
// grows. The caller must call release once it is done with the body.
func hold(r io.Reader, declared, max int64) (*held, []byte, error) {
	h := &held{}
	if declared < 0 || declared > max {
		var buf bytes.Buffer
		_, err := buf.ReadFrom(r)
		return h, buf.Bytes(), err
	}
	h.buf = bodies.Get().(*[]byte)
	if int64(cap(*h.buf)) < declared {
		// A quarter more, for the next request of a conversation, which
		// repeats this one and adds to it.
		*h.buf = make([]byte, declared, declared+declared/4)
	}
	body := (*h.buf)[:declared]
	if _, err := io.ReadFull(r, body); err != nil {
		h.release()
		return nil, nil, err
	}
	return h, body, nil
}

// upstream returns out, the held body or another, as the body of the
// request sent upstream.
func (h *held) upstream(out []byte) io.ReadCloser {
	h.up = &upstreamBody{r: bytes.NewReader(out)}
	return h.up
}

// release ends the handler's use of the body: the body sent upstream is
// closed first, so that a read of the transport still under way (it may
// outlive the handler, http.RoundTripper) finishes and any later one
// fails, and only then is the buffer recycled.
func (h *held) release() {
	if h.up != nil {
		h.up.Close()
	}
	if h.buf != nil {
		recycle(h.buf)
	}
}

// errBodyClosed is the read error of a body sent upstream after its
// handler has returned (ReverseProxy refuses those reads too).
var errBodyClosed = errors.New("gateway: the request body was read after its handler returned")

// An upstreamBody is a body sent upstream whose reads stop at Close.
type upstreamBody struct {
	mu     sync.Mutex
	r      *bytes.Reader
	closed bool
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errBodyClosed
	}
	return b.r.Read(p)
}

func (b *upstreamBody) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return nil
}
