package toolwire

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// DefaultMaxTurns is the most model calls one run makes when
// Config.MaxTurns is 0.
const DefaultMaxTurns = 12

// Config configures an [Agent]. A nil *Config, and each zero field, mean
// the documented default.
type Config struct {
	// System is the system prompt; "" sends none.
	System string
	// Tools are the tools the model may call; nil means none. The agent
	// adds read_result, which pages through results too large to show
	// whole, unless the registry has a tool of that name.
	Tools *tool.Registry
	// MaxTurns is the most model calls one run makes; the run then stops
	// with [MaxTurns] and a summary of what it gathered. Default
	// [DefaultMaxTurns].
	MaxTurns int
	// MaxRepeats is how many times the model may repeat a call it made in
	// an earlier turn, with the same result, before the run stops with
	// [RepeatedCalls]; each repeat gets a suggestion in its tool message.
	// Default 1. Negative stops at the first repeat.
	MaxRepeats int
	// FailureNudge is how many consecutive error results of one tool
	// make its tool message suggest a change of strategy. Default 2.
	FailureNudge int
	// Limits are the model's context window and output limit. The zero
	// value means the model's own from budget.DefaultTable(), when the
	// model says its name (llm.Named) and the table knows it, else a
	// 128,000-token window with 16,384 output tokens, counted with the
	// estimator.
	Limits budget.Limits
	// Counter counts tokens; nil means the counter of Limits.Encoding
	// (budget.NewCounter).
	Counter budget.Counter
	// Store keeps the full results that shaping offloads, for read_result;
	// nil means the session's when Sessions keeps results
	// ([session.Results]), else an in-memory store of the agent's own.
	// Each run reaches the store with its own [toolresult.Scope] (its
	// session id, or its run id): a store shared by runs must keep them
	// apart, as [toolresult.MemoryStore] does, so that one user's model
	// cannot read another's results.
	Store toolresult.Store
	// Sessions, when set, makes every run durable: a run is stored as a
	// session named by its [State.ID]; every step's new messages and state
	// are committed atomically; every tool call attempt is recorded
	// before it runs and when it returns; offloaded results are kept with
	// the session. [Agent.Resume] continues a stored session: after a
	// pause for approval, or after a crash. nil keeps runs in memory.
	Sessions session.Store
	// Name names the agent in the sessions it stores. Optional.
	Name string
	// SessionModel says, in the sessions the agent stores, which model
	// the runs talk to (its spec and base URL) and with what options, so
	// that a resume can open the same model ([session.Model]). The
	// agent fills the options it sends itself (Temperature,
	// MaxOutputTokens, Effort) where SessionModel leaves them zero.
	// Optional; it must never hold an API key.
	SessionModel session.Model
	// Executor configures the tool executor (parallelism, timeouts,
	// retries, the approver); its Shaper and Images are set by the agent.
	// nil means the executor's defaults. Without an Approver, a call of a
	// tool that requires approval is not run: the run pauses with
	// [AwaitApproval].
	Executor *tool.Config
	// Fit configures fitting the history into the window; nil means
	// budget's defaults, with Store as the store of cleared results.
	Fit *budget.FitConfig
	// Room configures the room a turn's results get; nil means budget's
	// defaults.
	Room *budget.RoomConfig
	// Output, when set, is the JSON Schema the final answer must match:
	// the model is told to answer with JSON, the answer is validated, and
	// a mismatch gets one corrective turn before the run stops with
	// [InvalidOutput]. [RunTyped] decodes the answer into a Go value.
	Output jsontext.Value
	// Temperature, MaxOutputTokens and Effort are sent with every model
	// call (see llm.Request); zero means the provider's default.
	Temperature     *float64
	MaxOutputTokens int
	Effort          llm.Effort
	// Logger receives one line per turn (level Info, [LogHook]) and what
	// the model must not see; nil discards it.
	Logger *slog.Logger
	// Hooks watch every run of the agent ([Hook]): each is told every
	// event, in order. nil installs none, and a run then builds no event
	// for them.
	Hooks []Hook
}

// WithDefaults returns a copy of c with every zero field set to its
// default. It accepts a nil c.
func (c *Config) WithDefaults() *Config {
	var out Config
	if c != nil {
		out = *c
	}
	if out.Tools == nil {
		out.Tools = tool.NewRegistry()
	}
	out.MaxTurns = cmp.Or(out.MaxTurns, DefaultMaxTurns)
	switch {
	case out.MaxRepeats == 0:
		out.MaxRepeats = 1
	case out.MaxRepeats < 0:
		out.MaxRepeats = 0
	}
	out.FailureNudge = cmp.Or(out.FailureNudge, 2)
	out.Limits = cmp.Or(out.Limits, budget.Limits{Window: 128_000, MaxOutput: 16_384, Encoding: budget.Estimated})
	out.Limits.Encoding = cmp.Or(out.Limits.Encoding, budget.Estimated)
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return &out
}

// validate reports every field of a defaulted config that cannot be used.
func (c *Config) validate() error {
	var problems []string
	if c.MaxTurns < 0 {
		problems = append(problems, fmt.Sprintf("MaxTurns %d is negative", c.MaxTurns))
	}
	if c.FailureNudge < 0 {
		problems = append(problems, fmt.Sprintf("FailureNudge %d is negative", c.FailureNudge))
	}
	if c.MaxOutputTokens < 0 {
		problems = append(problems, fmt.Sprintf("MaxOutputTokens %d is negative", c.MaxOutputTokens))
	}
	if err := c.Limits.Validate(); err != nil {
		problems = append(problems, "Limits: "+strings.TrimPrefix(err.Error(), "budget: limits: "))
	}
	if t := c.Temperature; t != nil && (*t < 0 || *t > 2 || *t != *t) {
		problems = append(problems, fmt.Sprintf("Temperature %v is outside [0, 2]", *t))
	}
	if !c.Effort.Valid() {
		problems = append(problems, fmt.Sprintf("Effort %q is not minimal, low, medium or high", c.Effort))
	}
	if problems != nil {
		return errors.New("toolwire: invalid config: " + strings.Join(problems, "; "))
	}
	return nil
}
