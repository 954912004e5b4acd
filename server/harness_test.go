package server

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"go.uber.org/goleak"
	_ "modernc.org/sqlite"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sqlite"
	"github.com/toolwire/toolwire/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testAgent is the agent file the tests run: tools that answer at once,
// one that waits for a person's approval, one that runs until the test
// lets it go, one whose result is too large for its room.
const testAgent = `name: test-agent
description: The server tests' agent.
model: openai:gpt-4o-mini
system: You are the test agent.
max_turns: 4
tools:
  - tool: echo
  - {tool: notify, approval: true}
  - tool: hold
  - tool: orders
`

// gate is what the hold tool waits for: the test closes it, or the
// run's context ends.
type gate struct {
	mu      sync.Mutex
	release chan struct{}
	started chan struct{} // receives once per call that starts
}

func newGate() *gate { return &gate{release: make(chan struct{}), started: make(chan struct{}, 16)} }

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

type echoIn struct {
	Text string `json:"text"`
}

type notifyIn struct {
	Message string `json:"message" jsonschema:"the message to send"`
}

type order struct {
	ID    string `json:"id"`
	Total int    `json:"total"`
	Note  string `json:"note"`
}

// testTools returns the Go tools of testAgent.
func testTools(t testing.TB, g *gate) *tool.Registry {
	reg := tool.NewRegistry()
	echo, err := tool.Func("echo", "Echoes the text.", func(_ context.Context, in echoIn) (map[string]string, error) {
		return map[string]string{"echo": in.Text}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	must(t, err)
	notify, err := tool.Func("notify", "Sends a message to the customer.", func(_ context.Context, in notifyIn) (map[string]bool, error) {
		return map[string]bool{"sent": true}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level0})
	must(t, err)
	hold, err := tool.Func("hold", "Places a hold; it takes until the test lets it go.", func(ctx context.Context, in echoIn) (map[string]string, error) {
		g.started <- struct{}{}
		select {
		case <-g.release:
			tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 1, Message: "held"})
			return map[string]string{"held": in.Text}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, &tool.FuncOptions{Idempotency: tool.Level0})
	must(t, err)
	orders, err := tool.Func("orders", "Lists the orders.", func(_ context.Context, _ struct{}) ([]order, error) {
		out := make([]order, 300)
		for i := range out {
			out[i] = order{ID: fmt.Sprintf("o-%05d", i), Total: i * 7, Note: "<script>alert(1)</script> & more"}
		}
		return out, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	must(t, err)
	reg.MustAdd(echo, notify, hold, orders)
	return reg
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// harness is a server over HTTP with the conformance test provider as
// its model and a SQLite store.
type harness struct {
	t     testing.TB
	srv   *Server
	http  *httptest.Server
	model *llmtest.Server
	gate  *gate
	store *sqlite.Store
	dir   string
}

type options struct {
	token   string
	maxRuns int
	maxBody int64
	grace   time.Duration
	dbPath  string // share a database between harnesses
}

// newHarness starts a server whose model answers with turns.
func newHarness(t testing.TB, o options, turns ...llmtest.Turn) *harness {
	t.Helper()
	h := &harness{t: t, gate: newGate(), dir: t.TempDir()}
	h.model = llmtest.NewServer(t, turns...)
	must(t, os.WriteFile(filepath.Join(h.dir, "test.yaml"), []byte(testAgent), 0o600))
	must(t, os.WriteFile(filepath.Join(h.dir, "broken.yaml"), []byte("name: [\n"), 0o600))
	path := o.dbPath
	if path == "" {
		path = filepath.Join(t.TempDir(), "toolwire.db")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	must(t, err)
	t.Cleanup(func() { db.Close() })
	h.store, err = sqlite.New(context.Background(), db, nil)
	must(t, err)
	reg := testTools(t, h.gate)
	h.srv, err = New(&Config{
		Store:   h.store,
		Agents:  h.dir,
		Token:   o.token,
		MaxRuns: o.maxRuns,
		MaxBody: o.maxBody,
		Grace:   o.grace,
		Build: func(def *agentfile.Definition) (llm.Model, *toolwire.Config, error) {
			model, cfg, err := def.Build(&agentfile.Options{Tools: reg, Provider: &provider.Options{BaseURL: h.model.URL + "/v1", APIKey: "test-key", MaxRetries: -1}})
			if err != nil {
				return nil, nil, err
			}
			cfg.Room = &budget.RoomConfig{MaxResult: 300}
			return model, cfg, nil
		},
	})
	must(t, err)
	h.http = httptest.NewServer(h.srv)
	t.Cleanup(func() {
		h.gate.open()
		h.srv.Shutdown(context.Background())
		h.http.Close()
		if n := h.srv.hubs.count(); n != 0 {
			t.Errorf("%d event hubs outlive their runs and streams", n)
		}
	})
	return h
}

// response is an answer: its status, headers and body.
type response struct {
	status int
	header http.Header
	body   []byte
}

// errorOf decodes the error shape of an answer.
func (r response) errorOf(t testing.TB) errorJSON {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(r.body, &e, json.RejectUnknownMembers(true)); err != nil {
		t.Fatalf("the answer %d is not the error shape: %v\n%s", r.status, err, r.body)
	}
	return e.Error
}

// do sends a request with the harness's token, if any.
func (h *harness) do(method, path, token string, body string, header ...string) response {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.http.URL+path, rd)
	must(h.t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := h.http.Client().Do(req)
	must(h.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(h.t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// decode decodes an answer's body into v, failing on an unexpected
// status.
func decode[T any](t testing.TB, r response, status int) T {
	t.Helper()
	var v T
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return v
}

// create starts a session of the test agent.
func (h *harness) create(message string) string {
	h.t.Helper()
	v := decode[struct {
		Session sessionJSON `json:"session"`
	}](h.t, h.do("POST", "/v1/sessions", "", `{"agent":"test","message":`+quote(message)+`}`), http.StatusCreated)
	return v.Session.ID
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// stream opens the event stream of session id after lastID and returns
// a reader of its events.
type stream struct {
	resp *http.Response
	r    *sse.Reader
}

func (h *harness) open(id, lastID string, follow bool) *stream {
	h.t.Helper()
	path := "/v1/sessions/" + id + "/events"
	if follow {
		path += "?follow=true"
	}
	req, err := http.NewRequest("GET", h.http.URL+path, nil)
	must(h.t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := h.http.Client().Do(req)
	must(h.t, err)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return &stream{resp: resp, r: sse.NewReader(resp.Body, 0)}
}

// next returns the next event, or false at the stream's end.
func (s *stream) next(t testing.TB) (sse.Event, bool) {
	t.Helper()
	ev, err := s.r.Next()
	if err == io.EOF {
		return ev, false
	}
	must(t, err)
	ev.Data = bytes.Clone(ev.Data) // the reader reuses its buffer
	return ev, true
}

// until reads events up to and including the first of type typ.
func (s *stream) until(t testing.TB, typ string) []sse.Event {
	t.Helper()
	var out []sse.Event
	for {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("the stream ended before a %s event; it sent %s", typ, types(out))
		}
		out = append(out, ev)
		if ev.Type == typ {
			return out
		}
	}
}

// rest reads every event to the stream's end.
func (s *stream) rest(t testing.TB) []sse.Event {
	t.Helper()
	var out []sse.Event
	for {
		ev, ok := s.next(t)
		if !ok {
			s.close()
			return out
		}
		out = append(out, ev)
	}
}

func (s *stream) close() { s.resp.Body.Close() }

// newReader reads the events of resp.
func newReader(resp *http.Response) *sse.Reader { return sse.NewReader(resp.Body, 0) }

// readResponse reads and closes resp.
func readResponse(t testing.TB, resp *http.Response) response {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// events reads the whole stream of a session whose run has ended or
// paused.
func (h *harness) events(id, lastID string) []sse.Event {
	h.t.Helper()
	return h.open(id, lastID, false).rest(h.t)
}

func types(evs []sse.Event) string {
	var b bytes.Buffer
	for i, ev := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ev.Type)
	}
	return b.String()
}

// wait waits for the session's run in this server to end.
func (h *harness) wait(id string) {
	h.t.Helper()
	r := h.srv.runs.get(id)
	if r != nil {
		<-r.finished
	}
}

// status is the stored status of a session.
func (h *harness) status(id string) session.Status {
	h.t.Helper()
	snap, err := h.store.Load(context.Background(), id)
	must(h.t, err)
	return snap.Session.Status
}
