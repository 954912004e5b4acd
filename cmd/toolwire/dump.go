package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolwire/toolwire/llm"
)

// dumpTransport writes the body of every request it sends into the
// folder of its run, as request-001.json, request-002.json, ...: exactly
// the bytes the model's provider received, retries included. The folder
// and the files are its user's only (they hold the whole conversation),
// and no file is ever replaced.
type dumpTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	dir  string // the run's folder; "" until start
	n    int
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
	dir, n := d.dir, d.n
	d.mu.Unlock()
	if dir == "" {
		return errors.New("--dump: the run's folder is not made yet")
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("request-%03d.json", n)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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

// dumpModel dumps the requests of a model that sends none over HTTP (a
// replay): each history as the loop asked it, in the persistence format
// of llm.Conversation.
type dumpModel struct {
	llm.Model
	d *dumpTransport
}

func (m *dumpModel) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	b, err := llm.Conversation{Messages: req.Messages}.MarshalJSON()
	if err != nil {
		err = fmt.Errorf("--dump: %w", err)
	} else {
		err = m.d.write(b)
	}
	if err != nil {
		return func(yield func(llm.Event, error) bool) { yield(nil, err) }
	}
	return m.Model.Stream(ctx, req)
}
