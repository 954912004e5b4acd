// Package mcptool makes the tools of MCP servers (the Model Context
// Protocol, on the official Go SDK) tools of a [tool.Registry]: a [Pool]
// connects to each server, over stdio (a command it starts) or streamable
// HTTP (a URL), lists its tools, registers one [tool.Tool] per MCP tool,
// and follows the server's notifications/tools/list_changed, so that
// tools added while an agent runs are offered from its next turn.
//
// Each MCP tool's contract is mapped onto a [tool.Spec]: its inputSchema
// is the parameters, its outputSchema the return schema (which the
// executor validates), and its annotations, untrusted hints, are the
// contract's defaults — readOnlyHint gives level_2 (retried freely),
// idempotentHint level_1, destructiveHint approval — that the agent's
// definition overrides ([Override]). What a call returns is mapped by
// [Envelope]. A server that crashes, hangs, breaks the protocol or
// returns too much gives the model a tool message, never a Go error that
// ends a run; a server that stopped is started again on its next call,
// after a backoff that grows while it keeps failing.
//
// Only this package, agentfile and cmd/toolwire import the MCP SDK.
package mcptool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/toolwire/toolwire/tool"
)

// Server describes one MCP server: a command to start (stdio) or a URL
// (streamable HTTP), never both.
type Server struct {
	// Name names the server in tool sources and messages; letters,
	// digits, '_' and '-', unique in a pool.
	Name string
	// Command and Args start a stdio server, with Env added to the
	// environment it inherits ([Options].Environ) and Dir as its working
	// directory ("" is the program's).
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// URL is a streamable HTTP server's endpoint; Headers are sent with
	// every request (an Authorization header, say).
	URL     string
	Headers map[string]string
	// Tools, when not nil, are the only tools of the server offered, by
	// their MCP names; a name the server does not have is ignored (it
	// may come later, with a list change).
	Tools []string
	// Overrides says, per MCP tool name, what the agent's definition
	// says of a tool over the server's annotations.
	Overrides map[string]Override
}

// Override is what an agent's definition says of one MCP tool, over the
// server's annotations, which are hints a server may get wrong. A zero
// field keeps what the annotations say.
type Override struct {
	// Idempotency replaces the level the annotations give.
	Idempotency tool.Idempotency
	// Approval, when set, says whether each call needs a person's
	// approval.
	Approval *bool
	// Timeout bounds one attempt of a call; 0 keeps the executor's.
	Timeout time.Duration
}

// Options configures a [Pool]. A nil *Options, or a zero field, means the
// documented default.
type Options struct {
	// ConnectTimeout bounds connecting to a server: starting it, the
	// protocol's handshake and the first list of its tools. Default 20s.
	ConnectTimeout time.Duration
	// MaxResultBytes bounds what one call may return (its text, binary
	// data and structured content together); a larger result is a tool
	// message that says so. Over HTTP it also bounds each response body.
	// Default 4 MiB.
	MaxResultBytes int64
	// RestartBackoff is the wait before a server that failed again right
	// after it was restarted is started once more; it doubles with each
	// failure in a row, up to MaxRestartBackoff. The first restart is
	// immediate. Defaults 1s and 1m.
	RestartBackoff, MaxRestartBackoff time.Duration
	// HTTPClient sends the requests to HTTP servers; nil means a client
	// of the pool's own.
	HTTPClient *http.Client
	// Environ is the environment ("KEY=value") that stdio servers start
	// with, before their own Env; nil means an empty one. A program
	// passes the few variables a server needs (PATH, HOME), not its
	// secrets.
	Environ []string
	// Stderr receives what stdio servers write to standard error; nil
	// discards it.
	Stderr io.Writer
	// Logger receives what the model must not see: tools that cannot be
	// offered, restarts. nil discards it.
	Logger *slog.Logger
	// Version is the client version told to servers; "" means "dev".
	Version string
}

// withDefaults returns a copy of o with every zero field set.
func (o *Options) withDefaults() *Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.ConnectTimeout <= 0 {
		out.ConnectTimeout = 20 * time.Second
	}
	if out.MaxResultBytes <= 0 {
		out.MaxResultBytes = 4 << 20
	}
	if out.RestartBackoff <= 0 {
		out.RestartBackoff = time.Second
	}
	if out.MaxRestartBackoff <= 0 {
		out.MaxRestartBackoff = time.Minute
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	out.Version = cmp.Or(out.Version, "dev")
	return &out
}

// A Pool holds the connections to a set of MCP servers and the tools
// they offer. It is safe for concurrent use. Close it when done: it
// stops the servers it started.
type Pool struct {
	opts    *Options
	conns   []*conn
	client  *http.Client // for HTTP servers
	own     bool         // client is the pool's own
	ctx     context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	closed  bool
	pending sync.WaitGroup // refreshes under way
}

// Tool sources, as [Info.Source] names them.
const sourcePrefix = "mcp:"

var serverName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Validate reports what is wrong with a server's description, every
// problem joined.
func (s Server) Validate() error {
	var errs []error
	if !serverName.MatchString(s.Name) {
		errs = append(errs, fmt.Errorf("name %q: use 1 to 64 letters, digits, '_' or '-'", s.Name))
	}
	switch {
	case s.Command == "" && s.URL == "":
		errs = append(errs, errors.New("give a command (a stdio server) or a url (a streamable HTTP server)"))
	case s.Command != "" && s.URL != "":
		errs = append(errs, errors.New("give a command or a url, not both"))
	case s.URL != "":
		if err := checkURL(s.URL); err != nil {
			errs = append(errs, err)
		}
		if len(s.Args) > 0 || len(s.Env) > 0 || s.Dir != "" {
			errs = append(errs, errors.New("args, env and dir are for a command, not a url"))
		}
	default:
		if len(s.Headers) > 0 {
			errs = append(errs, errors.New("headers are for a url, not a command"))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			errs = append(errs, fmt.Errorf("env %q is not a variable name", k))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if k == "" || strings.ContainsAny(k, " :\r\n\t") {
			errs = append(errs, fmt.Errorf("header %q is not a valid header name", k))
		}
		if strings.ContainsAny(s.Headers[k], "\r\n") {
			errs = append(errs, fmt.Errorf("header %s: the value contains a line break", k))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Overrides)) {
		o := s.Overrides[name]
		switch o.Idempotency {
		case "", tool.Level0, tool.Level1, tool.Level2:
		default:
			errs = append(errs, fmt.Errorf("tool %s: idempotency %q is not level_0, level_1 or level_2", name, o.Idempotency))
		}
		if o.Timeout < 0 {
			errs = append(errs, fmt.Errorf("tool %s: the timeout is negative", name))
		}
	}
	return errors.Join(errs...)
}

// New returns a pool of the servers, not yet connected ([Pool.Connect]).
// It fails when a server's description cannot be used, or two servers
// share a name.
func New(servers []Server, opts *Options) (*Pool, error) {
	p := &Pool{opts: opts.withDefaults()}
	seen := map[string]bool{}
	var errs []error
	for _, s := range servers {
		if err := s.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: %w", s.Name, err))
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("mcp server %s: the name is used twice", s.Name))
		}
		seen[s.Name] = true
		p.conns = append(p.conns, &conn{p: p, cfg: s, tools: map[string]*mcpTool{}})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("mcptool: %w", err)
	}
	p.client = p.opts.HTTPClient
	if p.client == nil {
		p.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		p.own = true
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// Connect connects to every server at once, each within
// [Options].ConnectTimeout, lists its tools and adds them to reg, which
// the pool then keeps up to date as the servers' tool lists change. It
// fails when a server cannot be reached or a tool's name is taken in
// reg; the error names the server, and the servers reached stay
// connected (Close stops them).
func (p *Pool) Connect(ctx context.Context, reg *tool.Registry) error {
	var g errgroup.Group
	errs := make([]error, len(p.conns))
	for i, c := range p.conns {
		g.Go(func() error {
			errs[i] = c.connect(ctx, reg)
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}

// An Info describes one tool a pool offers.
type Info struct {
	// Name is the tool's name for the model; MCPName its name on the
	// server, which differs when the server's is not a name every
	// provider accepts.
	Name, MCPName string
	// Server is the server's name; Source is "mcp:" and that name.
	Server, Source string
	Spec           tool.Spec
}

// Tools returns the tools the pool offers now, by server in the order
// the servers were given, each server's in the order it listed them.
func (p *Pool) Tools() []Info {
	var out []Info
	for _, c := range p.conns {
		c.mu.Lock()
		for _, t := range c.order {
			out = append(out, Info{Name: t.spec.Name, MCPName: t.mcpName, Server: c.cfg.Name, Source: sourcePrefix + c.cfg.Name, Spec: t.spec})
		}
		c.mu.Unlock()
	}
	return out
}

// Skipped returns, per server, why a tool it lists is not offered (an
// unusable schema, a name taken), "server/tool: reason" in order.
func (p *Pool) Skipped() []string {
	var out []string
	for _, c := range p.conns {
		c.mu.Lock()
		out = append(out, c.skipped...)
		c.mu.Unlock()
	}
	return out
}

// Close stops every server the pool started and ends every connection;
// a tool of the pool called after Close answers with an error message.
// It waits for tool-list refreshes under way.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	var errs []error
	for _, c := range p.conns {
		if err := c.close(); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: %w", c.cfg.Name, err))
		}
	}
	p.pending.Wait()
	if p.own {
		p.client.CloseIdleConnections()
	}
	return errors.Join(errs...)
}

// spawn runs f in a goroutine that Close waits for; it reports false,
// and does not run f, once the pool is closed.
func (p *Pool) spawn(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.pending.Add(1)
	go func() {
		defer p.pending.Done()
		f()
	}()
	return true
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
