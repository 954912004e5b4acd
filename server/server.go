// Package server is toolwire's HTTP API: it runs agents of a directory
// as stored sessions, streams each run's events as server-sent events
// that a client can resume after a reconnect, takes a person's decisions
// on calls that wait for approval, and shows stored sessions, their
// turns, the request each model call sent and the results kept behind a
// ref. It is built on net/http alone; `toolwire serve` is its command.
//
//	srv, err := server.New(&server.Config{Store: store, Agents: "agents"})
//	ln, err := net.Listen("tcp", "127.0.0.1:8080")
//	err = srv.Serve(ctx, ln) // until ctx ends, then a graceful shutdown
//
// docs/api.md lists the routes, their bodies and statuses, and the
// event types.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/internal/listen"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

// Config configures a [Server]. Store and Agents are required; a zero
// field of the others means the default it names.
type Config struct {
	// Store keeps the sessions. Listing, showing and deleting sessions
	// and paging offloaded results need its optional capabilities,
	// [session.Catalog] and [session.Results], which every store of this
	// module has; New refuses a store without a Catalog.
	Store session.Store
	// Agents is the directory of the agent files clients may run, named
	// by their file name without the extension (".yaml", ".yml" or
	// ".json"). A client names an agent, never a path.
	Agents string
	// Build opens an agent file's model and configuration: what toolwire
	// run does (API keys, a recorded run when there is no key). nil means
	// the file's own Build with no options. The server adds its store and
	// its hook to the configuration.
	Build func(def *agentfile.Definition) (llm.Model, *toolwire.Config, error)
	// Token, when set, is the bearer token every /v1 request must carry
	// (Authorization: Bearer TOKEN). [Server.Serve] refuses to listen on
	// anything but a loopback address without one.
	Token string
	// MaxRuns bounds the runs going on at once; one more is answered 429.
	// 0 means 32.
	MaxRuns int
	// MaxBody bounds a request body, in bytes; a larger one is answered
	// 413. 0 means 1 MiB.
	MaxBody int64
	// Grace is how long a shutdown lets runs finish the effect under way
	// (a model call, the tool calls in flight) before it cancels them,
	// as a crash would stop them. 0 means 10 seconds.
	Grace time.Duration
	// ReadTimeout, WriteTimeout and IdleTimeout are the connections'
	// (http.Server's); 0 means 30 seconds, 60 seconds and 2 minutes. An
	// event stream extends its write deadline before every write.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// Heartbeat is how often an idle event stream sends a comment line;
	// 0 means 15 seconds.
	Heartbeat time.Duration
	// AllowOrigins are the origins allowed to call the API from a
	// browser page of another origin (CORS); none by default. "*" allows
	// every origin.
	AllowOrigins []string
	// UI, when set, is served at / (the web viewer); /v1 is the API.
	UI fs.FS
	// Logger logs requests that failed inside the server and runs that
	// stopped on an error; nil logs nothing. It never logs the token.
	Logger *slog.Logger
}

// A Server serves the API. Its methods are safe for concurrent use.
type Server struct {
	cfg     Config
	catalog session.Catalog
	results session.Results // nil when the store keeps none
	log     *slog.Logger
	agents  agents
	runs    runs
	hubs    hubs
	token   listen.Token

	base     context.Context // the runs' context, cancelled at the end of a shutdown
	cancel   context.CancelFunc
	drain    chan struct{} // closed when runs are to stop at their next step
	stopping chan struct{} // closed when event streams are to end
	shutOnce sync.Once
	stopOnce sync.Once

	handler http.Handler
}

// New returns a server for cfg, or the error that makes cfg unusable.
func New(cfg *Config) (*Server, error) {
	if cfg == nil || cfg.Store == nil {
		return nil, errors.New("server: new: Config.Store is required")
	}
	if cfg.Agents == "" {
		return nil, errors.New("server: new: Config.Agents, the agents directory, is required")
	}
	c := *cfg
	if c.MaxRuns == 0 {
		c.MaxRuns = 32
	}
	if c.MaxBody == 0 {
		c.MaxBody = 1 << 20
	}
	if c.Grace == 0 {
		c.Grace = 10 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 60 * time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 2 * time.Minute
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = 15 * time.Second
	}
	if c.MaxRuns < 0 || c.MaxBody < 0 || c.Grace < 0 || c.ReadTimeout < 0 || c.WriteTimeout < 0 || c.IdleTimeout < 0 || c.Heartbeat < 0 {
		return nil, errors.New("server: new: a limit or a timeout of Config is negative")
	}
	catalog, ok := c.Store.(session.Catalog)
	if !ok {
		return nil, errors.New("server: new: the store cannot list sessions (it is no session.Catalog)")
	}
	s := &Server{cfg: c, catalog: catalog, log: c.Logger, drain: make(chan struct{}), stopping: make(chan struct{})}
	s.results, _ = c.Store.(session.Results)
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.token = listen.NewToken(c.Token)
	s.base, s.cancel = context.WithCancel(context.Background())
	s.agents = agents{dir: c.Agents, build: c.Build, hook: toolwire.HookFunc(s.observe), store: c.Store}
	s.runs.slots = make(chan struct{}, c.MaxRuns)
	var err error
	if s.handler, err = s.browserGuard(s.routes()); err != nil {
		return nil, err
	}
	return s, nil
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// A handler is a route's function: it writes its answer, or returns the
// error to answer.
type handler func(w http.ResponseWriter, r *http.Request) error

// routes returns the server's handler: the API under /v1, the viewer at
// /, each behind the token and CORS checks.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := map[string]map[string]handler{
		"/v1/agents":                             {"GET": s.listAgents},
		"/v1/sessions":                           {"GET": s.listSessions, "POST": s.createSession},
		"/v1/sessions/{id}":                      {"GET": s.showSession, "DELETE": s.deleteSession},
		"/v1/sessions/{id}/messages":             {"POST": s.postMessage},
		"/v1/sessions/{id}/resume":               {"POST": s.resumeSession},
		"/v1/sessions/{id}/events":               {"GET": s.streamEvents},
		"/v1/sessions/{id}/approvals":            {"GET": s.listApprovals, "POST": s.decide},
		"/v1/sessions/{id}/turns/{turn}/request": {"GET": s.turnRequest},
		"/v1/sessions/{id}/results/{ref}":        {"GET": s.pageResult},
	}
	for path, methods := range api {
		allow := slices.Sorted(maps.Keys(methods))
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			h, ok := methods[r.Method]
			if !ok && r.Method == http.MethodHead {
				h, ok = methods[http.MethodGet]
			}
			if !ok {
				w.Header().Set("Allow", strings.Join(allow, ", "))
				s.writeError(w, r, errorf(http.StatusMethodNotAllowed, codeMethod, "%s is not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allow, ", ")))
				return
			}
			if err := h(w, r); err != nil {
				s.writeError(w, r, err)
			}
		})
	}
	mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errorf(http.StatusNotFound, codeNotFound, "no route %s; docs/api.md lists them", cut(r.URL.Path, 200)))
	})
	if s.cfg.UI != nil {
		files := http.FileServerFS(s.cfg.UI)
		mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The viewer's pages load nothing from elsewhere and run no
			// inline script: what a tool returned is shown as text.
			h := w.Header()
			h.Set("Content-Security-Policy", uiPolicy)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			files.ServeHTTP(w, r)
		}))
	}
	return s.guard(mux)
}

// uiPolicy is the Content-Security-Policy of the viewer's files: its own
// origin only, for scripts, styles, images, fonts and API calls.
const uiPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// guard checks the token of /v1 requests and answers CORS.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api := strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == "/v1"
		if origin := r.Header.Get("Origin"); origin != "" && s.allowed(origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if api && s.cfg.Token != "" && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolwire"`)
			s.writeError(w, r, errorf(http.StatusUnauthorized, codeUnauthorized, "this server needs its token: send Authorization: Bearer TOKEN"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries the token, compared in constant
// time.
func (s *Server) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && s.token.Match(got)
}

// allowed reports whether a page of origin may call the API.
func (s *Server) allowed(origin string) bool {
	for _, o := range s.cfg.AllowOrigins {
		if o == "*" || o == origin {
			return true
		}
	}
	return false
}

// CheckAddr returns an error when a server with token (maybe "") must
// not listen on addr, a host:port: without a token, only a loopback
// address (127.0.0.0/8, ::1, localhost) is allowed. An empty host, as
// in ":8080", listens on every interface.
func CheckAddr(addr, token string) error {
	if err := listen.CheckAddr(addr, token); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// Serve answers the connections of ln until ctx ends, then shuts down
// gracefully ([Server.Shutdown], bounded by Config.Grace and as long
// again for the connections) and returns nil; or it returns the error
// that stopped it. It refuses a listener that is not on a loopback
// address when the server has no token.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := CheckAddr(ln.Addr().String(), s.cfg.Token); err != nil {
		ln.Close()
		return err
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: min(s.cfg.ReadTimeout, 10*time.Second),
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	failed := make(chan error, 1)
	go func() { failed <- hs.Serve(ln) }()
	select {
	case err := <-failed:
		s.Shutdown(context.Background())
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*s.cfg.Grace+time.Second)
	defer cancel()
	s.Shutdown(sctx)
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	<-failed
	return err
}

// Shutdown stops the server's runs and streams: no new run starts
// (503); each run goes on to the end of the effect under way — a model
// call, the tool calls in flight — and stops there, its state committed,
// within Config.Grace; a run still going after that is cancelled, which
// records a call cut short as the crash-recovery rules say (interrupted,
// or left to run again by its idempotency level). Every session stays
// resumable. Then the event streams end. Shutdown returns when every run
// has stopped, or ctx ends. It does not close listeners: [Server.Serve]
// does, or the caller's http.Server.
func (s *Server) Shutdown(ctx context.Context) {
	s.shutOnce.Do(func() {
		s.runs.mu.Lock()
		s.runs.closing = true
		close(s.drain)
		s.runs.mu.Unlock()
	})
	done := make(chan struct{})
	go func() { s.runs.wg.Wait(); close(done) }()
	grace := time.NewTimer(s.cfg.Grace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		s.cancel()
	case <-ctx.Done():
		s.cancel()
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.cancel()
	s.agents.mu.Lock()
	built := make([]*agentEntry, 0, len(s.agents.built))
	for _, e := range s.agents.built {
		built = append(built, e)
	}
	s.agents.mu.Unlock()
	for _, e := range built {
		_ = e.agent.Close(ctx)
	}
	s.stopOnce.Do(func() { close(s.stopping) })
}
