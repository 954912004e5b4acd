package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/examples/agent"
	"github.com/toolwire/toolwire/internal/agentfile"
	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/provider/replay"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

func newRunCmd(e *env) *cobra.Command {
	var modelFlag, baseURL, dump, db, record string
	var logTurns bool
	var maxTurns int
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "run [--model PROVIDER:NAME|replay:FILE] [--base-url URL] [--max-turns N] [--timeout D] [--dump DIR] [--record FILE] AGENT QUESTION",
		Short: "Run an agent: ask a model, run the tools it calls, until it answers",
		Long: `run reads an agent definition file (YAML or JSON: system prompt, model,
tools) and asks the model QUESTION, running the tools it calls and feeding
their results back until it answers. It prints each turn as it happens —
the model's text as it streams, each tool call, each tool message exactly
as the model reads it, the context budget used — then the answer and the
run's token usage.

--model is openai:NAME (Chat Completions), openai-responses:NAME,
anthropic:NAME, gemini:NAME, or replay:FILE (recorded model turns; no
network); it overrides the agent file's model. API keys come from
OPENAI_API_KEY, ANTHROPIC_API_KEY and GEMINI_API_KEY (or GOOGLE_API_KEY).
When the agent file's model has no key set and the file names a replay,
the run replays it and says so first. --base-url points an OpenAI client
at any compatible server (vLLM, Ollama, llama.cpp), which may need no key.
--max-turns N stops the run after N model answers without a final one (it
overrides the agent file's max_turns). --timeout D bounds each model call:
D to wait for the provider's first byte, and D of silence while it
streams (default 10 minutes and 5 minutes); a call that runs out is
retried like a dropped connection, then fails the run.
--record FILE writes the model's answers into the replay file FILE (YAML;
a file already there keeps its other questions), so that --model
replay:FILE runs the question again offline, with real tools.
--dump DIR writes the exact body of every request sent to the model into
DIR/SESSION/request-001.json, ... (by turn; request-002-2.json is turn 2's
retry): a new folder per run, readable by you
only. Paths in the agent file are relative to it; one outside its folder
gets a warning. Ctrl-C stops the run cleanly.

Every run is saved as a session in --db: a SQLite file (default
./toolwire.db), a postgres:// URL or a key/value string ("host=db
dbname=toolwire"). The run prints its session id first; toolwire
sessions show ID prints it again, toolwire resume ID continues it after a
pause for approval or a crash.

Exit codes (toolwire --help has the table): 0 the model answered; 1 the
run stopped without an answer (a loop guard, the provider refusing the
request, a tool waiting for approval, Ctrl-C); 2 the agent file, the
question, --db or the command line cannot be used; 3 the model provider
or the database cannot be reached (or kept failing through the retries);
4 an internal error.`,
		Example: `  toolwire run examples/agent/agent.yaml "北京今天适合穿什么衣服"
  toolwire run --model anthropic:claude-sonnet-4-5 examples/agent/agent.yaml "Which orders were refunded?"
  toolwire run --model openai:qwen3:8b --base-url http://localhost:11434/v1 examples/agent/agent.yaml "Weather in Paris?"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError("run takes an agent file and a question (got %d arguments); e.g. toolwire run examples/agent/agent.yaml \"Weather in Paris?\"", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if maxTurns < 0 {
				return usageError("--max-turns %d: want a number of turns, 1 or more", maxTurns)
			}
			if timeout < 0 {
				return usageError("--timeout %s: want a positive duration, e.g. 90s or 5m", timeout)
			}
			return runAgent(ctx, e, runOptions{agent: args[0], question: args[1], model: modelFlag, baseURL: baseURL, dump: dump, log: logTurns, db: db,
				maxTurns: maxTurns, timeout: timeout, record: record})
		},
	}
	cmd.Flags().StringVar(&modelFlag, "model", "", "the model: openai:NAME, openai-responses:NAME, anthropic:NAME, gemini:NAME or replay:FILE (default: the agent file's)")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "the API's base URL, for a compatible server or a proxy")
	cmd.Flags().StringVar(&dump, "dump", "", "write the body of each request sent to the model into a new folder per run in `DIR`")
	cmd.Flags().StringVar(&record, "record", "", "write the model's answers into the replay `FILE` (added to one already there), to run this question offline with --model replay:FILE")
	cmd.Flags().BoolVar(&logTurns, "log", false, "also write the loop's structured log line for each turn to standard error")
	cmd.Flags().IntVar(&maxTurns, "max-turns", 0, "stop after `N` model answers without a final one (default: the agent file's max_turns)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "bound each model call: `D` to the first byte and D of silence (e.g. 90s)")
	dbFlag(cmd, &db)
	return cmd
}

type runOptions struct {
	agent, question, model, baseURL, dump string
	log                                   bool
	// maxTurns, when not 0, overrides the agent file's max_turns;
	// timeout, when not 0, bounds each model call.
	maxTurns int
	timeout  time.Duration
	// record, when set, is the replay file the run is recorded into.
	record string
	// db is where sessions are saved: a SQLite path, a postgres:// URL or
	// a libpq key/value string.
	db string
	// resume, when set, continues the session of that id instead of
	// asking question.
	resume    string
	decisions *toolwire.Decisions
}

// keyVars are the environment variables that hold each provider's key.
var keyVars = map[string][]string{
	"openai":           {"OPENAI_API_KEY"},
	"openai-responses": {"OPENAI_API_KEY"},
	"anthropic":        {"ANTHROPIC_API_KEY"},
	"gemini":           {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

func runAgent(ctx context.Context, e *env, o runOptions) error {
	faults, err := parseFaults(e.env(killVar))
	if err != nil {
		return usageError("%s: %v", killVar, err)
	}
	var store session.Store
	if o.resume != "" {
		// The session names its agent file; the store is opened first.
		st, closeStore, err := openStore(ctx, e, o.db)
		if err != nil {
			return err
		}
		defer closeStore()
		store = st
		snap, err := store.Load(ctx, o.resume)
		if err != nil {
			return storeError(o.db, err)
		}
		o = o.withStored(snap.Session.Model)
		if o.agent == "" {
			if o.agent = snap.Session.Agent; o.agent == "" {
				return usageError("session %s names no agent file; pass --agent FILE", o.resume)
			}
		}
	}
	def, err := agentfile.Load(o.agent)
	if err != nil {
		return usageError("%s", strings.TrimPrefix(err.Error(), "agent file: "))
	}
	for _, w := range outsideWarnings(def) {
		fmt.Fprintf(e.stderr, "toolwire: warning: %s\n", printable(w))
	}
	if o.resume == "" && strings.TrimSpace(o.question) == "" {
		return usageError("the question is empty; ask something, e.g. %q", "北京今天适合穿什么衣服")
	}
	spec, explicit := o.model, o.model != ""
	if spec == "" {
		spec = def.Model
	}
	if spec == "" {
		return usageError("%s names no model and --model is not given; pass e.g. --model openai:gpt-4o-mini", def.File)
	}
	prov, name, _ := strings.Cut(spec, ":")
	if name == "" {
		return usageError("--model %q: want PROVIDER:NAME (openai:gpt-4o-mini, openai-responses:gpt-5, anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash) or replay:FILE", spec)
	}
	var notice string
	if vars, ok := keyVars[prov]; ok && o.baseURL == "" && keyOf(e, vars) == "" {
		switch {
		case !explicit && def.Replay != "":
			notice = fmt.Sprintf("toolwire: %s is not set, so this run replays the recorded model turns of %s (real tools, real shaping, real checks)", vars[0], def.Replay)
			prov, name = "replay", def.Replay
		default:
			return usageError("%s is not set: set it to your %s API key, or run with --model replay:FILE", strings.Join(vars, " or "), prov)
		}
	}
	var httpClient *http.Client
	var dumper *dumpTransport
	if o.dump != "" {
		if err := os.MkdirAll(o.dump, 0o700); err != nil {
			return usageError("--dump %s: %v", o.dump, err)
		}
		dumper = &dumpTransport{base: http.DefaultTransport}
		httpClient = &http.Client{Transport: dumper}
	}
	model, limitsName, err := newModel(e, prov, name, &provider.Options{BaseURL: o.baseURL, HTTPClient: httpClient, Timeout: o.timeout, IdleTimeout: o.timeout})
	if err != nil {
		return err
	}
	var hooks []toolwire.Hook
	var replayDump *dumpHook
	if dumper != nil {
		hooks = append(hooks, dumper) // to name each request after its turn
	}
	if rm, isReplay := model.(*replay.Model); isReplay && dumper != nil {
		replayDump = &dumpHook{d: dumper, dialect: transcript.Dialect(rm.Dialect())}
		hooks = append(hooks, replayDump)
	}
	set := agent.NewSet(&agent.Options{Ledger: e.env("TOOLWIRE_LEDGER")})
	reg, err := buildTools(def, set)
	if err != nil {
		return err
	}
	limits, ok := budget.DefaultTable().Lookup(limitsName)
	if !ok {
		limits = budget.Limits{}
	}
	window := limits.Window
	if window == 0 {
		window = (*toolwire.Config)(nil).WithDefaults().Limits.Window
	}
	p := newProgress(e.stdout, window)
	defer p.stop()
	hooks = append(hooks, p)
	var rec *recorder
	if o.record != "" {
		rec = &recorder{}
		hooks = append(hooks, rec)
	}
	logger := slog.New(slog.DiscardHandler)
	if o.log {
		logger = slog.New(slog.NewTextHandler(p.logWriter(e.stderr), nil))
	}
	if store == nil {
		st, closeStore, err := openStore(ctx, e, o.db)
		if err != nil {
			return err
		}
		defer closeStore()
		store = st
	}
	model, store = faults.wrap(model, store)
	agentPath, _ := filepath.Abs(def.File)
	if o.maxTurns > 0 {
		def.MaxTurns = o.maxTurns
	}
	cfg := &toolwire.Config{System: def.System, Tools: reg, MaxTurns: def.MaxTurns, Limits: limits, Output: def.Output, Logger: logger,
		Sessions: store, Name: agentPath, Hooks: hooks, SessionModel: o.sessionModel(prov + ":" + name)}
	if prov == "replay" {
		// Recorded turns name the refs of the store they were recorded
		// with (r1, r2, ...): a replayed run keeps its offloaded results
		// in memory, numbered as they were.
		cfg.Store = toolresult.NewMemoryStore(0).NumberRefs()
	}
	a, err := toolwire.New(model, cfg)
	if err != nil {
		return usageError("%s: %v", def.File, strings.TrimPrefix(err.Error(), "toolwire: "))
	}
	if notice != "" {
		p.line(notice)
	}
	shown := spec
	if prov == "replay" && !explicit {
		shown = "replay:" + name
	}
	p.line(fmt.Sprintf("agent %s (%s): model %s, %s rules, %d tools, at most %d turns", orName(def.Name, filepath.Base(def.File)), def.File, shown, dialectName(a), len(a.Tools()), turnsOf(def.MaxTurns)))
	var res *toolwire.Result
	var runErr error
	var events iter.Seq2[toolwire.Event, error]
	id := o.resume
	if o.resume != "" {
		events = a.ResumeStream(ctx, o.resume, o.decisions)
	} else {
		st := a.Start(o.question)
		id = st.ID
		events = a.Continue(ctx, st)
	}
	p.line("session " + id)
	if dumper != nil {
		dir, err := dumper.start(o.dump, id)
		if err != nil {
			return usageError("--dump %s: %v", o.dump, err)
		}
		p.line("requests dumped into " + dir)
	}
	p.waiting("waiting for the model")
	for ev, err := range events {
		if err != nil {
			runErr = err
			break
		}
		if done, ok := ev.(toolwire.DoneEvent); ok {
			res = done.Result
		}
	}
	p.stop()
	closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_ = a.Close(closeCtx) // tools that ignored Ctrl-C get a moment to return
	cancel()
	if replayDump != nil {
		if err := replayDump.failed(); err != nil {
			return &exitError{code: exitInternal, err: err}
		}
	}
	if rec != nil {
		if err := rec.write(o.record, o.question, string(a.Dialect()), limitsName); err != nil {
			return usageError("%v", err)
		}
		p.line("recorded into " + o.record)
	}
	if res == nil {
		if runErr == nil {
			runErr = errors.New("the run ended without a result")
		}
		return runFailure(o, id, runErr)
	}
	p.line("")
	calls := 0
	for _, m := range res.State.Messages {
		calls += len(m.ToolCalls())
	}
	summary := fmt.Sprintf("%s in %d turn(s), %d tool call(s) · usage: %s input tokens, %s output tokens",
		res.Stop, res.Turns, calls, units.Count(res.Usage.InputTokens), units.Count(res.Usage.OutputTokens))
	if res.Stop == toolwire.Answered {
		p.line("answer:")
		p.line(res.Answer)
		p.line("")
		p.line(summary)
		return nil
	}
	p.line("stopped: " + res.Message)
	if res.Answer != "" {
		p.line(res.Answer)
	}
	p.line(summary)
	if res.Stop == toolwire.Paused {
		p.line(resumeHint(res, o))
	}
	var he *toolwire.HistoryError
	if errors.As(runErr, &he) {
		return &exitError{code: exitInternal, err: runErr}
	}
	var le *llm.Error
	if errors.As(runErr, &le) && le.Op == "replay" {
		return &exitError{code: exitUsage, err: errors.New(le.ProviderMessage)}
	}
	if errors.As(runErr, &le) && le.Kind == llm.Auth {
		return &exitError{code: exitUsage, err: fmt.Errorf("the provider refused the API key: %v", le)}
	}
	return providerFailure(runErr, o.baseURL)
}

func keyOf(e *env, vars []string) string {
	for _, v := range vars {
		if e.getenv != nil {
			if k := e.getenv(v); k != "" {
				return k
			}
		}
	}
	return ""
}

// newModel opens the model prov:name, a recorded run (replay) or a
// provider's client (open.Model) with the key of its variable in keyVars;
// limitsName is the model whose limits apply.
func newModel(e *env, prov, name string, opts *provider.Options) (llm.Model, string, error) {
	if prov == "replay" {
		r, err := replay.Load(name)
		if err != nil {
			return nil, "", usageError("%s", strings.TrimPrefix(err.Error(), "replay: "))
		}
		return r, r.Name(), nil
	}
	spec := prov + ":" + name
	o := *opts
	o.APIKey = keyOf(e, keyVars[prov])
	m, err := open.Model(spec, &o)
	if err != nil {
		var oe *open.Error
		if errors.As(err, &oe) {
			err = oe.Err // the flag names the spec
		}
		if errors.Is(err, open.ErrUnknownProvider) {
			return nil, "", usageError("--model %s: %v; or replay:FILE, to replay a recorded run", spec, err)
		}
		return nil, "", usageError("--model %s: %v", spec, err)
	}
	return m, name, nil
}

// outsideWarnings warns of each file def names outside its folder: an
// agent file can make toolwire read any file its user can, so one from
// elsewhere (a cloned repository, a download) should point only beside
// itself. Links are followed.
func outsideWarnings(def *agentfile.Definition) []string {
	var out []string
	for _, f := range def.Files {
		path, inside := within(def.Dir, f.Path)
		if inside {
			continue
		}
		it := ""
		if path != f.Name {
			it = " (it is " + path + ")"
		}
		out = append(out, fmt.Sprintf("%s: the %s file %s is outside the agent file's folder%s; an agent file can make toolwire read any file you can, so run only agent files you trust",
			f.At, f.What, f.Name, it))
	}
	return out
}

// within reports whether path, with its links followed, is inside dir,
// and returns it so resolved.
func within(dir, path string) (string, bool) {
	dir, path = resolve(dir), resolve(path)
	rel, err := filepath.Rel(dir, path)
	return path, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolve is the absolute path p names, its links followed when it
// exists.
func resolve(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// buildTools makes the registry of the definition's tools.
func buildTools(def *agentfile.Definition, set *agent.Set) (*tool.Registry, error) {
	reg := tool.NewRegistry()
	for _, ref := range def.Tools {
		if ref.Example != "" {
			t, ok := set.Tool(ref.Example)
			if !ok {
				return nil, usageError("%s: no example tool is named %q (the example tools: %s)", ref.At, ref.Example, strings.Join(agent.Names(), ", "))
			}
			if ref.Approval {
				t = needsApproval{t}
			}
			if err := reg.Add(t); err != nil {
				return nil, addError(ref.At, ref.Example, err)
			}
			continue
		}
		data, err := os.ReadFile(ref.Spec)
		if err != nil {
			return nil, usageError("%s: %v", ref.At, err)
		}
		specs, _, err := tool.ParseSpecs(data)
		if err != nil {
			return nil, usageError("%s: %s: %s", ref.At, ref.Spec, userText(err))
		}
		picked := 0
		for _, s := range specs {
			if ref.Only != nil && !containsName(ref.Only, s.Name) {
				continue
			}
			picked++
			if s.HTTP == nil {
				return nil, usageError("%s: the tool %s in %s has no http binding; toolwire run calls only HTTP tools from spec files", ref.At, s.Name, ref.Spec)
			}
			s.RequiresApproval = s.RequiresApproval || ref.Approval
			t, err := tool.NewHTTP(s, nil)
			if err != nil {
				return nil, usageError("%s: %s: %v", ref.At, ref.Spec, err)
			}
			if err := reg.Add(t); err != nil {
				return nil, addError(ref.At, s.Name, err)
			}
		}
		for _, n := range ref.Only {
			if !specHas(specs, n) {
				return nil, usageError("%s: %s has no tool named %q", ref.At, ref.Spec, n)
			}
		}
		if picked == 0 {
			return nil, usageError("%s: %s has no tools", ref.At, ref.Spec)
		}
	}
	return reg, nil
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

func specHas(specs []tool.Spec, n string) bool {
	for _, s := range specs {
		if s.Name == n {
			return true
		}
	}
	return false
}

func orName(name, fallback string) string {
	if name != "" {
		return name
	}
	return fallback
}

func turnsOf(n int) int {
	if n == 0 {
		return toolwire.DefaultMaxTurns
	}
	return n
}

func dialectName(a *toolwire.Agent) string {
	if d := a.Dialect(); d != "" {
		return string(d)
	}
	return "no provider"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// needsApproval is a tool whose calls wait for a person's approval (an
// agent file's approval: true).
type needsApproval struct{ tool.Tool }

func (t needsApproval) Spec() tool.Spec {
	s := t.Tool.Spec()
	s.RequiresApproval = true
	return s
}
