package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// dumpTransport writes the body of every request it sends into the
// folder of its run, named after the turn it belongs to, numbered from 1
// as toolwire run and sessions show number them: request-001.json for
// turn 1, request-002.json, then request-002-2.json, request-002-3.json
// for the retries of turn 2 (a client's, or a run's second ask). They are
// exactly the bytes the model's provider received. The folder and the
// files are its user's only (they hold the whole conversation), and no
// file is ever replaced. It is a toolwire.Hook, to learn each model
// call's turn.
type dumpTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	dir  string // the run's folder; "" until start
	turn int    // the turn of the model call under way; 0 before the first
	n    int    // the requests of that turn so far
}

// Observe learns the turn of each model call.
func (d *dumpTransport) Observe(_ context.Context, e toolwire.Event) {
	if mc, ok := e.(toolwire.ModelCallEvent); ok {
		d.mu.Lock()
		if mc.Turn != d.turn {
			d.turn, d.n = mc.Turn, 0
		}
		d.mu.Unlock()
	}
}

// start makes the folder of the run id in parent, readable by its user
// only, dumps into it from then on, and returns it. The folder must not
// exist: a run never writes into another run's dumps.
func (d *dumpTransport) start(parent, id string) (string, error) {
	dir := filepath.Join(parent, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	d.mu.Lock()
	d.dir = dir
	d.mu.Unlock()
	return dir, nil
}

// write writes body into the next file, mode 0600; it fails rather than
// replace a file that is there.
func (d *dumpTransport) write(body []byte) error {
	d.mu.Lock()
	d.n++
	dir, turn, n := d.dir, max(d.turn, 1), d.n
	d.mu.Unlock()
	if dir == "" {
		return errors.New("--dump: the run's folder is not made yet")
	}
	name := fmt.Sprintf("request-%03d.json", turn)
	if n > 1 {
		name = fmt.Sprintf("request-%03d-%d.json", turn, n)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("--dump: %w", err)
	}
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--dump: %w", err)
	}
	return nil
}

func (d *dumpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if err := d.write(body); err != nil {
			return nil, err
		}
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req = r
	}
	return d.base.RoundTrip(req)
}

// dumpHook dumps the requests of a model that sends none over HTTP (a
// replay): each request the loop makes, as the provider of the model's
// dialect would receive it, so that `toolwire check` reads it as it reads
// a live dump. It is a toolwire.Hook: it watches the run, and a dump it
// cannot write is reported when the run ends.
type dumpHook struct {
	d       *dumpTransport
	dialect transcript.Dialect
	mu      sync.Mutex
	err     error // the first dump that could not be written
}

func (h *dumpHook) Observe(_ context.Context, e toolwire.Event) {
	mc, ok := e.(toolwire.ModelCallEvent)
	if !ok {
		return
	}
	body, err := wire.New(h.dialect, transcript.Request{Messages: mc.Request.Messages, Tools: mc.Request.Tools}, false)
	var b []byte
	if err == nil {
		b, _, err = body.Encode()
	}
	if err == nil {
		err = h.d.write(b)
	} else {
		err = fmt.Errorf("--dump: request %d: %w", mc.Turn, err)
	}
	if err != nil {
		h.mu.Lock()
		if h.err == nil {
			h.err = err
		}
		h.mu.Unlock()
	}
}

// failed returns the first dump that could not be written.
func (h *dumpHook) failed() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}
