package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
)

func newRunCmd(e *env) *cobra.Command {
	var modelFlag, baseURL, dump, db, record, temporalAddr string
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
				return exitcode.Usagef("run takes an agent file and a question (got %d arguments); e.g. toolwire run examples/agent/agent.yaml \"Weather in Paris?\"", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if temporalAddr != "" {
				return delegate(e, e.args) // a session on Temporal, through the plugin
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if maxTurns < 0 {
				return exitcode.Usagef("--max-turns %d: want a number of turns, 1 or more", maxTurns)
			}
			if timeout < 0 {
				return exitcode.Usagef("--timeout %s: want a positive duration, e.g. 90s or 5m", timeout)
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
	temporalFlags(cmd, &temporalAddr)
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

// runAgent runs (or, with o.resume, resumes) the agent of o.agent and
// prints what happens.
func runAgent(ctx context.Context, e *env, o runOptions) error {
	var store session.Store
	if o.resume != "" {
		// The session names its agent file: the store is opened first.
		st, closeStore, err := openResumed(ctx, e, &o)
		if err != nil {
			return err
		}
		defer closeStore()
		store = st
	}
	def, err := loadAgent(e, o)
	if err != nil {
		return err
	}
	m, err := chooseModel(e, def, o)
	if err != nil {
		return err
	}
	dumper, err := newDumper(o.dump)
	if err != nil {
		return err
	}
	model, cfg, closeTools, err := openAgent(ctx, e, def, buildOptions(e, o, m, dumper), m)
	if err != nil {
		return err
	}
	defer closeTools()
	cfg.SessionModel = o.sessionModel(m.spec)
	p := newProgress(e.stdout, cfg.WithDefaults().Limits.Window)
	defer p.stop()
	if store == nil {
		st, closeStore, err := openStore(ctx, e, o.db)
		if err != nil {
			return err
		}
		defer closeStore()
		store = st
	}
	tel, err := addTelemetry(ctx, e, cfg, orName(def.Name, filepath.Base(def.File)), m.spec)
	if err != nil {
		return err
	}
	defer tel.flush(e)
	a, hooks, err := newAgent(e, o, def, model, cfg, store, dumper, p)
	if err != nil {
		return err
	}
	if m.notice != "" {
		p.line(m.notice)
	}
	p.line(fmt.Sprintf("agent %s (%s): model %s, %s rules, %d tools, at most %d turns", orName(def.Name, filepath.Base(def.File)), def.File, m.shown, dialectName(a), len(a.Tools()), turnsOf(cfg.MaxTurns)))
	events, id := startRun(ctx, a, o)
	p.line("session " + id)
	if dumper != nil {
		dir, err := dumper.start(o.dump, id)
		if err != nil {
			return exitcode.Usagef("--dump %s: %v", o.dump, err)
		}
		p.line("requests dumped into " + dir)
	}
	p.waiting("waiting for the model")
	res, runErr := resultOf(events) // the progress hook prints the run
	p.stop()
	closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_ = a.Close(closeCtx) // tools that ignored Ctrl-C get a moment to return
	cancel()
	if err := hooks.finish(p, o, modelName(model, m.spec), a); err != nil {
		return err
	}
	return finishRun(p, o, id, res, runErr)
}

// startRun starts the run of o.question, or resumes the session o.resume,
// and returns its events and its session id.
func startRun(ctx context.Context, a *toolwire.Agent, o runOptions) (iter.Seq2[toolwire.Event, error], string) {
	if o.resume != "" {
		return a.ResumeStream(ctx, o.resume, o.decisions), o.resume
	}
	st := a.Start(o.question)
	return a.Continue(ctx, st), st.ID
}

// resultOf runs events to their end and returns the run's result (nil
// when it ended without one) and the error that ended it.
func resultOf(events iter.Seq2[toolwire.Event, error]) (*toolwire.Result, error) {
	var res *toolwire.Result
	for ev, err := range events {
		if err != nil {
			return res, err
		}
		if done, ok := ev.(toolwire.DoneEvent); ok {
			res = done.Result
		}
	}
	return res, nil
}

// finishRun prints how the run ended and returns its exit.
func finishRun(p *progress, o runOptions, id string, res *toolwire.Result, runErr error) error {
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
		return &exitcode.Error{Code: exitcode.Internal, Err: runErr}
	}
	var le *llm.Error
	if errors.As(runErr, &le) && le.Op == "replay" {
		return &exitcode.Error{Code: exitcode.Usage, Err: errors.New(le.ProviderMessage)}
	}
	if errors.As(runErr, &le) && le.Kind == llm.Auth {
		return exitcode.Usagef("the provider refused the API key: %v", le)
	}
	return providerFailure(runErr, o.baseURL)
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

// modelName is the name of the model a run talks to, whose limits apply:
// a recorded run's recorded model, else the NAME of PROVIDER:NAME.
func modelName(model llm.Model, spec string) string {
	if n, ok := model.(interface{ Name() string }); ok {
		return n.Name()
	}
	_, name, _ := strings.Cut(spec, ":")
	return name
}
