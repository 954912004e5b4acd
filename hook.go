package toolwire

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// A Hook watches runs: logging, progress on a terminal, request dumps, an
// event stream to a browser, tracing. It is told every [Event] of every
// run of the agent, in order for one run: what [Agent.Stream] yields,
// and what only hooks see — each model call before and after it
// ([ModelCallEvent], [ModelDoneEvent]), each tool call attempt as it
// starts and ends ([ToolStartEvent], [ToolDoneEvent]) and what it says of
// its progress ([ToolProgressEvent]), each turn's start
// ([TurnStartEvent]), a pause or cancel ([InterruptEvent]), and the
// bounds of each drive of the loop ([RunStartEvent], [RunEndEvent]).
//
// A hook only watches: it cannot change a run, and what it does takes
// the run's time, so it should be quick. Tool events come from the
// goroutines that run the calls, several at once, and an agent serves
// several runs at once: a Hook must be safe for concurrent use. ctx is
// the run's context; [RunID] says which run an event belongs to.
//
// Several hooks are installed with [Config.Hooks]; with none, a run
// builds no event for them.
type Hook interface {
	Observe(ctx context.Context, e Event)
}

// HookFunc is a [Hook] that is a function.
type HookFunc func(ctx context.Context, e Event)

// Observe calls f.
func (f HookFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }

type runIDKey struct{}

// RunID returns the id of the run whose context ctx is, as hooks and
// tools see it; "" outside a run.
func RunID(ctx context.Context) string {
	id, _ := ctx.Value(runIDKey{}).(string)
	return id
}

// RunStartEvent is told to hooks first as a drive of the loop begins: a
// new run, or a run continued after a pause, a crash or with a new
// message ([Agent.Resume], [Agent.Continue]). Exactly one [RunEndEvent]
// follows it, whatever happens: a hook can hold what it opens for the
// run (a span, a stream) between the two.
type RunStartEvent struct {
	// Turn counts the turns done before this drive.
	Turn int
	// Agent is Config.Name; Model is the model's name when it says it
	// ([llm.Named]). Either may be "".
	Agent, Model string
	// Dialect is the model's ([llm.Model].Dialect).
	Dialect string
}

// RunEndEvent is told to hooks last as every drive of the loop ends,
// after its [DoneEvent]. Result is that DoneEvent's, or nil when the
// caller stopped iterating first (the run then stopped where it was, as
// when it is cancelled) or the drive failed before a result (Err says
// why).
type RunEndEvent struct {
	Turn   int
	Result *Result
	Err    error
}

// ModelCallEvent is told to hooks before each model call, with the exact
// request.
type ModelCallEvent struct {
	Turn    int
	Request *llm.Request
}

// ModelDoneEvent is told to hooks after each model call.
type ModelDoneEvent struct {
	Turn     int
	Usage    llm.Usage
	Duration time.Duration
	// Finish is why the model stopped, when it answered; Model is the
	// model the provider says answered, ResponseID the answer's id where
	// the provider stored it ("" when it did not say).
	Finish            llm.FinishReason
	Model, ResponseID string
	// Failure is why the call failed; nil when it did not.
	Failure *ModelFailure
}

// ToolStartEvent is told to hooks as an attempt of a tool call starts,
// before the tool runs.
type ToolStartEvent struct {
	Turn    int
	Call    llm.ToolCall
	Attempt int
}

// ToolDoneEvent is told to hooks as an attempt of a tool call ends, with
// its result as the model reads it (for the call's last attempt).
type ToolDoneEvent struct {
	Turn    int
	Call    llm.ToolCall
	Attempt int
	Result  llm.ToolResult
	// ErrorType is the type of the attempt's error when Result is an
	// error ("invalid_arguments", "timeout", ...), "" otherwise.
	ErrorType toolresult.ErrorType
	Duration  time.Duration
}

// ToolProgressEvent is told to hooks when a running tool reports how far
// it is (tool.ReportProgress): an MCP server's progress notification.
type ToolProgressEvent struct {
	Turn     int
	CallID   string
	Tool     string
	Attempt  int
	Progress tool.Progress
}

// TurnStartEvent is told when a turn begins: its model call is ready.
type TurnStartEvent struct {
	Turn int
}

// InterruptEvent is told when a run stops before it ends: [Paused] for a
// person's approval, or [Cancelled].
type InterruptEvent struct {
	Turn   int
	Reason StopReason
	// Waiting are the calls that wait for approval, when Paused.
	Waiting []llm.ToolCall
}

func (RunStartEvent) isEvent()     {}
func (RunEndEvent) isEvent()       {}
func (ModelCallEvent) isEvent()    {}
func (ModelDoneEvent) isEvent()    {}
func (ToolStartEvent) isEvent()    {}
func (ToolDoneEvent) isEvent()     {}
func (ToolProgressEvent) isEvent() {}
func (TurnStartEvent) isEvent()    {}
func (InterruptEvent) isEvent()    {}

// notify tells every hook about e.
func (a *Agent) notify(ctx context.Context, e Event) {
	for _, h := range a.hooks {
		h.Observe(ctx, e)
	}
}

// hookRecorder tells hooks about tool call attempts, as the executor
// records them, and passes them on to next (the session's write-ahead
// record), if any.
type hookRecorder struct {
	a    *Agent
	turn int
	next tool.Recorder
}

func (r hookRecorder) Start(ctx context.Context, at tool.Attempt) error {
	if r.next != nil {
		if err := r.next.Start(ctx, at); err != nil {
			return err
		}
	}
	r.a.notify(ctx, ToolStartEvent{Turn: r.turn, Call: at.Call, Attempt: at.Number})
	return nil
}

func (r hookRecorder) Finish(ctx context.Context, at tool.Attempt, res llm.ToolResult, d time.Duration) {
	if r.next != nil {
		r.next.Finish(ctx, at, res, d)
	}
	r.a.notify(ctx, ToolDoneEvent{Turn: r.turn, Call: at.Call, Attempt: at.Number, Result: res, ErrorType: at.Error, Duration: d})
}

// LogHook returns a hook that logs one line per turn to l, at level
// Info, with the turn's calls, their outcomes and durations, the
// history's size and what fitting and the model call cost. It is the
// hook [Config.Logger] installs.
func LogHook(l *slog.Logger) Hook { return logHook{l} }

type logHook struct{ l *slog.Logger }

func (h logHook) Observe(ctx context.Context, e Event) {
	te, ok := e.(TurnEvent)
	if !ok || !h.l.Enabled(ctx, slog.LevelInfo) {
		return
	}
	rep := te.Report
	attrs := []slog.Attr{
		slog.Int("turn", rep.Turn),
		slog.Int("added", rep.Added),
		slog.Int("tokens", rep.Tokens),
		slog.Int("headroom", rep.Headroom),
	}
	if len(rep.Calls) > 0 {
		ids := make([]string, len(rep.Calls))
		tools := make([]string, len(rep.Calls))
		for i, c := range rep.Calls {
			ids[i] = c.ID
			s := c.Tool + ":" + string(c.Status)
			if c.Error != "" {
				s += ":" + string(c.Error)
			}
			tools[i] = s + ":" + c.Duration.Round(100_000).String()
		}
		attrs = append(attrs, slog.String("call_ids", strings.Join(ids, ",")), slog.String("tools", strings.Join(tools, ",")))
	}
	attrs = append(attrs,
		slog.Bool("truncated", rep.Truncated),
		slog.Bool("fitted", rep.Fitted),
		slog.Int("input_tokens", rep.Usage.InputTokens),
		slog.Int("output_tokens", rep.Usage.OutputTokens),
	)
	if rep.Usage.CacheReadTokens > 0 {
		attrs = append(attrs, slog.Int("cache_read_tokens", rep.Usage.CacheReadTokens))
	}
	if rep.Encoded > 0 || rep.Reused > 0 {
		attrs = append(attrs, slog.Int("encoded", rep.Encoded), slog.Int("reused", rep.Reused))
	}
	if rep.Stop != "" {
		attrs = append(attrs, slog.String("stop", string(rep.Stop)))
	}
	h.l.LogAttrs(ctx, slog.LevelInfo, "turn", attrs...)
}
