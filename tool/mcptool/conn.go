package mcptool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/tool"
)

// conn is one server: its session while connected, its tools, and the
// state of its restarts.
type conn struct {
	p   *Pool
	cfg Server

	dialMu sync.Mutex  // held while a connection is made
	client *mcp.Client // made once, under dialMu
	stderr tail        // the end of a stdio server's standard error

	mu       sync.Mutex
	cs       *mcp.ClientSession // nil while not connected
	failures int                // failures in a row since the last good call
	retryAt  time.Time          // no new connection before then
	cause    string             // why the last connection ended
	reg      *tool.Registry     // where the tools are registered
	tools    map[string]*mcpTool
	order    []*mcpTool
	skipped  []string
	refresh  chan struct{} // closed when the refresh under way ends
	again    bool          // another list change came during the refresh
	calls    map[string]*watch
	next     int // for progress tokens
	closed   bool
}

// A watch is a call that asked for progress notifications.
type watch struct {
	mu   sync.Mutex
	ctx  context.Context // the call's, with its CallInfo
	done bool
}

// errBackoff says that a server failed and is not started again yet.
type errBackoff struct {
	wait  time.Duration
	cause string
}

func (e *errBackoff) Error() string {
	return fmt.Sprintf("it stopped (%s) and is started again in %v", e.cause, e.wait.Round(100*time.Millisecond))
}

// connect connects for Pool.Connect: the first connection, whose tools
// go into reg.
func (c *conn) connect(ctx context.Context, reg *tool.Registry) error {
	c.mu.Lock()
	c.reg = reg
	c.mu.Unlock()
	cs, err := c.session(ctx)
	if err != nil {
		return fmt.Errorf("mcp server %s: %w", c.cfg.Name, err)
	}
	if err := c.list(ctx, cs, true); err != nil {
		return fmt.Errorf("mcp server %s: %w", c.cfg.Name, err)
	}
	return nil
}

// session returns the server's session, connecting when there is none
// (the first call, or the first after the server stopped).
func (c *conn) session(ctx context.Context) (*mcp.ClientSession, error) {
	c.dialMu.Lock()
	defer c.dialMu.Unlock()
	c.mu.Lock()
	cs, closed, wait, cause, restart := c.cs, c.closed, time.Until(c.retryAt), c.cause, c.failures > 0
	c.mu.Unlock()
	switch {
	case closed:
		return nil, errors.New("the connection is closed")
	case cs != nil:
		return cs, nil
	case wait > 0:
		return nil, &errBackoff{wait: wait, cause: cause}
	}
	// Without c.mu: the server's notifications during the handshake take
	// it.
	cs, err := c.dial(ctx)
	c.mu.Lock()
	if err != nil {
		c.failed(err.Error())
		c.mu.Unlock()
		return nil, err
	}
	if c.closed {
		c.mu.Unlock()
		_ = cs.Close()
		return nil, errors.New("the connection is closed")
	}
	c.cs = cs
	c.mu.Unlock()
	if restart {
		c.p.opts.Logger.Info("mcp server restarted", "server", c.cfg.Name, "after", cause)
		// Its tools may have changed while it was down.
		c.p.spawn(c.relist)
	}
	return cs, nil
}

// failed records a failure: the next connection waits for the backoff.
// c.mu is held.
func (c *conn) failed(cause string) {
	c.failures++
	c.cause = cause
	wait := time.Duration(0)
	if c.failures > 1 {
		wait = c.p.opts.RestartBackoff
		for i := 2; i < c.failures && wait < c.p.opts.MaxRestartBackoff; i++ {
			wait *= 2
		}
		wait = min(wait, c.p.opts.MaxRestartBackoff)
	}
	c.retryAt = time.Now().Add(wait)
}

// dial starts or reaches the server and runs the handshake, within the
// connect timeout. c.dialMu is held.
func (c *conn) dial(ctx context.Context) (*mcp.ClientSession, error) {
	if c.client == nil {
		c.client = mcp.NewClient(&mcp.Implementation{Name: "toolwire", Version: c.p.opts.Version}, &mcp.ClientOptions{
			ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { c.listChanged() },
			ProgressNotificationHandler: c.progress,
		})
	}
	var t mcp.Transport
	if c.cfg.URL != "" {
		t = &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: c.httpClient(), MaxRetries: -1}
	} else {
		cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
		cmd.Env = slices.Clone(c.p.opts.Environ)
		for _, k := range slices.Sorted(maps.Keys(c.cfg.Env)) {
			cmd.Env = append(cmd.Env, k+"="+c.cfg.Env[k])
		}
		if cmd.Env == nil {
			cmd.Env = []string{} // nil would inherit the program's environment
		}
		cmd.Dir = c.cfg.Dir
		c.stderr.reset()
		cmd.Stderr = &c.stderr
		if c.p.opts.Stderr != nil {
			cmd.Stderr = io.MultiWriter(c.p.opts.Stderr, &c.stderr)
		}
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	ctx, cancel := context.WithTimeout(ctx, c.p.opts.ConnectTimeout)
	defer cancel()
	cs, err := c.client.Connect(ctx, t, nil)
	if err != nil {
		said := ""
		if s := c.stderr.last(); s != "" {
			said = fmt.Sprintf(" (its standard error ends: %q)", s)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer to the handshake within %v%s", c.p.opts.ConnectTimeout, said)
		}
		return nil, fmt.Errorf("cannot connect: %w%s", err, said)
	}
	return cs, nil
}

// httpClient is the pool's client with the server's headers and the
// response size limit.
func (c *conn) httpClient() *http.Client {
	base := c.p.client
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cl := *base
	// Room for base64 and the envelope of the protocol: the result's own
	// limit applies to what is decoded.
	cl.Transport = &headerTransport{next: rt, headers: c.cfg.Headers, limit: c.p.opts.MaxResultBytes*2 + 1<<16}
	return &cl
}

// headerTransport adds a server's headers to every request and bounds
// every response body.
type headerTransport struct {
	next    http.RoundTripper
	headers map[string]string
	limit   int64
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{r: resp.Body, left: h.limit}
	return resp, nil
}

// limitedBody fails a body that goes on past its limit.
type limitedBody struct {
	r    io.ReadCloser
	left int64
}

var errTooLarge = errors.New("the server sent a response larger than the result limit allows")

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }

// dropped ends cs after it failed (the server crashed, the connection
// broke, the server broke the protocol): the next call starts a new one.
func (c *conn) dropped(cs *mcp.ClientSession, cause string) {
	c.mu.Lock()
	if c.cs != cs {
		c.mu.Unlock()
		return // someone else saw it first
	}
	c.cs = nil
	c.failed(cause)
	c.mu.Unlock()
	c.p.opts.Logger.Warn("mcp server stopped; it is started again on its next call", "server", c.cfg.Name, "cause", cause)
	_ = cs.Close()
}

// succeeded resets the backoff after a good call.
func (c *conn) succeeded() {
	c.mu.Lock()
	c.failures = 0
	c.mu.Unlock()
}

// listChanged follows notifications/tools/list_changed: it lists the
// tools again, once more if another change comes meanwhile.
func (c *conn) listChanged() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refresh != nil {
		c.again = true
		return
	}
	ch := make(chan struct{})
	if !c.p.spawn(func() {
		for {
			c.relist()
			c.mu.Lock()
			if !c.again {
				c.refresh = nil
				close(ch)
				c.mu.Unlock()
				return
			}
			c.again = false
			c.mu.Unlock()
		}
	}) {
		return
	}
	c.refresh = ch
}

// settle waits for the refresh under way, if any: a call that made the
// server change its tools returns once the change is registered, so that
// the next turn offers them.
func (c *conn) settle(ctx context.Context) {
	c.mu.Lock()
	ch := c.refresh
	c.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// relist lists the tools again, with the pool's context.
func (c *conn) relist() {
	c.mu.Lock()
	cs := c.cs
	c.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.p.ctx, c.p.opts.ConnectTimeout)
	defer cancel()
	if err := c.list(ctx, cs, false); err != nil && c.p.ctx.Err() == nil {
		c.p.opts.Logger.Warn("mcp server's tools could not be listed again; the previous list stays", "server", c.cfg.Name, "err", err)
	}
}

// list reads every page of the server's tools and registers them. first
// says it is the first list: a name taken by another tool is then an
// error; later it is logged and the tool skipped.
func (c *conn) list(ctx context.Context, cs *mcp.ClientSession, first bool) error {
	var listed []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("listing the tools took longer than %v", c.p.opts.ConnectTimeout)
			}
			return fmt.Errorf("cannot list the tools: %w", err)
		}
		if t != nil {
			listed = append(listed, t)
		}
	}
	return c.install(listed, first)
}

// install makes the registry hold the tools listed.
func (c *conn) install(listed []*mcp.Tool, first bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.reg == nil {
		return nil
	}
	var allow map[string]bool
	if c.cfg.Tools != nil {
		allow = map[string]bool{}
		for _, n := range c.cfg.Tools {
			allow[n] = true
		}
	}
	next := map[string]*mcpTool{}
	var order []*mcpTool
	var skipped []string
	var errs []error
	for _, mt := range listed {
		if allow != nil && !allow[mt.Name] {
			continue
		}
		t, err := newTool(c, mt)
		if err != nil {
			skipped = append(skipped, c.cfg.Name+"/"+oneLine(mt.Name, 80)+": "+err.Error())
			continue
		}
		if _, dup := next[t.spec.Name]; dup {
			skipped = append(skipped, c.cfg.Name+"/"+oneLine(mt.Name, 80)+": another of the server's tools has the name "+t.spec.Name)
			continue
		}
		next[t.spec.Name] = t
		order = append(order, t)
	}
	// Remove the tools that went or changed, then add the new ones.
	for name, old := range c.tools {
		if t, ok := next[name]; !ok || t.fingerprint != old.fingerprint {
			c.reg.Remove(name)
			delete(c.tools, name)
		}
	}
	kept := order[:0]
	for _, t := range order {
		if old, ok := c.tools[t.spec.Name]; ok {
			kept = append(kept, old)
			continue
		}
		if err := c.reg.Add(t); err != nil {
			msg := c.cfg.Name + "/" + t.mcpName + ": " + err.Error()
			if errors.Is(err, tool.ErrDuplicateTool) {
				msg = c.cfg.Name + "/" + t.mcpName + ": the name " + t.spec.Name + " is taken by another tool"
				if first {
					errs = append(errs, fmt.Errorf("tool %s: the name is taken by another tool of the agent; leave it out with the server's tools allow-list", t.spec.Name))
				}
			}
			skipped = append(skipped, msg)
			continue
		}
		c.tools[t.spec.Name] = t
		kept = append(kept, t)
	}
	c.order, c.skipped = kept, skipped
	for _, s := range skipped {
		c.p.opts.Logger.Warn("mcp tool not offered", "tool", s)
	}
	return errors.Join(errs...)
}

// progress delivers a progress notification to the call that asked for
// it.
func (c *conn) progress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	c.mu.Lock()
	w := c.calls[token]
	c.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		tool.ReportProgress(w.ctx, tool.Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: oneLine(req.Params.Message, 200)})
	}
}

// watch registers a call for progress notifications; the function it
// returns ends the watch.
func (c *conn) watch(ctx context.Context) (string, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	token := fmt.Sprintf("toolwire-%d", c.next)
	w := &watch{ctx: ctx}
	if c.calls == nil {
		c.calls = map[string]*watch{}
	}
	c.calls[token] = w
	return token, func() {
		c.mu.Lock()
		delete(c.calls, token)
		c.mu.Unlock()
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	}
}

// close ends the session and stops the server.
func (c *conn) close() error {
	c.mu.Lock()
	c.closed = true
	cs := c.cs
	c.cs = nil
	c.mu.Unlock()
	if cs == nil {
		return nil
	}
	err := cs.Close()
	if errors.Is(err, mcp.ErrConnectionClosed) {
		err = nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil // a server that exits non-zero once its input closes
	}
	return err
}

// checkURL says whether u is an absolute http or https URL.
func checkURL(u string) error {
	pu, err := url.Parse(u)
	switch {
	case err != nil:
		return fmt.Errorf("url %q does not parse: %v", u, err)
	case pu.Scheme != "http" && pu.Scheme != "https":
		return fmt.Errorf("url %q is not an absolute http or https URL", u)
	case pu.Host == "":
		return fmt.Errorf("url %q has no host", u)
	}
	return nil
}

// tail keeps the end of what a server writes to standard error, for the
// message of a server that does not start.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}

// last returns the last non-empty line written, at most 300 bytes.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return oneLine(lines[len(lines)-1], 300)
}
