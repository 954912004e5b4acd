package toolwire

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// An Agent runs the tool-call loop of one model with one set of tools. It
// is safe for concurrent use: each run has its own state.
type Agent struct {
	model   llm.Model
	name    string             // the model's name (llm.Named), or ""
	dialect transcript.Dialect // "" for a model without wire rules
	fitWith transcript.Dialect // the rules fitting keeps: dialect, or Chat's
	cfg     *Config
	src     *tool.Registry // the caller's tools, Config.Tools
	reg     *tool.Registry // the tools the executor runs: src's, and read_result
	tools   atomic.Pointer[toolSet]
	tmu     sync.Mutex // held while tools is brought up to date
	exec    *tool.Executor
	counter budget.Counter
	store   toolresult.Store
	fit     *budget.Fitter // the agent's fitting, checked at New
	reserve int            // tokens kept free for the model's answer
	hooks   []Hook
	output  *tool.Schema
	system  string
}

// New returns an agent that calls model with the tools of cfg. A nil cfg
// means the defaults: no system prompt, no tools but read_result, 12
// turns at most. New fails on a configuration it cannot use, and on a
// model whose dialect transcript does not know.
func New(model llm.Model, cfg *Config) (*Agent, error) {
	if model == nil {
		return nil, errors.New("toolwire: new agent: the model is nil")
	}
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	a := &Agent{model: model, cfg: c, fitWith: transcript.OpenAIChat, system: c.System}
	if n, ok := model.(llm.Named); ok {
		a.name = n.Name()
	}
	if cfg == nil || cfg.Limits == (budget.Limits{}) {
		// No limits given: the model's own, where the table knows it.
		if l, ok := budget.DefaultTable().Lookup(a.name); ok {
			c.Limits = l
		}
	}
	if d := model.Dialect(); d != "" {
		pd, err := transcript.ParseDialect(d)
		if err != nil {
			return nil, fmt.Errorf("toolwire: new agent: the model's dialect: %w", err)
		}
		a.dialect, a.fitWith = pd, pd
	}
	a.counter = c.Counter
	if a.counter == nil {
		var err error
		if a.counter, err = budget.NewCounter(c.Limits.Encoding); err != nil {
			return nil, fmt.Errorf("toolwire: new agent: %w", err)
		}
	}
	a.store = c.Store
	if a.store == nil {
		a.store = toolresult.NewMemoryStore(0)
		if r, ok := c.Sessions.(session.Results); ok {
			a.store = sessionResults{r: r, fallback: a.store}
		}
	}
	fc := budget.FitConfig{}
	if c.Fit != nil {
		fc = *c.Fit
	}
	fc.Store = nil // the loop keeps what fitting clears (Effect.Offload)
	var err error
	if a.fit, err = budget.NewFitter(a.counter, c.Limits, a.fitWith, &fc); err != nil {
		return nil, fmt.Errorf("toolwire: new agent: %w", err)
	}
	a.reserve = fc.Reserve
	if a.reserve == 0 {
		a.reserve = min(c.Limits.MaxOutput, 8192)
	}
	a.hooks = slices.Clone(c.Hooks)
	if cfg != nil && cfg.Logger != nil {
		a.hooks = append(a.hooks, LogHook(cfg.Logger))
	}
	shaper, err := toolresult.NewShaper(a.counter, a.store, nil)
	if err != nil {
		return nil, fmt.Errorf("toolwire: new agent: %w", err)
	}
	// The agent's own registry: the caller's tools and read_result.
	a.src, a.reg = c.Tools, tool.NewRegistry()
	rr, err := tool.ReadResult(shaper)
	if err != nil {
		return nil, fmt.Errorf("toolwire: new agent: %w", err)
	}
	if err := a.reg.Add(rr); err != nil {
		return nil, fmt.Errorf("toolwire: new agent: %w", err)
	}
	if _, err := a.toolSet(); err != nil {
		return nil, fmt.Errorf("toolwire: new agent: %w", err)
	}
	var ec tool.Config
	if c.Executor != nil {
		ec = *c.Executor
	}
	ec.Shaper = shaper
	if ec.Approver == nil {
		// Calls that need approval pause the run; at Resume, the person's
		// decisions reach the executor through the context.
		ec.Approver = tool.ApproverFunc(decided)
	}
	ec.Images = budget.ImagePolicy(a.fitWith, c.Limits)
	if ec.Logger == nil {
		ec.Logger = c.Logger
	}
	if a.exec, err = tool.NewExecutor(a.reg, &ec); err != nil {
		return nil, fmt.Errorf("toolwire: new agent: %w", err)
	}
	if len(c.Output) > 0 {
		if a.output, err = tool.CompileSchema("output", []byte(c.Output)); err != nil {
			return nil, fmt.Errorf("toolwire: new agent: Output: %w", err)
		}
		a.system = outputInstructions(c.System, c.Output)
	}
	return a, nil
}

// Tools returns what the model is told about the agent's tools, read_result
// included, in registration order.
func (a *Agent) Tools() []llm.ToolSpec {
	return append([]llm.ToolSpec(nil), a.toolset().specs...)
}

// A toolSet is what the loop knows of the agent's tools at one version
// of the caller's registry.
type toolSet struct {
	version uint64         // of the caller's registry
	specs   []llm.ToolSpec // the same slice for every call, so clients cache its encoding
	level   map[string]tool.Idempotency
	approve map[string]bool
	params  map[string]*tool.Schema // the argument schemas of tools that need approval, for edits
}

// toolset returns the agent's tools as they are now. The caller's
// registry may change while the agent runs (an MCP server that announces
// a new tool list): the first step that prepares a model call after a
// change sees it, and the request it builds lists the new tools. A tool
// whose schema does not compile keeps the set the agent had.
func (a *Agent) toolset() *toolSet {
	ts, err := a.toolSet()
	if err != nil {
		a.cfg.Logger.Warn("the tools changed and one cannot be used; the agent keeps its previous tools", "err", err)
		return a.tools.Load()
	}
	return ts
}

// toolSet brings the agent's tools up to date with the caller's registry.
func (a *Agent) toolSet() (*toolSet, error) {
	if ts := a.tools.Load(); ts != nil && ts.version == a.src.Version() {
		return ts, nil
	}
	a.tmu.Lock()
	defer a.tmu.Unlock()
	if ts := a.tools.Load(); ts != nil && ts.version == a.src.Version() {
		return ts, nil
	}
	ts := &toolSet{level: map[string]tool.Idempotency{}, approve: map[string]bool{}, params: map[string]*tool.Schema{}}
	reg := tool.NewRegistry()
	reg.Sync(a.reg) // a copy, so that a failure leaves a.reg as it is
	ts.version = reg.Sync(a.src, tool.ReadResultName)
	for _, s := range reg.Specs() {
		ts.level[s.Name] = s.Idempotency
		ts.approve[s.Name] = s.RequiresApproval
		if s.RequiresApproval && len(s.Parameters) > 0 {
			var err error
			if ts.params[s.Name], err = tool.CompileSchema(s.Name, s.Parameters); err != nil {
				return nil, err
			}
		}
	}
	ts.specs = reg.ToolSpecs()
	a.reg.Sync(reg)
	a.tools.Store(ts)
	return ts, nil
}

// Dialect returns the dialect whose rules the history is checked by before
// every model call, "" when the model has none.
func (a *Agent) Dialect() transcript.Dialect { return a.dialect }

// Start returns the first state of a run that asks question: the system
// prompt, the question, and a model call to make. It has a new run ID.
func (a *Agent) Start(question string) *State {
	var msgs []llm.Message
	if a.system != "" {
		msgs = append(msgs, llm.System(a.system))
	}
	msgs = append(msgs, llm.User(question))
	s := &State{ID: newRunID(), Messages: msgs, Next: Effect{Kind: CallModel}, mem: &scratch{}}
	a.prepare(s, &Change{})
	return s
}

// newRunID returns a new random run id.
func newRunID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails on supported platforms
	return "run_" + hex.EncodeToString(b[:])
}

// idempotencyKey derives the key of a level-1 call from the run and the
// call id: the same call gets the same key in every process.
func idempotencyKey(run, call string) string {
	sum := sha256.Sum256([]byte(run + "\x00" + call))
	return "idem_" + hex.EncodeToString(sum[:16])
}

// Close waits until every tool call that ignored its cancellation, which
// the executor stopped waiting for, has returned, or ctx is done; see
// tool.Executor.Close. The agent stays usable.
func (a *Agent) Close(ctx context.Context) error {
	if err := a.exec.Close(ctx); err != nil {
		return fmt.Errorf("toolwire: close: %w", err)
	}
	return nil
}
