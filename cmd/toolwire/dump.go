package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolwire/toolwire/llm"
)

// dumpTransport writes the body of every request it sends into dir, as
// request-001.json, request-002.json, ...: exactly the bytes the model's
// provider received, retries included.
type dumpTransport struct {
	dir  string
	base http.RoundTripper
	mu   sync.Mutex
	n    int
}

func (d *dumpTransport) next() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n++
	return filepath.Join(d.dir, fmt.Sprintf("request-%03d.json", d.n))
}

func (d *dumpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(d.next(), body, 0o644); err != nil {
			return nil, fmt.Errorf("--dump: %w", err)
		}
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req = r
	}
	return d.base.RoundTrip(req)
}

// dumpModel dumps the requests of a model that sends none over HTTP (a
// replay): each history as the loop asked it, in the persistence format
// of llm.Conversation.
type dumpModel struct {
	llm.Model
	d *dumpTransport
}

func (m *dumpModel) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	b, err := llm.Conversation{Messages: req.Messages}.MarshalJSON()
	if err == nil {
		err = os.WriteFile(m.d.next(), b, 0o644)
	}
	if err != nil {
		return func(yield func(llm.Event, error) bool) { yield(nil, fmt.Errorf("--dump: %w", err)) }
	}
	return m.Model.Stream(ctx, req)
}
