package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/session/dsn"
	"github.com/toolwire/toolwire/transcript"
)

// defaultGatewayAddr is where toolwire gateway listens without --addr.
const defaultGatewayAddr = "127.0.0.1:8787"

type gatewayOptions struct {
	addr, token, db, policy   string
	openai, anthropic, gemini string
	shape                     string
	shapeBudget, maxReads     int
	maxBody, remember         int64
	timeout, idle             time.Duration
	quiet                     bool
}

func newGatewayCmd(e *env) *cobra.Command {
	var o gatewayOptions
	cmd := &cobra.Command{
		Use:   "gateway [--addr 127.0.0.1:8787] [--upstream-openai URL] [--upstream-anthropic URL] [--upstream-gemini URL] [--policy repair|reject|pass] [--db PATH|postgres://…] [--token TOKEN]",
		Short: "Check, repair or reject every request in front of a provider: a proxy for any agent framework",
		Long: `gateway is a proxy that speaks the providers' own wire protocols: point an
agent's base URL at it (OpenAI: http://ADDR/v1, Anthropic and Gemini:
http://ADDR) and every request body is checked as toolwire check checks it
before it reaches the provider. Routes: POST /v1/chat/completions,
/v1/responses (forwarded to --upstream-openai), /v1/messages
(--upstream-anthropic), /v1beta/models/MODEL:generateContent and
:streamGenerateContent (--upstream-gemini).

--policy says what to do with a body the provider would reject: repair
sends the body toolwire check --fix makes of it (the default); reject
answers 400 in the provider's own error shape, with the rule IDs and
toolwire's explanation, and sends nothing; pass forwards it unchanged
and only logs the verdict. One route can have its own:
--policy repair,anthropic=reject.

API keys travel in the client's usual headers (Authorization, x-api-key,
x-goog-api-key, ?key=) and go through unchanged; the gateway never logs or
stores them. An agent sends its whole history with every request: the
gateway keeps, in memory, the decoded messages of recent requests
(--remember) and judges a request that repeats one of them by what it
adds. Answers, streams included, are passed on as they arrive.
Every request it repaired or rejected is saved in --db as a session of its
own, with the rules, the repairs and a diff: toolwire sessions list and
show read them. Each request is logged on standard error in one line.

--shape all (or a list of dialects) shapes the tool results of a
request's history that are over --shape-budget tokens, as toolwire shape
does, offloads the rest behind a ref and offers the model a read_result
tool; the gateway answers read_result itself and asks again, so the
client sees only the model's final answer (streamed as it comes, for a
streamed request).

A token (--token, or TOOLWIRE_TOKEN) is then required in the
Toolwire-Token header of every request; without one the gateway listens
only on a loopback address. docs/gateway.md has the details.

Exit codes: 0 stopped with Ctrl-C or SIGTERM; 2 a flag cannot be used (an
address without a token, an upstream that is not a URL, a --db that is
not a database, an address in use); 3 the database cannot be reached or
the gateway failed while serving.`,
		Example: `  toolwire gateway
  OPENAI_BASE_URL=http://127.0.0.1:8787/v1 python agent.py
  toolwire gateway --policy reject --upstream-openai http://127.0.0.1:8000   # a vLLM server
  toolwire gateway --shape all --shape-budget 2000
  TOOLWIRE_TOKEN=$(openssl rand -hex 16) toolwire gateway --addr 0.0.0.0:8787 --db postgres://toolwire@db/toolwire`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runGateway(ctx, e, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", defaultGatewayAddr, "listen on `HOST:PORT`; anything but a loopback address needs a token")
	f.StringVar(&o.openai, "upstream-openai", gateway.DefaultOpenAI, "the OpenAI (or OpenAI-compatible) API's base `URL`, for /v1/chat/completions and /v1/responses")
	f.StringVar(&o.anthropic, "upstream-anthropic", gateway.DefaultAnthropic, "the Anthropic API's base `URL`, for /v1/messages")
	f.StringVar(&o.gemini, "upstream-gemini", gateway.DefaultGemini, "the Gemini API's base `URL`, for /v1beta/models/…")
	f.StringVar(&o.policy, "policy", "repair", "what to do with a body the provider would reject: repair, reject or pass; DIALECT=POLICY, comma separated, sets one route's")
	f.StringVar(&o.shape, "shape", "", "shape the large tool results of these routes' requests, answering read_result itself: all, or DIALECT,... (default none)")
	f.IntVar(&o.shapeBudget, "shape-budget", 4000, "with --shape, the `TOKENS` a tool result may take before it is shaped, and what it is shaped to")
	f.IntVar(&o.maxReads, "max-reads", 8, "with --shape, the most read_result rounds the gateway answers in one request")
	f.StringVar(&o.token, "token", "", "the `TOKEN` every request must carry in the Toolwire-Token header (default $TOOLWIRE_TOKEN)")
	f.Int64Var(&o.maxBody, "max-body", 32<<20, "the largest request body, in `BYTES`; a larger one is answered 413")
	f.Int64Var(&o.remember, "remember", 64<<20, "the `BYTES` of decoded messages kept, in memory, to judge a conversation's next request by what it adds; 0 judges every body whole")
	f.DurationVar(&o.timeout, "upstream-timeout", 10*time.Minute, "how long to wait for the upstream's response headers (a request not streamed waits for its whole answer)")
	f.DurationVar(&o.idle, "idle-timeout", 5*time.Minute, "how long an answer may stay silent while it streams")
	f.BoolVar(&o.quiet, "quiet", false, "log only failures, not one line per request")
	dbFlag(cmd, &o.db)
	return cmd
}

// runGateway checks the flags, opens the store and serves until ctx ends.
func runGateway(ctx context.Context, e *env, o gatewayOptions) error {
	token, err := serverToken(e, o.addr, o.token, defaultGatewayAddr)
	if err != nil {
		return err
	}
	policy, routes, err := policyFlag(o.policy)
	if err != nil {
		return err
	}
	for _, u := range []struct{ flag, v string }{{"--upstream-openai", o.openai}, {"--upstream-anthropic", o.anthropic}, {"--upstream-gemini", o.gemini}} {
		if _, err := gateway.ParseUpstream(u.v); err != nil {
			return exitcode.Usagef("%s: %v", u.flag, err)
		}
	}
	if o.maxBody <= 0 || o.timeout <= 0 || o.idle <= 0 || o.shapeBudget <= 0 || o.maxReads <= 0 {
		return exitcode.Usagef("--max-body, --upstream-timeout, --idle-timeout, --shape-budget and --max-reads must be above 0")
	}
	if o.remember < 0 {
		return exitcode.Usagef("--remember %d: want 0 (remember nothing) or more bytes", o.remember)
	}
	remember := o.remember
	if remember == 0 {
		remember = -1 // gateway.Config's "nothing"
	}
	if err := shapeFlag(o.shape, routes, &gateway.Shaping{Budget: o.shapeBudget, MaxReads: o.maxReads}); err != nil {
		return err
	}
	store, closeStore, err := openStore(ctx, e, o.db)
	if err != nil {
		return err
	}
	defer closeStore()
	level := slog.LevelInfo
	if o.quiet {
		level = slog.LevelWarn
	}
	g, err := gateway.New(&gateway.Config{OpenAI: o.openai, Anthropic: o.anthropic, Gemini: o.gemini, Policy: policy, Routes: routes,
		Store: store, Token: token, MaxBody: o.maxBody, Remember: remember, UpstreamTimeout: o.timeout, IdleTimeout: o.idle,
		Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))})
	if err != nil {
		return &exitcode.Error{Code: exitcode.Internal, Err: err}
	}
	ln, err := listenAddr(o.addr)
	if err != nil {
		return err
	}
	printGatewayBanner(e.stdout, ln.Addr().String(), o, o.policy)
	if err := g.Serve(ctx, ln, 10*time.Second); err != nil {
		return exitcode.Envf("gateway: %s", strings.TrimPrefix(err.Error(), "gateway: "))
	}
	fmt.Fprintln(e.stdout, "toolwire gateway: stopped")
	return nil
}

// printGatewayBanner says where the gateway listens, where each route
// goes, and the base URL each client takes.
func printGatewayBanner(w io.Writer, addr string, o gatewayOptions, policy string) {
	fmt.Fprintf(w, "toolwire gateway: listening on http://%s (policy %s; records in %s)\n", addr, policy, dsn.Redact(o.db, o.db))
	fmt.Fprintf(w, "  OpenAI clients:    base URL http://%s/v1  → %s\n", addr, o.openai)
	fmt.Fprintf(w, "  Anthropic clients: base URL http://%s     → %s\n", addr, o.anthropic)
	fmt.Fprintf(w, "  Gemini clients:    base URL http://%s     → %s\n", addr, o.gemini)
}

// policyFlag parses --policy: a policy for every route, then
// DIALECT=POLICY entries for one route each ("repair,anthropic=reject").
func policyFlag(v string) (gateway.Policy, map[transcript.Dialect]gateway.Route, error) {
	def := gateway.Repair
	routes := map[transcript.Dialect]gateway.Route{}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		name, value, one := strings.Cut(item, "=")
		if !one {
			value = name
		}
		p, err := gateway.ParsePolicy(value)
		if err != nil {
			return "", nil, exitcode.Usagef("--policy %q: %q is not a policy: want repair, reject or pass (or DIALECT=POLICY)", v, value)
		}
		if !one {
			def = p
			continue
		}
		d, err := transcript.ParseDialect(name)
		if err != nil {
			return "", nil, exitcode.Usagef("--policy %q: %q is not a dialect: want openai-chat, openai-responses, anthropic or gemini", v, name)
		}
		routes[d] = gateway.Route{Policy: p}
	}
	return def, routes, nil
}

// shapeFlag turns on shaping, by sh, for the routes --shape names: all,
// or dialects, comma separated.
func shapeFlag(v string, routes map[transcript.Dialect]gateway.Route, sh *gateway.Shaping) error {
	if v == "" {
		return nil
	}
	var ds []transcript.Dialect
	if v == "all" {
		ds = transcript.Dialects()
	} else {
		for _, name := range strings.Split(v, ",") {
			d, err := transcript.ParseDialect(strings.TrimSpace(name))
			if err != nil {
				return exitcode.Usagef("--shape %q: %q is not a dialect: want all, or openai-chat, openai-responses, anthropic, gemini", v, name)
			}
			ds = append(ds, d)
		}
	}
	for _, d := range ds {
		r := routes[d]
		r.Shape = sh
		routes[d] = r
	}
	return nil
}
