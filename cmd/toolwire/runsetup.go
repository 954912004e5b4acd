package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/examples/agent"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/provider/replay"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/transcript"
)

// This file turns run's and resume's flags into what agentfile builds
// from an agent file; the CLI's own policy lives here: API keys from the
// environment, the fallback to a recorded run, warnings for files outside
// the agent file's folder.

// testHook, when set, wraps the model and the session store of a run.
// Only the tests set it, in the test binary (faults_test.go): the
// released binary has no fault injection.
var testHook func(llm.Model, session.Store) (llm.Model, session.Store)

// openResumed opens the store of the session o.resume and, when o.agent
// is not given, sets it to the agent file the session was run with.
func openResumed(ctx context.Context, e *env, o *runOptions) (session.Store, func(), error) {
	store, closeStore, err := openStore(ctx, e, o.db)
	if err != nil {
		return nil, nil, err
	}
	snap, err := store.Load(ctx, o.resume)
	if err != nil {
		closeStore()
		return nil, nil, storeError(o.db, err)
	}
	*o = o.withStored(snap.Session.Model)
	if o.agent == "" {
		if o.agent = snap.Session.Agent; o.agent == "" {
			closeStore()
			return nil, nil, exitcode.Usagef("session %s names no agent file; pass --agent FILE", o.resume)
		}
	}
	return store, closeStore, nil
}

// loadAgent reads the agent file, warns of each file it names outside
// its folder, and checks the question.
func loadAgent(e *env, o runOptions) (*agentfile.Definition, error) {
	def, err := agentfile.Load(o.agent)
	if err != nil {
		return nil, exitcode.Usagef("%s", err)
	}
	for _, w := range outsideWarnings(def) {
		fmt.Fprintf(e.stderr, "toolwire: warning: %s\n", printable(w))
	}
	if o.resume == "" && strings.TrimSpace(o.question) == "" {
		return nil, exitcode.Usagef("the question is empty; ask something, e.g. %q", "北京今天适合穿什么衣服")
	}
	return def, nil
}

// outsideWarnings warns of each file def names outside its folder: an
// agent file can make toolwire read any file its user can, so one from
// elsewhere (a cloned repository, a download) should point only beside
// itself.
func outsideWarnings(def *agentfile.Definition) []string {
	var out []string
	for _, f := range def.Outside() {
		it := ""
		if f.Path != f.Name {
			it = " (it is " + f.Path + ")"
		}
		out = append(out, fmt.Sprintf("%s: the %s file %s is outside the agent file's folder%s; an agent file can make toolwire read any file you can, so run only agent files you trust",
			f.At, f.What, f.Name, it))
	}
	return out
}

// A modelChoice is the model a run uses, and how it was chosen.
type modelChoice struct {
	// spec is PROVIDER:NAME or replay:FILE; key the provider's API key.
	spec, key string
	// override says that spec is not the agent file's model: --model
	// named it, or the run replays the agent file's recorded turns.
	override bool
	// shown is how the run's first line names the model; notice, when not
	// "", says why a recording is replayed.
	shown, notice string
}

// chooseModel picks the model of a run: --model, else the agent file's;
// without that provider's API key, the agent file's recorded turns.
func chooseModel(e *env, def *agentfile.Definition, o runOptions) (modelChoice, error) {
	m := modelChoice{spec: o.model, override: o.model != ""}
	if m.spec == "" {
		m.spec = def.Model
	}
	if m.spec == "" {
		return m, exitcode.Usagef("%s names no model and --model is not given; pass e.g. --model openai:gpt-4o-mini", def.File)
	}
	prov, name, _ := strings.Cut(m.spec, ":")
	if name == "" {
		return m, exitcode.Usagef("--model %q: want PROVIDER:NAME (openai:gpt-4o-mini, openai-responses:gpt-5, anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash) or replay:FILE", m.spec)
	}
	m.shown = m.spec
	vars, ok := keyVars[prov]
	if !ok {
		return m, nil
	}
	if m.key = keyOf(e, vars); m.key != "" || o.baseURL != "" {
		return m, nil
	}
	if o.model != "" || def.Replay == "" {
		return m, exitcode.Usagef("%s is not set: set it to your %s API key, or run with --model replay:FILE", strings.Join(vars, " or "), prov)
	}
	m.notice = fmt.Sprintf("toolwire: %s is not set, so this run replays the recorded model turns of %s (real tools, real shaping, real checks)", vars[0], def.Replay)
	m.spec, m.shown, m.override = "replay:"+def.Replay, "replay:"+def.Replay, true
	return m, nil
}

func keyOf(e *env, vars []string) string {
	for _, v := range vars {
		if k := e.env(v); k != "" {
			return k
		}
	}
	return ""
}

// newDumper returns the transport that writes each request into the
// --dump folder, nil without --dump.
func newDumper(dir string) (*dumpTransport, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, exitcode.Usagef("--dump %s: %v", dir, err)
	}
	return &dumpTransport{base: http.DefaultTransport}, nil
}

// buildOptions are what an agent file may use in toolwire run: the
// example tools, files outside its folder (warned of), recorded runs.
func buildOptions(e *env, o runOptions, m modelChoice, dumper *dumpTransport) *agentfile.Options {
	po := &provider.Options{APIKey: m.key, BaseURL: o.baseURL, Timeout: o.timeout, IdleTimeout: o.timeout}
	if dumper != nil {
		po.HTTPClient = &http.Client{Transport: dumper}
	}
	opts := &agentfile.Options{
		Tools:        agent.NewSet(&agent.Options{Ledger: e.env("TOOLWIRE_LEDGER")}).Registry(),
		AllowOutside: true,
		Replay:       true,
		Provider:     po,
	}
	if m.override {
		opts.Model = m.spec
	}
	return opts
}

// buildError is what a user reads when the agent cannot be built: an
// error in a file says where; one in the model that --model named says
// so.
func buildError(m modelChoice, err error) error {
	var ae *agentfile.Error
	if !errors.As(err, &ae) || ae.File != "" || !m.override {
		return exitcode.Usagef("%s", err)
	}
	if errors.Is(err, open.ErrUnknownProvider) {
		return exitcode.Usagef("--model %s: %v; or replay:FILE, to replay a recorded run", m.spec, err)
	}
	return exitcode.Usagef("--model %s: %v", m.spec, err)
}

// newAgent makes the agent of a run from what def built: the session
// store, the --log, --max-turns, --dump and --record settings added, and
// p, the run's terminal output, as a hook.
func newAgent(e *env, o runOptions, def *agentfile.Definition, model llm.Model, cfg *toolwire.Config, store session.Store, dumper *dumpTransport, p *progress) (*toolwire.Agent, runHooks, error) {
	var h runHooks
	if dumper != nil {
		cfg.Hooks = append(cfg.Hooks, dumper) // to name each request after its turn
	}
	if rm, isReplay := model.(*replay.Model); isReplay && dumper != nil {
		h.replayDump = &dumpHook{d: dumper, dialect: transcript.Dialect(rm.Dialect())}
		cfg.Hooks = append(cfg.Hooks, h.replayDump)
	}
	cfg.Hooks = append(cfg.Hooks, p)
	if o.record != "" {
		h.rec = &recorder{}
		cfg.Hooks = append(cfg.Hooks, h.rec)
	}
	if testHook != nil {
		model, store = testHook(model, store)
	}
	cfg.Sessions = store
	cfg.Name, _ = filepath.Abs(def.File) // resume finds the agent file by it
	if o.maxTurns > 0 {
		cfg.MaxTurns = o.maxTurns
	}
	if o.log {
		cfg.Logger = slog.New(slog.NewTextHandler(p.logWriter(e.stderr), nil))
	}
	a, err := toolwire.New(model, cfg)
	if err != nil {
		return nil, h, exitcode.Usagef("%s: %v", def.File, strings.TrimPrefix(err.Error(), "toolwire: "))
	}
	return a, h, nil
}

// runHooks are the hooks of a run with something to do once it ends.
type runHooks struct {
	replayDump *dumpHook // --dump of a replayed run
	rec        *recorder // --record
}

// finish reports a failed dump, and writes the recording of the run's
// answers, to be replayed as the model limitsName.
func (h runHooks) finish(p *progress, o runOptions, limitsName string, a *toolwire.Agent) error {
	if h.replayDump != nil {
		if err := h.replayDump.failed(); err != nil {
			return &exitcode.Error{Code: exitcode.Internal, Err: err}
		}
	}
	if h.rec != nil {
		if err := h.rec.write(o.record, o.question, string(a.Dialect()), limitsName); err != nil {
			return exitcode.Usagef("%v", err)
		}
		p.line("recorded into " + o.record)
	}
	return nil
}
