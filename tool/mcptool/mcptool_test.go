package mcptool_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/tool/mcptool"
	"github.com/toolwire/toolwire/toolresult"
)

// stdioServer describes the test binary as a stdio MCP server; mark is
// the file it writes the name of a cancelled tool to.
func stdioServer(t *testing.T, name string) (mcptool.Server, string) {
	mark := filepath.Join(t.TempDir(), "cancelled")
	return mcptool.Server{Name: name, Command: os.Args[0], Args: []string{"-test.run=^$"},
		Env: map[string]string{"MCPTEST_SERVE": "1", "MCPTEST_MARK": mark}}, mark
}

// httpServer serves a test server over streamable HTTP; cancelled is
// told the tools whose calls were cancelled.
func httpServer(t *testing.T, name string) (mcptool.Server, chan string) {
	s, c, _ := httpTestServer(t, name)
	return s, c
}

func httpTestServer(t *testing.T, name string) (mcptool.Server, chan string, *testServer) {
	cancelled := make(chan string, 10)
	ts := newTestServer(func(n string) { cancelled <- n })
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ts.srv }, nil))
	t.Cleanup(srv.Close)
	return mcptool.Server{Name: name, URL: srv.URL, Headers: map[string]string{"X-Test": "yes"}}, cancelled, ts
}

// transports returns a server of each kind.
func transports(t *testing.T) []mcptool.Server {
	s, _ := stdioServer(t, "stdio")
	h, _ := httpServer(t, "http")
	return []mcptool.Server{s, h}
}

func newPool(t *testing.T, opts *mcptool.Options, servers ...mcptool.Server) (*mcptool.Pool, *tool.Registry) {
	t.Helper()
	p, err := mcptool.New(servers, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	reg := tool.NewRegistry()
	if err := p.Connect(context.Background(), reg); err != nil {
		t.Fatal(err)
	}
	return p, reg
}

// call runs one call through an executor with a shaper, as an agent does.
func call(t *testing.T, ctx context.Context, reg *tool.Registry, cfg *tool.Config, name, args string) tool.Outcome {
	t.Helper()
	counter, err := budget.NewCounter(budget.Estimated)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := toolresult.NewShaper(counter, toolresult.NewMemoryStore(0), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := tool.Config{}
	if cfg != nil {
		c = *cfg
	}
	c.Shaper = sh
	ex, err := tool.NewExecutor(reg, &c)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close(context.Background())
	return ex.Run(ctx, []llm.ToolCall{{ID: "call_1", Name: name, Input: jsontext.Value(args)}})[0]
}

func content(o tool.Outcome) string {
	var b strings.Builder
	for _, p := range o.Result.Content {
		if t, ok := p.(llm.Text); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// TestTools: every tool of the server is listed, page after page, and
// mapped onto a contract: annotations give the defaults, names that
// some provider refuses are made safe.
func TestTools(t *testing.T) {
	for _, srv := range transports(t) {
		t.Run(srv.Name, func(t *testing.T) {
			p, reg := newPool(t, nil, srv)
			want := []string{"big", "contents", "crash", "delete_all", "dotted_name", "echo", "garble", "hang", "install", "lookup_order", "picture", "set_value", "slow", "weather"}
			if got := reg.Names(); !slices.Equal(sorted(got), want) {
				t.Errorf("registered %v, want %v", got, want)
			}
			infos := p.Tools()
			if len(infos) != len(want) || infos[0].Source != "mcp:"+srv.Name {
				t.Errorf("Tools() = %d tools, first %+v", len(infos), infos[0])
			}
			specs := map[string]tool.Spec{}
			for _, s := range reg.Specs() {
				specs[s.Name] = s
			}
			for _, tt := range []struct {
				name     string
				level    tool.Idempotency
				approval bool
				returns  bool
			}{
				{"echo", tool.Level2, false, false},
				{"weather", tool.Level2, false, true},
				{"delete_all", tool.Level0, true, false},
				{"set_value", tool.Level1, false, false},
				{"big", tool.Level0, false, false},
			} {
				s := specs[tt.name]
				if s.Idempotency != tt.level || s.RequiresApproval != tt.approval || (len(s.Returns) > 0) != tt.returns {
					t.Errorf("%s: level %q, approval %v, returns %s; want %q, %v, returns %v", tt.name, s.Idempotency, s.RequiresApproval, s.Returns, tt.level, tt.approval, tt.returns)
				}
			}
			if got := call(t, context.Background(), reg, nil, "dotted_name", `{}`); got.Envelope.Status != llm.StatusSuccess {
				t.Errorf("dotted_name (dotted.name on the server) = %s", content(got))
			}
		})
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestOverrides: the allow-list picks the tools offered; the agent's
// overrides win over the annotations.
func TestOverrides(t *testing.T) {
	srv, _ := httpServer(t, "h")
	srv.Tools = []string{"echo", "delete_all", "missing"}
	no := false
	srv.Overrides = map[string]mcptool.Override{
		"echo":       {Idempotency: tool.Level0, Approval: new(true), Timeout: time.Minute},
		"delete_all": {Approval: &no},
	}
	_, reg := newPool(t, nil, srv)
	if got := reg.Names(); !slices.Equal(got, []string{"delete_all", "echo"}) {
		t.Errorf("registered %v, want delete_all, echo", got)
	}
	specs := reg.Specs()
	if s := specs[1]; s.Idempotency != tool.Level0 || !s.RequiresApproval || s.Timeout != time.Minute {
		t.Errorf("echo = %+v, want level_0, approval, 1m", s)
	}
	if s := specs[0]; s.RequiresApproval {
		t.Errorf("delete_all needs approval, though the agent said it does not")
	}
}

// TestResults: what a server returns becomes the tool message the
// model reads, over both transports.
func TestResults(t *testing.T) {
	for _, srv := range transports(t) {
		t.Run(srv.Name, func(t *testing.T) {
			_, reg := newPool(t, &mcptool.Options{MaxResultBytes: 1000}, srv)
			for _, tt := range []struct {
				tool, args string
				status     llm.Status
				errType    toolresult.ErrorType
				contains   []string
			}{
				{"echo", `{"text":"hi <there>"}`, llm.StatusSuccess, "", []string{`"data":"hi <there>"`, `"source":"mcp:` + srv.Name + `"`}},
				{"weather", `{"city":"Paris"}`, llm.StatusSuccess, "", []string{`"data":{"city":"Paris","temp_c":18}`}},
				{"weather", `{"city":"Atlantis"}`, llm.StatusPartial, "", []string{"breaks the return schema", "temp_c"}},
				{"contents", `{}`, llm.StatusSuccess, "", []string{
					`{"text":"hello","type":"text"}`,
					`{"media_type":"image/png","note":"image data, not shown","size_bytes":`,
					`{"media_type":"audio/wav","note":"audio data, not shown","size_bytes":12,"type":"audio"}`,
					`{"media_type":"application/pdf","name":"report.pdf","size_bytes":42,"type":"resource_link","uri":"file:///report.pdf"}`,
					`{"media_type":"text/plain","text":"a note","type":"resource","uri":"file:///notes.txt"}`,
					`{"media_type":"application/octet-stream","note":"binary content, not shown","size_bytes":3,"type":"resource","uri":"file:///blob.bin"}`,
				}},
				{"picture", `{}`, llm.StatusSuccess, "", []string{"image/png", "2×1"}},
				{"lookup_order", `{"id":"o-1"}`, llm.StatusError, toolresult.NotFound, []string{"order o-1 not found"}},
				{"big", `{"n":5000}`, llm.StatusError, toolresult.UpstreamError, []string{"5000 bytes, above the limit of 1000"}},
				{"echo", `{}`, llm.StatusError, toolresult.InvalidArguments, []string{"text"}},
			} {
				o := call(t, context.Background(), reg, nil, tt.tool, tt.args)
				got := content(o)
				if o.Result.Status != tt.status || (tt.errType != "" && o.Envelope.Error.Type != tt.errType) {
					t.Errorf("%s(%s) = %s, want %s %s", tt.tool, tt.args, got, tt.status, tt.errType)
				}
				for _, w := range tt.contains {
					if !strings.Contains(got, w) {
						t.Errorf("%s(%s) = %s\nwant it to hold %s", tt.tool, tt.args, got, w)
					}
				}
			}
			if o := call(t, context.Background(), reg, nil, "set_value", `{}`); !strings.Contains(content(o), "key idem_") {
				t.Errorf("set_value (level_1) = %s; want the idempotency key sent in _meta", content(o))
			}
		})
	}
}

// TestHang: a server that never answers: the executor's timeout ends
// the call with a tool message, and the server is told to cancel it.
func TestHang(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		srv, cancelled := httpServer(t, "h")
		_, reg := newPool(t, nil, srv)
		o := call(t, context.Background(), reg, &tool.Config{Timeout: 100 * time.Millisecond}, "hang", `{}`)
		if o.Envelope.Error == nil || o.Envelope.Error.Type != toolresult.Timeout {
			t.Errorf("hang = %s, want a timeout", content(o))
		}
		if got := <-cancelled; got != "hang" {
			t.Errorf("the server saw %q cancelled, want hang", got)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		srv, mark := stdioServer(t, "s")
		_, reg := newPool(t, nil, srv)
		o := call(t, context.Background(), reg, &tool.Config{Timeout: 100 * time.Millisecond}, "hang", `{}`)
		if o.Envelope.Error == nil || o.Envelope.Error.Type != toolresult.Timeout {
			t.Errorf("hang = %s, want a timeout", content(o))
		}
		waitFile(t, mark, "hang")
		if o := call(t, context.Background(), reg, nil, "echo", `{"text":"still here"}`); o.Result.Status != llm.StatusSuccess {
			t.Errorf("echo after the timeout = %s", content(o))
		}
	})
}

// waitFile waits until the file holds want: what the server process
// writes once its call is cancelled.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && string(b) == want {
			return
		}
	}
	t.Errorf("the server did not report its call cancelled (%s)", path)
}

// TestCrash: a server that dies during a call, or breaks the protocol,
// gives a tool message; the next call starts it again. One that keeps
// failing waits for the backoff, which the message says.
func TestCrash(t *testing.T) {
	srv, _ := stdioServer(t, "s")
	_, reg := newPool(t, &mcptool.Options{RestartBackoff: time.Hour}, srv)
	for _, name := range []string{"crash", "garble"} {
		o := call(t, context.Background(), reg, &tool.Config{Timeout: 20 * time.Second}, name, `{}`)
		if o.Envelope.Error == nil || o.Envelope.Error.Type != toolresult.UpstreamError || !strings.Contains(content(o), "started again on the next call") {
			t.Errorf("%s = %s, want an upstream_error saying the server is started again", name, content(o))
		}
		if o := call(t, context.Background(), reg, nil, "echo", `{"text":"back"}`); !strings.Contains(content(o), `"data":"back"`) {
			t.Errorf("echo after %s = %s, want the server restarted", name, content(o))
		}
	}
	// Two failures in a row: the third start waits for the backoff.
	call(t, context.Background(), reg, nil, "crash", `{}`)
	call(t, context.Background(), reg, nil, "crash", `{}`)
	o := call(t, context.Background(), reg, nil, "echo", `{"text":"x"}`)
	if o.Envelope.Error == nil || !strings.Contains(content(o), "started again in") || o.Envelope.Error.RetryAfter <= 0 {
		t.Errorf("echo during the backoff = %s, want cannot be reached, with retry_after", content(o))
	}
}

// TestListChanged: a tool the server adds during a call is registered
// before the call returns, ready for the next turn.
func TestListChanged(t *testing.T) {
	for _, srv := range transports(t) {
		t.Run(srv.Name, func(t *testing.T) {
			p, reg := newPool(t, nil, srv)
			if _, ok := reg.Lookup("added"); ok {
				t.Fatal("added is registered before install")
			}
			if o := call(t, context.Background(), reg, &tool.Config{Timeout: 20 * time.Second}, "install", `{}`); o.Result.Status != llm.StatusSuccess {
				t.Fatalf("install = %s", content(o))
			}
			if o := call(t, context.Background(), reg, nil, "added", `{}`); !strings.Contains(content(o), "I am new") {
				t.Errorf("added = %s", content(o))
			}
			if !slices.ContainsFunc(p.Tools(), func(i mcptool.Info) bool { return i.Name == "added" }) {
				t.Errorf("Tools() lacks added")
			}
		})
	}
}

// TestProgress: the server's progress notifications reach the call's
// watcher. (The server waits until the client has seen them: a
// notification that arrives after the call's result is dropped.)
func TestProgress(t *testing.T) {
	srv, _, ts := httpTestServer(t, "h")
	ts.progressed = make(chan struct{})
	_, reg := newPool(t, nil, srv)
	var got []tool.Progress
	var ids []string
	ctx := tool.WithProgress(context.Background(), func(ctx context.Context, p tool.Progress) {
		ci, _ := tool.CallInfoFrom(ctx)
		got = append(got, p)
		ids = append(ids, ci.ID)
		if p.Progress == 2 {
			close(ts.progressed)
		}
	})
	call(t, ctx, reg, &tool.Config{Timeout: 20 * time.Second}, "slow", `{}`)
	want := []tool.Progress{{Progress: 1, Total: 2, Message: "step 1"}, {Progress: 2, Total: 2, Message: "step 2"}}
	if !slices.Equal(got, want) || !slices.Equal(ids, []string{"call_1", "call_1"}) {
		t.Errorf("progress = %+v for %v, want %+v for call_1", got, ids, want)
	}
}

// TestConnectErrors: a server that cannot be started or does not answer
// fails Connect with its name.
func TestConnectErrors(t *testing.T) {
	mute := mcptool.Server{Name: "mute", Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: map[string]string{"MCPTEST_SERVE": "mute"}}
	for _, tt := range []struct {
		srv  mcptool.Server
		want string
	}{
		{mcptool.Server{Name: "nope", Command: filepath.Join(t.TempDir(), "no-such-server")}, "mcp server nope: cannot connect"},
		{mute, "mcp server mute: no answer to the handshake within 300ms"},
		{mcptool.Server{Name: "down", URL: "http://127.0.0.1:1/mcp"}, "mcp server down: cannot connect"},
	} {
		p, err := mcptool.New([]mcptool.Server{tt.srv}, &mcptool.Options{ConnectTimeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		err = p.Connect(context.Background(), tool.NewRegistry())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Connect(%s) = %v, want %q", tt.srv.Name, err, tt.want)
		}
		_ = p.Close()
	}
}

// TestNewRefuses: unusable descriptions are refused before any I/O.
func TestNewRefuses(t *testing.T) {
	for _, tt := range []struct {
		servers []mcptool.Server
		want    string
	}{
		{[]mcptool.Server{{Name: "a"}}, "give a command"},
		{[]mcptool.Server{{Name: "a", Command: "x", URL: "http://h"}}, "not both"},
		{[]mcptool.Server{{Name: "a b", Command: "x"}}, `name "a b"`},
		{[]mcptool.Server{{Name: "a", URL: "ftp://h"}}, "not an absolute http"},
		{[]mcptool.Server{{Name: "a", Command: "x"}, {Name: "a", Command: "y"}}, "used twice"},
		{[]mcptool.Server{{Name: "a", Command: "x", Overrides: map[string]mcptool.Override{"t": {Idempotency: "level_9"}}}}, "level_9"},
	} {
		_, err := mcptool.New(tt.servers, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want %q", tt.servers, err, tt.want)
		}
	}
}

// TestClosed: a tool called after Close answers with a message.
func TestClosed(t *testing.T) {
	srv, _ := httpServer(t, "h")
	p, reg := newPool(t, nil, srv)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	o := call(t, context.Background(), reg, nil, "echo", `{"text":"x"}`)
	if o.Envelope.Error == nil || !strings.Contains(content(o), "closed") {
		t.Errorf("echo after Close = %s", content(o))
	}
	if errors.Is(p.Close(), context.Canceled) {
		t.Errorf("a second Close failed")
	}
}
