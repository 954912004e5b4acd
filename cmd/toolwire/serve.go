package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/server"
	"github.com/toolwire/toolwire/session/dsn"
	"github.com/toolwire/toolwire/viewer"
)

// defaultAddr is where toolwire serve listens without --addr.
const defaultAddr = "127.0.0.1:8080"

func newServeCmd(e *env) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--db PATH|postgres://…] [--agents DIR] [--token TOKEN]",
		Short: "Serve the HTTP API: run agents as sessions, stream their events, take approvals",
		Long: `serve runs the HTTP API of docs/api.md: clients start sessions of the
agents in --agents (each agent file, named by its file name without
.yaml, .yml or .json), post messages, follow each run's events as
server-sent events (resumed with Last-Event-ID after a reconnect),
approve, reject or edit the calls that wait for a person, and read
stored sessions, the request each turn sent and the results kept behind
a ref. Agents open their models as toolwire run does: API keys from
OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, and an agent file's
recorded run when its provider has no key. It prints the URL to open:
the web trace viewer (docs/viewer.md), where a person starts sessions,
watches each turn's tool messages arrive, and decides waiting calls.
MCP servers the agent files name are started as toolwire run starts
them, and OTEL_* variables turn on OpenTelemetry as for run.

Sessions are saved in --db, as toolwire run saves them: toolwire
sessions show and toolwire resume read the same ones.

A bearer token (--token, or TOOLWIRE_TOKEN, which keeps it out of the
process list) is required on every /v1 request when it is set, and
serve refuses to listen on anything but a loopback address without one.
Ctrl-C (or SIGTERM) shuts down gracefully: runs finish the tool calls in
flight and stop before their next step, within 10 seconds; calls still
running then are recorded as the crash-recovery rules say. Every session
can be resumed (POST /v1/sessions/ID/resume).

Exit codes: 0 it was stopped with Ctrl-C or SIGTERM; 2 a flag cannot be
used (an address without a token, --agents not a directory, a --db that
is not a database, an address in use); 3 the database cannot be reached
or the server failed while serving.`,
		Example: `  toolwire serve --agents examples/agent
  TOOLWIRE_TOKEN=$(openssl rand -hex 16) toolwire serve --addr 0.0.0.0:8080 --db postgres://toolwire@db/toolwire --agents /etc/toolwire/agents`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, e, o)
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", defaultAddr, "listen on `HOST:PORT`; anything but a loopback address needs a token")
	cmd.Flags().StringVar(&o.agents, "agents", "agents", "the directory of the agent files clients may run, by name")
	cmd.Flags().StringVar(&o.token, "token", "", "the bearer `TOKEN` every API request must carry (default $TOOLWIRE_TOKEN)")
	dbFlag(cmd, &o.db)
	return cmd
}

type serveOptions struct {
	addr, agents, token, db string
}

// serve checks the flags, opens the store and serves until ctx ends.
func serve(ctx context.Context, e *env, o serveOptions) error {
	token, err := serverToken(e, o.addr, o.token, defaultAddr)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(o.agents); err != nil || !fi.IsDir() {
		return exitcode.Usagef("--agents %s is not a directory: give the directory of the agent files to serve, e.g. --agents examples/agent", o.agents)
	}
	store, closeStore, err := openStore(ctx, e, o.db)
	if err != nil {
		return err
	}
	defer closeStore()
	tel, err := startTelemetry(ctx, e)
	if err != nil {
		return err
	}
	defer tel.flush(e)
	build, closeAgents := serveBuild(ctx, e, tel)
	defer closeAgents()
	srv, err := server.New(&server.Config{Store: store, Agents: o.agents, Token: token, Build: build, UI: viewer.FS(),
		Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return &exitcode.Error{Code: exitcode.Internal, Err: err}
	}
	ln, err := listenAddr(o.addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "toolwire serve: open http://%s/ (the API is under /v1; agents from %s, sessions in %s)\n", ln.Addr(), o.agents, dsn.Redact(o.db, o.db))
	if err := srv.Serve(ctx, ln); err != nil {
		return exitcode.Envf("serve: %s", trimPrefix(err))
	}
	fmt.Fprintln(e.stdout, "toolwire serve: stopped; every session can be resumed")
	return nil
}

// serveBuild returns the function that opens an agent file's model and
// tools as toolwire run does (its MCP servers started, telemetry added
// when tel is set), telling the operator when it replays a recording and
// of files outside the agent file's folder; and the function that stops
// the MCP servers of every agent it opened.
func serveBuild(ctx context.Context, e *env, tel *telemetry) (func(*agentfile.Definition) (llm.Model, *toolwire.Config, error), func()) {
	var mu sync.Mutex
	var closers []func()
	closeAll := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range closers {
			c()
		}
	}
	return func(def *agentfile.Definition) (llm.Model, *toolwire.Config, error) {
		o := runOptions{agent: def.File}
		m, err := chooseModel(e, def, o)
		if err != nil {
			return nil, nil, err
		}
		for _, w := range outsideWarnings(def) {
			fmt.Fprintf(e.stderr, "toolwire: warning: %s\n", printable(w))
		}
		if m.notice != "" {
			fmt.Fprintln(e.stderr, printable(m.notice))
		}
		model, cfg, closeTools, err := openAgent(ctx, e, def, buildOptions(e, o, m, nil), m)
		if err != nil {
			return nil, nil, err
		}
		mu.Lock()
		closers = append(closers, closeTools)
		mu.Unlock()
		if err := tel.add(cfg, orName(def.Name, filepath.Base(def.File)), m.spec); err != nil {
			return nil, nil, err
		}
		cfg.SessionModel = o.sessionModel(m.spec)
		return model, cfg, nil
	}, closeAll
}

// trimPrefix is err's message without its package prefix.
func trimPrefix(err error) string {
	msg := err.Error()
	for _, p := range []string{"server: ", "toolwire: "} {
		if len(msg) > len(p) && msg[:len(p)] == p {
			msg = msg[len(p):]
		}
	}
	return msg
}
