// Package gateway is a reverse proxy that speaks the providers' own wire
// protocols — OpenAI Chat Completions and Responses, Anthropic Messages,
// Gemini generateContent — and checks every request body with the same
// verdict as toolwire check before it reaches the provider. An agent
// written with any framework gets toolwire's guarantees by pointing its
// base URL at the gateway.
//
//	gw, err := gateway.New(&gateway.Config{Policy: gateway.Repair, Store: store})
//	ln, err := net.Listen("tcp", "127.0.0.1:8787")
//	err = gw.Serve(ctx, ln) // until ctx ends
//
// Each route has a [Policy]: [Repair] sends the body [wire.Fix] repairs,
// [Reject] answers a body the provider would refuse with the provider's
// own error shape and status (plus toolwire's explanation and rule IDs),
// [Pass] forwards it unchanged and logs the verdict. Every request it
// repaired or rejected is recorded in the [session.Store] as a session of
// its own ([Record]). API keys and every other header go through
// unchanged and are never logged or stored; answers, server-sent event
// streams included, are copied to the client as they arrive.
//
// docs/gateway.md lists the routes, the headers the gateway adds, the
// error shapes and what a client sees under each policy.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/toolwire/toolwire/internal/listen"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/transcript"
)

// A Policy says what the gateway does with a request body the provider
// would reject.
type Policy string

// The policies.
const (
	// Repair sends the body wire.Fix repairs in its place; a body the
	// repair cannot make acceptable is answered as Reject answers it.
	Repair Policy = "repair"
	// Reject answers the body with the provider's error shape and status
	// (400), with toolwire's explanation and the rule IDs; the provider
	// never sees it.
	Reject Policy = "reject"
	// Pass forwards every body unchanged and only logs the verdict: the
	// provider's own answer reaches the client.
	Pass Policy = "pass"
)

// ParsePolicy returns the policy named s.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case Repair, Reject, Pass:
		return p, nil
	}
	return "", fmt.Errorf("gateway: unknown policy %q (want repair, reject or pass)", s)
}

// The default upstreams: the providers' own APIs.
const (
	DefaultOpenAI    = "https://api.openai.com"
	DefaultAnthropic = "https://api.anthropic.com"
	DefaultGemini    = "https://generativelanguage.googleapis.com"
)

// TokenHeader is the header that carries the gateway's own token
// ([Config.Token]). The provider's key travels in its usual header
// (Authorization, x-api-key, x-goog-api-key, ?key=), which the gateway
// forwards; this one it removes before forwarding.
const TokenHeader = "Toolwire-Token"

// Config configures a [Gateway]. Its zero value is usable: every request
// is repaired and sent to the providers' own APIs, and nothing is
// recorded.
type Config struct {
	// OpenAI, Anthropic and Gemini are the upstreams' base URLs, a scheme,
	// a host and an optional path that the request's path is appended to
	// (a path ending in the version segment the request's path starts
	// with, as "https://api.openai.com/v1", is not doubled). "" means
	// DefaultOpenAI, DefaultAnthropic, DefaultGemini. OpenAI takes both
	// Chat Completions and Responses.
	OpenAI, Anthropic, Gemini string
	// Policy is every route's policy; "" means Repair.
	Policy Policy
	// Routes overrides the policy and turns on shaping per dialect.
	Routes map[transcript.Dialect]Route
	// Repair is the repair policy of [Repair] (nil: transcript's default:
	// unanswered calls get an interrupted result, orphan results become
	// user notes, conflicting duplicates are not guessed at).
	Repair *transcript.Policy
	// Store, when set, keeps a [Record] of every request the gateway
	// repaired or rejected, as a session of its own. nil records nothing.
	Store session.Store
	// Token, when set, must be sent in the Toolwire-Token header of every
	// request; [Gateway.Serve] refuses to listen on anything but a
	// loopback address without one.
	Token string
	// MaxBody bounds a request body, in bytes; a larger one is answered
	// 413 in the provider's shape. 0 means 32 MiB.
	MaxBody int64
	// Remember bounds, in bytes, what the gateway keeps of the requests it
	// judged (their messages as decoded, each long text as two characters;
	// in memory only) to judge the next request of a conversation by what
	// it adds: an agent sends its whole history with each request (see
	// [wire.Judge]). 0 means 64 MiB; a negative value keeps nothing, and
	// every body is judged whole.
	Remember int64
	// UpstreamTimeout bounds the wait for the upstream's response headers
	// (a request not streamed waits for the whole answer); IdleTimeout
	// how long an answer may stay silent while its body is copied. A
	// timeout is answered 504 when nothing was sent yet. 0 means 10
	// minutes and 5 minutes.
	UpstreamTimeout, IdleTimeout time.Duration
	// Transport sends the requests upstream; nil means a transport of its
	// own (proxy from the environment, keep-alive, no compression added).
	Transport http.RoundTripper
	// Logger logs one line per request: route, dialect, verdict, rule
	// IDs, status, duration. Never a header, a query or a body. nil logs
	// nothing.
	Logger *slog.Logger
}

// A Route is one dialect's settings.
type Route struct {
	// Policy is the route's policy; "" means Config.Policy.
	Policy Policy
	// Shape, when set, shapes the large tool results of the route's
	// requests (see [Shaping]); nil leaves them as they are.
	Shape *Shaping
}

// A Gateway is the proxy: an http.Handler. Its methods are safe for
// concurrent use.
type Gateway struct {
	cfg       Config
	upstreams map[transcript.Dialect]*url.URL
	proxy     *httputil.ReverseProxy
	log       *slog.Logger
	token     listen.Token
	browser   *listen.Browser
	mux       *http.ServeMux
	judging   *wire.Judge
}

// New returns a gateway for cfg (nil: the zero Config), or the error that
// makes cfg unusable.
func New(cfg *Config) (*Gateway, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.Policy == "" {
		c.Policy = Repair
	}
	if _, err := ParsePolicy(string(c.Policy)); err != nil {
		return nil, fmt.Errorf("gateway: new: Config.Policy: %w", err)
	}
	for d, r := range c.Routes {
		if _, err := transcript.ParseDialect(string(d)); err != nil {
			return nil, fmt.Errorf("gateway: new: Config.Routes: %w", err)
		}
		if r.Policy != "" {
			if _, err := ParsePolicy(string(r.Policy)); err != nil {
				return nil, fmt.Errorf("gateway: new: Config.Routes[%s].Policy: %w", d, err)
			}
		}
		if r.Shape != nil && (r.Shape.Budget < 0 || r.Shape.MaxReads < 0) {
			return nil, fmt.Errorf("gateway: new: Config.Routes[%s].Shape: a negative budget or MaxReads", d)
		}
	}
	if c.MaxBody == 0 {
		c.MaxBody = 32 << 20
	}
	if c.UpstreamTimeout == 0 {
		c.UpstreamTimeout = 10 * time.Minute
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 5 * time.Minute
	}
	if c.MaxBody < 0 || c.UpstreamTimeout < 0 || c.IdleTimeout < 0 {
		return nil, errors.New("gateway: new: a limit or a timeout of Config is negative")
	}
	if c.Remember == 0 {
		c.Remember = 64 << 20
	}
	g := &Gateway{cfg: c, log: c.Logger, upstreams: map[transcript.Dialect]*url.URL{}, judging: wire.NewJudge(int(c.Remember))}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.token = listen.NewToken(c.Token)
	g.browser, _ = listen.NewBrowser(c.Token != "", nil) // no origin to trust: no error
	for _, u := range []struct {
		name, raw, def string
		dialects       []transcript.Dialect
	}{
		{"OpenAI", c.OpenAI, DefaultOpenAI, []transcript.Dialect{transcript.OpenAIChat, transcript.OpenAIResponses}},
		{"Anthropic", c.Anthropic, DefaultAnthropic, []transcript.Dialect{transcript.Anthropic}},
		{"Gemini", c.Gemini, DefaultGemini, []transcript.Dialect{transcript.Gemini}},
	} {
		base, err := ParseUpstream(orDefault(u.raw, u.def))
		if err != nil {
			return nil, fmt.Errorf("gateway: new: Config.%s: %w", u.name, err)
		}
		for _, d := range u.dialects {
			g.upstreams[d] = base
		}
	}
	transport := c.Transport
	if transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = c.UpstreamTimeout
		t.DisableCompression = true // the client's Accept-Encoding goes through as it is
		t.MaxIdleConnsPerHost = 64
		transport = t
	}
	g.proxy = &httputil.ReverseProxy{
		Rewrite:        g.rewrite,
		Transport:      transport,
		FlushInterval:  -1, // every write of the upstream is flushed at once
		ModifyResponse: g.modifyResponse,
		ErrorHandler:   g.upstreamError,
		ErrorLog:       slog.NewLogLogger(g.log.Handler(), slog.LevelWarn),
	}
	g.mux = g.routes()
	return g, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ParseUpstream parses an upstream's base URL: http or https, a host, an
// optional path; no query, fragment or user information (put a key in
// the client, not in the gateway's flags).
func ParseUpstream(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the upstream %q is not an http:// or https:// URL with a host, such as %s", raw, DefaultOpenAI)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("the upstream %q has a user, a query or a fragment: give the base URL alone (keys travel in the client's headers)", redactURL(u))
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// redactURL is u without its user information.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	return c.String()
}

// policy returns the policy of dialect d's route.
func (g *Gateway) policy(d transcript.Dialect) Policy {
	if r, ok := g.cfg.Routes[d]; ok && r.Policy != "" {
		return r.Policy
	}
	return g.cfg.Policy
}

// ServeHTTP serves a request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.mux.ServeHTTP(w, r) }

// authorized reports whether r carries the gateway's token (when it has
// one), compared in constant time.
func (g *Gateway) authorized(r *http.Request) bool { return g.token.Match(r.Header.Get(TokenHeader)) }

// Serve answers the connections of ln until ctx ends, then shuts down:
// it stops accepting, and lets the requests under way (streams included)
// finish for up to grace before it closes their connections. It refuses
// a listener that is not on a loopback address when the gateway has no
// token.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	if err := listen.CheckAddr(ln.Addr().String(), g.cfg.Token); err != nil {
		ln.Close()
		return fmt.Errorf("gateway: %w", err)
	}
	hs := &http.Server{
		Handler:           g,
		ReadHeaderTimeout: 10 * time.Second,
		// No ReadTimeout or WriteTimeout: a body of MaxBody may come
		// slowly and a streamed answer may last minutes; the upstream's
		// timeouts bound a request.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(g.log.Handler(), slog.LevelWarn),
	}
	failed := make(chan error, 1)
	go func() { failed <- hs.Serve(ln) }()
	select {
	case err := <-failed:
		return fmt.Errorf("gateway: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	<-failed
	return err
}
