package temporal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
)

// An Agent is one agent a worker runs sessions of: the model and the
// configuration toolwire.New takes, as agentfile's Build and Open return
// them for `toolwire run` — the same definition, run the same way.
//
// Step runs in the workflow and must be deterministic: a Config.Fit with
// a model-backed summarizer (which calls a model while fitting) does I/O
// in Step and is refused; a tool registry that changes while the worker
// runs (MCP servers whose tool lists change) makes a replay see other
// tools than the run did, so keep the tool lists of a worker fixed.
type Agent struct {
	// Name is what a session names the agent by.
	Name string
	// Model is the agent's model.
	Model llm.Model
	// Config configures the agent; its Hooks see the model and tool
	// calls, in the activities.
	Config *toolwire.Config
}

// A Runtime holds the agents of a worker (or of a replayer) and the
// workflow and activities that run their sessions. Register installs
// them. It is safe for concurrent use.
type Runtime struct {
	cfg    *Config
	agents map[string]*entry
}

// entry is one agent, built.
type entry struct {
	name     string
	a        *toolwire.Agent
	tools    *tool.Registry
	exec     *tool.Config // defaulted
	approver bool         // the program gave the executor an approver
	// results is the session store that keeps the agent's offloaded
	// results (Config.Sessions, when it has session.Results and no
	// Config.Store is given); nil when they are kept elsewhere.
	results session.Store
	made    sync.Map // the session ids results has a session for
	// streams is the session store the model's text is published to as
	// it streams (Config.Sessions, when it has session.Results and
	// session.Catalog); nil when it is not published.
	streams streamStore
}

// New builds the agents (toolwire.New) and returns the runtime that runs
// their sessions.
func New(agents []Agent, cfg *Config) (*Runtime, error) {
	r := &Runtime{cfg: cfg.withDefaults(), agents: map[string]*entry{}}
	if err := r.cfg.validate(); err != nil {
		return nil, err
	}
	if len(agents) == 0 {
		return nil, errors.New("temporal: new: no agents: a worker runs at least one")
	}
	for _, ag := range agents {
		if ag.Name == "" {
			return nil, errors.New("temporal: new: an agent has no name")
		}
		if _, dup := r.agents[ag.Name]; dup {
			return nil, fmt.Errorf("temporal: new: two agents are named %q", ag.Name)
		}
		if ag.Config != nil && ag.Config.Fit != nil && ag.Config.Fit.Summarizer != nil {
			return nil, fmt.Errorf("temporal: new: agent %q: Config.Fit.Summarizer calls a model inside Step, which a workflow cannot replay; leave it unset", ag.Name)
		}
		acfg, streams := ag.Config, streamStore(nil)
		if ss, ok := publishes(ag.Config, r.cfg); ok {
			// A copy, with the hook that passes the model's text to the
			// model activity's publisher: the caller's Config is theirs.
			c := *ag.Config
			c.Hooks = append(slices.Clip(c.Hooks), textHook{})
			acfg, streams = &c, ss
		}
		a, err := toolwire.New(ag.Model, acfg)
		if err != nil {
			return nil, fmt.Errorf("temporal: new: agent %q: %w", ag.Name, err)
		}
		e := &entry{name: ag.Name, a: a, streams: streams}
		var ec *tool.Config
		if ag.Config != nil {
			e.tools, ec = ag.Config.Tools, ag.Config.Executor
			if _, ok := ag.Config.Sessions.(session.Results); ok && ag.Config.Store == nil {
				e.results = ag.Config.Sessions
			}
		}
		e.approver = ec != nil && ec.Approver != nil
		e.exec = ec.WithDefaults()
		r.agents[ag.Name] = e
	}
	return r, nil
}

// publishes returns the store the model activity of an agent of cfg
// publishes the model's text to as it streams, and whether it does: its
// Config.Sessions, when it keeps results and deletes sessions and the
// runtime's TextInterval is not negative.
func publishes(cfg *toolwire.Config, rc *Config) (streamStore, bool) {
	if cfg == nil || cfg.Sessions == nil || rc.TextInterval < 0 {
		return nil, false
	}
	ss, ok := cfg.Sessions.(streamStore)
	return ss, ok
}

// validate reports a configuration out of range.
func (c *Config) validate() error {
	var bad []string
	if c.ModelTimeout < 0 || c.Heartbeat < 0 || c.RetryInterval < 0 {
		bad = append(bad, "a duration is negative")
	}
	if c.ModelAttempts < 0 || c.Level1Attempts < 0 || c.Level2Attempts < 0 || c.HistoryEvents < 0 || c.HistoryBytes < 0 {
		bad = append(bad, "a count is negative")
	}
	if len(bad) > 0 {
		return errors.New("temporal: config: " + strings.Join(bad, "; "))
	}
	return nil
}

// Registry is where a runtime registers its workflow and activities: a
// worker.Worker, or a test environment of the SDK's testsuite.
type Registry interface {
	worker.WorkflowRegistry
	worker.ActivityRegistry
}

// Register registers the session workflow ([WorkflowName]) and its
// activities ([ActivityModel], [ActivityTool]) with w.
func (r *Runtime) Register(w Registry) {
	r.RegisterWorkflow(w)
	w.RegisterActivityWithOptions(r.model, activity.RegisterOptions{Name: ActivityModel})
	w.RegisterActivityWithOptions(r.tool, activity.RegisterOptions{Name: ActivityTool})
}

// RegisterWorkflow registers the session workflow alone: what a
// replayer needs (worker.WorkflowReplayer).
func (r *Runtime) RegisterWorkflow(w worker.WorkflowRegistry) {
	w.RegisterWorkflowWithOptions(r.run, workflow.RegisterOptions{Name: WorkflowName})
}

// Agent returns the agent built for name, for what reads its sessions
// (toolwire.Agent.Request).
func (r *Runtime) Agent(name string) (*toolwire.Agent, bool) {
	e, ok := r.agents[name]
	if !ok {
		return nil, false
	}
	return e.a, true
}

// names lists the agents, for an error.
func (r *Runtime) names() string {
	var out []string
	for n := range r.agents {
		out = append(out, fmt.Sprintf("%q", n))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// policy is how a tool's activity runs: its level, timeout, attempts.
type policy struct {
	level    tool.Idempotency
	timeout  time.Duration
	attempts int32
}

// policy returns the activity policy of a call of the tool named name:
// its start-to-close timeout covers every attempt the executor makes
// inside the activity, with their waits; its attempts after a lost
// worker follow the level.
func (e *entry) policy(name string, cfg *Config) policy {
	p := policy{level: tool.Level0}
	per := e.exec.Timeout
	if t, ok := e.lookup(name); ok {
		spec := t.Spec()
		p.level = spec.Idempotency
		if spec.Timeout > 0 {
			per = spec.Timeout
		}
	} else if name == "read_result" {
		p.level = tool.Level2 // the agent's own: reads what was kept
	}
	inner := 1 // attempts the executor makes inside one activity
	switch p.level {
	case tool.Level1:
		p.attempts, inner = int32(cfg.Level1Attempts), e.exec.MaxAttempts
	case tool.Level2:
		p.attempts, inner = int32(cfg.Level2Attempts), e.exec.MaxAttempts
	default:
		p.attempts = 1 // at most once: a lost worker leaves its outcome unknown
	}
	p.timeout = time.Duration(inner)*(per+e.exec.Grace) + time.Duration(inner-1)*max(e.exec.MaxBackoff, e.exec.MaxRetryAfter) + 10*time.Second
	return p
}

func (e *entry) lookup(name string) (tool.Tool, bool) {
	if e.tools == nil {
		return nil, false
	}
	return e.tools.Lookup(name)
}

// entryFor returns the agent an activity names.
func (r *Runtime) entryFor(name string) (*entry, error) {
	e, ok := r.agents[name]
	if !ok {
		return nil, sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf("no agent is named %q on this worker (it runs %s)", name, r.names()), "UnknownAgent", nil)
	}
	return e, nil
}

// model is the model activity: Perform of a CallModel state, with the
// model's text published as it streams.
func (r *Runtime) model(ctx context.Context, req ModelRequest) (Outcome, error) {
	return r.perform(ctx, req.Agent, req.State, toolwire.CallModel, req.Seq)
}

// tool is the tool activity: Perform of a state that wants one call run.
func (r *Runtime) tool(ctx context.Context, req ToolRequest) (Outcome, error) {
	return r.perform(ctx, req.Agent, req.State, toolwire.RunTools, 0)
}

// perform performs the effect of the state b, heartbeating meanwhile.
// The outcome is the activity's result; an activity whose context ended
// (a timeout, the workflow cancelled) returns the context's error
// instead, so that its retry policy decides, as for a lost worker. A
// model call's text is published as it streams (see stream.go); seq is
// the number of the session's last event before it.
func (r *Runtime) perform(ctx context.Context, agent string, b []byte, want toolwire.EffectKind, seq int) (Outcome, error) {
	e, err := r.entryFor(agent)
	if err != nil {
		return Outcome{}, err
	}
	var st toolwire.State
	if err := st.UnmarshalJSON(b); err != nil {
		return Outcome{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), "BadState", nil)
	}
	if st.Next.Kind != want {
		return Outcome{}, sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf("the state wants %s, not %s", st.Next.Kind, want), "BadState", nil)
	}
	if err := e.session(ctx, st.ID); err != nil {
		return Outcome{}, err // the store is unreachable: retried
	}
	stop := heartbeat(ctx, r.cfg.Heartbeat/3)
	pctx, unpublish := ctx, func() {}
	if want == toolwire.CallModel {
		pctx, unpublish = r.publish(ctx, e, st.ID, seq)
	}
	in := e.a.Perform(pctx, &st)
	unpublish()
	stop()
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	out, err := toolwire.MarshalInput(in)
	if err != nil {
		return Outcome{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), "BadOutcome", nil)
	}
	return Outcome{Input: out}, nil
}

// session makes sure the store that keeps the agent's offloaded results
// has the session id, which they are kept under: a result that shaping
// offloads on one worker is then read by read_result on any other, and
// only its ref is in the workflow's history.
func (e *entry) session(ctx context.Context, id string) error {
	if e.results == nil {
		return nil
	}
	if _, ok := e.made.Load(id); ok {
		return nil
	}
	_, err := e.results.Create(ctx, session.Session{ID: id, Title: "Temporal session " + id, Agent: e.name})
	if err != nil && !errors.Is(err, session.ErrConflict) {
		return fmt.Errorf("temporal: the session store that keeps the results: %w", err)
	}
	e.made.Store(id, true)
	return nil
}

// heartbeat heartbeats every interval until the returned function is
// called, which waits for it to stop.
func heartbeat(ctx context.Context, every time.Duration) (stop func()) {
	return tick(ctx, every, func() bool {
		activity.RecordHeartbeat(ctx)
		return true
	})
}

// tick calls f every interval, until f returns false, ctx ends or the
// returned function is called, which waits for it to stop.
func tick(ctx context.Context, every time.Duration, f func() bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if !f() {
					return
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
