package tool

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// OutputPolicy says what happens when a tool's result breaks its declared
// return schema.
type OutputPolicy string

// The output policies.
const (
	// OutputPartial keeps the data and marks the result partial, with a
	// summary that names the failing fields. The default.
	OutputPartial OutputPolicy = "partial"
	// OutputError drops the data and reports internal_error naming the
	// failing fields.
	OutputError OutputPolicy = "error"
)

// Config configures an [Executor]. A nil *Config, or a zero field, means
// the documented default.
type Config struct {
	// MaxParallel bounds how many calls of one turn run at once.
	// Default 8.
	MaxParallel int
	// Timeout bounds one attempt of a tool whose Spec has no Timeout.
	// Default 30s.
	Timeout time.Duration
	// MaxAttempts bounds how many times a retryable call runs, the first
	// attempt included. Default 3. Level-0 tools (and tools with no
	// declared level) always run at most once.
	MaxAttempts int
	// BaseBackoff is the wait before the first retry; each later retry
	// waits twice as long, with jitter (a random 50–100% of the step).
	// Default 200ms.
	BaseBackoff time.Duration
	// MaxBackoff caps one wait between attempts. Default 5s.
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest retry_after the executor waits out
	// itself; a longer one is returned to the model instead. Default 30s.
	MaxRetryAfter time.Duration
	// Grace is how long a tool whose context is done (timeout or
	// cancellation) may take to return before the executor stops waiting
	// for it. Default 1s.
	Grace time.Duration
	// Approver is consulted before every call of a tool whose Spec has
	// RequiresApproval. nil means such calls are refused.
	Approver Approver
	// InvalidOutput says what to do with a result that breaks the tool's
	// return schema. Default [OutputPartial].
	InvalidOutput OutputPolicy
	// NoRepair disables the repair of malformed JSON arguments.
	NoRepair bool
	// Logger receives what the model must not see: panic stack traces and
	// tools that ignore cancellation. nil discards it.
	Logger *slog.Logger
	// Shaper, when set, shapes every result to its token budget before
	// it is rendered ([toolresult.Shaper]): each tool's Spec.Shape rules
	// apply, and a tool with a return schema has its output read as
	// JSON. Register [ReadResult] over the same shaper so that the model
	// can page through what was offloaded. nil renders results whole.
	Shaper *toolresult.Shaper
	// Images says how images in results reach the model; the zero value
	// describes them, which every dialect accepts. Set
	// [toolresult.InlineImages] for dialects that take images in tool
	// results (budget.ImagePolicy says which).
	Images toolresult.ImagePolicy
}

// WithDefaults returns a copy of c with every zero field set to its
// default. It accepts a nil c.
func (c *Config) WithDefaults() *Config {
	var out Config
	if c != nil {
		out = *c
	}
	out.MaxParallel = cmp.Or(out.MaxParallel, 8)
	out.Timeout = cmp.Or(out.Timeout, 30*time.Second)
	out.MaxAttempts = cmp.Or(out.MaxAttempts, 3)
	out.BaseBackoff = cmp.Or(out.BaseBackoff, 200*time.Millisecond)
	out.MaxBackoff = cmp.Or(out.MaxBackoff, 5*time.Second)
	out.MaxRetryAfter = cmp.Or(out.MaxRetryAfter, 30*time.Second)
	out.Grace = cmp.Or(out.Grace, time.Second)
	out.InvalidOutput = cmp.Or(out.InvalidOutput, OutputPartial)
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return &out
}

// validate reports every field of a defaulted config that is out of range.
func (c *Config) validate() error {
	var problems []string
	neg := func(name string, bad bool) {
		if bad {
			problems = append(problems, name+" is negative")
		}
	}
	neg("MaxParallel", c.MaxParallel < 0)
	neg("Timeout", c.Timeout < 0)
	neg("MaxAttempts", c.MaxAttempts < 0)
	neg("BaseBackoff", c.BaseBackoff < 0)
	neg("MaxBackoff", c.MaxBackoff < 0)
	neg("MaxRetryAfter", c.MaxRetryAfter < 0)
	neg("Grace", c.Grace < 0)
	if c.Images != "" && c.Images != toolresult.DescribeImages && c.Images != toolresult.InlineImages {
		problems = append(problems, fmt.Sprintf("Images %q is not %q or %q", c.Images, toolresult.DescribeImages, toolresult.InlineImages))
	}
	if c.InvalidOutput != OutputPartial && c.InvalidOutput != OutputError {
		problems = append(problems, fmt.Sprintf("InvalidOutput %q is not %q or %q", c.InvalidOutput, OutputPartial, OutputError))
	}
	if c.MaxBackoff < c.BaseBackoff {
		problems = append(problems, fmt.Sprintf("MaxBackoff %v is below BaseBackoff %v", c.MaxBackoff, c.BaseBackoff))
	}
	if problems != nil {
		return errors.New("tool: invalid executor config: " + strings.Join(problems, "; "))
	}
	return nil
}

// An Approver decides whether a call of a tool that requires approval may
// run; a person usually answers. It is called once per call, after the
// arguments are validated, before the first attempt; args are the
// validated arguments with defaults filled in.
//
// Returning approved=false makes the call's result rejected_by_user, with
// reason (if any) in its message. An error means no decision could be
// obtained: the call does not run and the result is permission_denied.
type Approver interface {
	Approve(ctx context.Context, spec Spec, call llm.ToolCall, args []byte) (approved bool, reason string, err error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, spec Spec, call llm.ToolCall, args []byte) (bool, string, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, spec Spec, call llm.ToolCall, args []byte) (bool, string, error) {
	return f(ctx, spec, call, args)
}

// CallInfo describes the call a tool is running for; a tool reads it with
// [CallInfoFrom].
type CallInfo struct {
	// ID is the model's call id.
	ID string
	// Name is the tool name.
	Name string
	// Attempt counts from 1.
	Attempt int
	// IdempotencyKey is set for level-1 tools: the same key on every
	// attempt of one call, a new key for every call. Pass it to the
	// service that deduplicates (an Idempotency-Key header).
	IdempotencyKey string
	// Budget is the most tokens the call's result may take once
	// rendered; 0 means the shaper's default. Tools that page or
	// summarise themselves (read_result) size their output to it.
	Budget int
}

type callInfoKey struct{}

// CallInfoFrom returns the [CallInfo] of the call a tool is running for.
func CallInfoFrom(ctx context.Context) (CallInfo, bool) {
	ci, ok := ctx.Value(callInfoKey{}).(*CallInfo)
	if !ok {
		return CallInfo{}, false
	}
	return *ci, true
}

// An Outcome is what one call produced: the result for the model and the
// envelope it was rendered from.
type Outcome struct {
	// Result answers the call: same call id and tool name, content in the
	// tool-message protocol.
	Result llm.ToolResult
	// Envelope is the observation before rendering, for traces and
	// tests; shaped when the executor has a Shaper. JSON data is a
	// jsontext.Value of the bytes the tool returned, even when the tool
	// gave it parsed ([toolresult.JSON]).
	Envelope toolresult.Envelope
	// Shaping says what the shaper did; nil when nothing was shaped.
	Shaping *toolresult.Report
	// Cancelled says whether the cancellation of the context the call
	// ran under kept it from finishing, and whether it had started; ""
	// when it did not (the result is then what the call gave). The
	// Result of a cancelled call is an error of type cancelled.
	Cancelled Cancellation
}

// A Cancellation says how the cancellation of a run's context met a
// call that it kept from finishing: before its tool started, or while
// it ran. The executor reports it; what the call becomes (run again,
// answered) is the caller's decision.
type Cancellation string

// The cancellations.
const (
	// CancelledBeforeStart: the tool never ran (the context was done
	// before the call's turn came, while its approval was asked, or as
	// its start was recorded). Nothing took effect.
	CancelledBeforeStart Cancellation = "before_start"
	// CancelledWhileRunning: an attempt had started and did not finish:
	// the tool returned the context's error, or ignored it and was no
	// longer waited for. Whether it took effect is unknown.
	CancelledWhileRunning Cancellation = "while_running"
)

// Results returns the results of outcomes, in order.
func Results(outcomes []Outcome) []llm.ToolResult {
	out := make([]llm.ToolResult, len(outcomes))
	for i, o := range outcomes {
		out[i] = o.Result
	}
	return out
}

// An Executor runs tool calls: it validates each call's arguments against
// the tool's contract, asks for approval where required, runs the tool
// with its timeout, retries what the idempotency level allows, and turns
// whatever happens into exactly one result per call. It is safe for
// concurrent use.
//
// Nothing the executor starts outlives [Executor.Run] or [Executor.Call],
// except a tool that ignores its context: the executor stops waiting for
// it after [Config.Grace] (the call is reported as timed out or cancelled,
// with an outcome marked unknown) and tracks its goroutine until it
// returns. [Executor.Close] waits for such stragglers.
type Executor struct {
	reg        *Registry
	cfg        *Config
	stragglers sync.WaitGroup
	abandoned  atomic.Int64
}

// NewExecutor returns an executor over reg. A nil cfg means defaults.
func NewExecutor(reg *Registry, cfg *Config) (*Executor, error) {
	if reg == nil {
		return nil, errors.New("tool: new executor: the registry is nil")
	}
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &Executor{reg: reg, cfg: c}, nil
}

// Run executes one assistant turn's calls concurrently, at most
// MaxParallel at a time, and returns one outcome per call in the calls'
// order, whatever order they finish in. One call's failure never hides
// another's result. When ctx is cancelled, calls not yet finished get a
// cancelled result.
func (e *Executor) Run(ctx context.Context, calls []llm.ToolCall) []Outcome {
	return e.RunWithin(ctx, calls, 0)
}

// RunWithin is [Executor.Run] for a turn whose results may take at most
// tokens tokens together (budget.Room computes it from the window, the
// history and the output reserve): each call's result is shaped to an
// equal share. tokens 0 gives every result the shaper's default budget.
// Without a Shaper, tokens only sets [CallInfo].Budget.
func (e *Executor) RunWithin(ctx context.Context, calls []llm.ToolCall, tokens int) []Outcome {
	out := make([]Outcome, len(calls))
	share := 0
	if tokens > 0 && len(calls) > 0 {
		share = max(1, tokens/len(calls))
	}
	var g errgroup.Group
	g.SetLimit(e.cfg.MaxParallel)
	for i, c := range calls {
		g.Go(func() error {
			out[i] = e.callWithin(ctx, c, share) // recovers panics and never fails
			return nil
		})
	}
	_ = g.Wait()
	return out
}

// Call executes one call and returns its outcome; see [Executor.Run].
func (e *Executor) Call(ctx context.Context, call llm.ToolCall) Outcome {
	return e.callWithin(ctx, call, 0)
}

func (e *Executor) callWithin(ctx context.Context, call llm.ToolCall, budget int) Outcome {
	start := time.Now()
	var rec recording
	env, doc, known := e.call(ctx, call, budget, &rec)
	if env.Meta.Duration == 0 {
		env.Meta.Duration = time.Since(start) - rec.spent // the call's, not its records'
	}
	if env.Meta.Source == "" && known {
		env.Meta.Source = call.Name
	}
	// The data parsed once, for the shaper and the renderer; the outcome
	// keeps it as the tool gave it.
	parsed := env
	if doc != nil {
		parsed.Data = doc
	}
	var out Outcome
	shaped := false
	if e.cfg.Shaper != nil && env.Meta.Level == "" {
		var s toolresult.Shaped
		if s, shaped = e.shape(ctx, call, parsed, budget); shaped {
			out = Outcome{Result: s.Result(call.ID, call.Name), Envelope: s.Envelope, Shaping: &s.Report}
		}
	}
	if !shaped {
		out = Outcome{Result: parsed.Result(call.ID, call.Name), Envelope: env}
	}
	out.Cancelled = rec.cancelled
	if last := rec.last; last != nil {
		// The last attempt's finished record holds the result exactly as
		// the model reads it; it is written even when ctx is done.
		last.at.Cut = rec.cancelled == CancelledWhileRunning
		last.at.Error = errorType(out.Envelope)
		last.rec.Finish(context.WithoutCancel(ctx), last.at, out.Result, time.Since(last.start))
	}
	return out
}

// errorType returns the type of env's error, "" when it is no error.
func errorType(env toolresult.Envelope) toolresult.ErrorType {
	if env.Status != llm.StatusError || env.Error == nil {
		return ""
	}
	return env.Error.Type
}

// A Recorder is told about every attempt of a call: before it runs and
// after it returns. A durable loop writes its write-ahead records through
// it (see [WithRecorder]). Its methods may be called concurrently, for
// the calls of one turn.
type Recorder interface {
	// Start is called before an attempt runs. An error stops the call:
	// the attempt does not run, and the call's result is an
	// internal_error saying that it did not run.
	Start(ctx context.Context, a Attempt) error
	// Finish is called once for every attempt that Start let run, with
	// its result and how long it ran: for the call's last attempt, the
	// result exactly as the model reads it (shaped); for an attempt that
	// is retried, the result of that attempt. An attempt that the
	// cancellation of ctx cut short has a.Cut set: its result only says
	// so, and whether it took effect is unknown.
	Finish(ctx context.Context, a Attempt, r llm.ToolResult, d time.Duration)
}

// An Attempt is one attempt of one call, as a [Recorder] sees it.
type Attempt struct {
	// Call is the call as the model made it (or as a person edited it).
	Call llm.ToolCall
	// Idempotency is the tool's declared level.
	Idempotency Idempotency
	// Key is the idempotency key of a level-1 call, "" for other levels.
	Key string
	// Number counts the call's attempts in this run, from 1.
	Number int
	// Cut is set, at Finish, when the cancellation of the context cut the
	// attempt short: it started and did not finish
	// ([CancelledWhileRunning]).
	Cut bool
	// Error is set, at Finish, to the type of the attempt's error when
	// its result is an error; "" otherwise.
	Error toolresult.ErrorType
}

type recorderKey struct{}

// WithRecorder returns a context under which [Executor.Run] tells r about
// every attempt of every call of a registered tool that passed its
// checks: calls refused before running (unknown tool, invalid arguments,
// approval refused) have no attempt.
func WithRecorder(ctx context.Context, r Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// recording is what one call left for the caller besides its envelope:
// the attempt whose finished record waits for the shaped result, the
// time spent writing records, which is not the call's, and whether the
// cancellation of the context kept the call from finishing.
type recording struct {
	last      *lastAttempt
	spent     time.Duration
	cancelled Cancellation
}

// lastAttempt is the attempt whose finished record waits for the call's
// shaped result.
type lastAttempt struct {
	rec   Recorder
	at    Attempt
	start time.Time
}

// shape shapes a call's envelope with its tool's rules; ok is false
// when it cannot be shaped (the envelope is then rendered as it is,
// which reports a broken one as internal_error).
func (e *Executor) shape(ctx context.Context, call llm.ToolCall, env toolresult.Envelope, budget int) (toolresult.Shaped, bool) {
	req := toolresult.Request{Tool: call.Name, Budget: budget, Images: e.cfg.Images}
	if ent := e.reg.entry(call.Name); ent != nil {
		req.Rules = ent.c.spec.Shape
		req.JSON = ent.c.returns != nil
	}
	if env.Validate() != nil {
		return toolresult.Shaped{}, false
	}
	shaped, err := e.cfg.Shaper.Shape(ctx, env, req)
	if err != nil {
		e.cfg.Logger.Warn("tool result could not be shaped; sent as it is", "tool", call.Name, "call_id", call.ID, "err", err)
		return toolresult.Shaped{}, false
	}
	return shaped, true
}

// Close waits until every tool goroutine the executor stopped waiting for
// has returned, or ctx is done. It reports how many are still running.
// The executor stays usable.
func (e *Executor) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		e.stragglers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("tool: close: %d tool calls ignored cancellation and are still running: %w", e.abandoned.Load(), ctx.Err())
	}
}

// call runs the whole validate-and-call pipeline for one call; doc is
// the data of env parsed, if it is JSON; known reports whether the
// registry has the tool.
func (e *Executor) call(ctx context.Context, call llm.ToolCall, budget int, rec *recording) (env toolresult.Envelope, doc *toolresult.JSON, known bool) {
	ent := e.reg.entry(call.Name)
	if err := ctx.Err(); err != nil {
		rec.cancelled = CancelledBeforeStart
		return notRun(toolresult.Cancelled, call, "the call was cancelled before it started"), nil, ent != nil
	}
	if ent == nil {
		return e.unknownTool(call), nil, false
	}
	env, doc = e.callTool(ctx, ent, call, budget, rec)
	return env, doc, true
}

// callTool runs a registered tool's validate-and-call pipeline, and
// returns its envelope and the envelope's data parsed (see finish). With
// a Recorder in ctx, it sets rec.last to the attempt whose finished
// record the caller writes once the result is shaped.
func (e *Executor) callTool(ctx context.Context, ent *entry, call llm.ToolCall, budget int, out *recording) (toolresult.Envelope, *toolresult.JSON) {
	p, fail := prepare(ent.c, call, !e.cfg.NoRepair)
	if fail != nil {
		fail.Meta.Repaired = p.repaired
		return *fail, nil
	}
	repaired := p.repaired
	brief := callBrief(call.Name, p.value, ent.c.properties)
	spec := ent.c.spec
	if spec.RequiresApproval {
		args, err := p.json()
		if err != nil {
			env := envelopeFor(err)
			env.Meta.Repaired = repaired
			return env, nil
		}
		if env, ok := e.approve(ctx, spec, call, args, brief); !ok {
			if env.Error != nil && env.Error.Type == toolresult.Cancelled {
				out.cancelled = CancelledBeforeStart
			}
			env.Meta.Repaired = repaired
			return env, nil
		}
	}
	level := spec.Idempotency
	ci := CallInfo{ID: call.ID, Name: call.Name, Budget: budget}
	if level == Level1 {
		if ci.IdempotencyKey = keyFrom(ctx, call.ID); ci.IdempotencyKey == "" {
			ci.IdempotencyKey = newKey()
		}
	}
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = e.cfg.Timeout
	}
	maxAttempts := 1
	if level == Level1 || level == Level2 {
		maxAttempts = e.cfg.MaxAttempts
	}
	rec, _ := ctx.Value(recorderKey{}).(Recorder)
	var env toolresult.Envelope
	for attempt := 1; ; attempt++ {
		ci.Attempt = attempt
		at := Attempt{Call: call, Idempotency: level, Key: ci.IdempotencyKey, Number: attempt}
		if rec != nil {
			t := time.Now()
			err := rec.Start(ctx, at)
			out.spent += time.Since(t)
			if err != nil && ctx.Err() != nil {
				env = notRun(toolresult.Cancelled, call, "the call was cancelled before it started")
				out.cancelled = CancelledBeforeStart
				break
			}
			if err != nil {
				env = toolresult.Failure(toolresult.InternalError, "the call could not be recorded before it ran, so it did not run ("+shortMessage(err.Error(), "unknown error")+")")
				break
			}
		}
		start := time.Now()
		var cut bool
		env, cut = e.attempt(ctx, ent, ci, &p, timeout, level)
		if cut {
			out.cancelled = CancelledWhileRunning
		}
		env.Meta.Attempts = attempt
		final := env.Status != llm.StatusError || env.Error == nil || !env.Error.Retryable ||
			attempt >= maxAttempts || ctx.Err() != nil
		if !final {
			wait := e.backoff(attempt)
			if ra := env.Error.RetryAfter; ra > 0 {
				if ra > e.cfg.MaxRetryAfter {
					final = true // too long to wait here; the model decides
				}
				wait = max(wait, ra)
			}
			if !final && !sleep(ctx, wait) {
				final = true
			}
		}
		if final {
			if rec != nil {
				out.last = &lastAttempt{rec: rec, at: at, start: start}
			}
			break
		}
		if rec != nil {
			t := time.Now()
			at.Error = errorType(env)
			rec.Finish(ctx, at, env.Result(call.ID, call.Name), time.Since(start))
			out.spent += time.Since(t)
		}
	}
	if env.Meta.Attempts == 1 {
		env.Meta.Attempts = 0 // rendered only when the tool ran more than once
	}
	env.Meta.Repaired = repaired
	return e.finish(ent.c, env, brief, level)
}

// The states of an attempt's goroutine, as the executor and the goroutine
// agree on them with compare-and-swap.
const (
	running int32 = iota
	finished
	abandoned
)

// An attemptRun is one attempt in flight: what its goroutine needs and
// what it produced. The goroutine writes err (and what b holds), then
// closes done; the executor reads them only after done is closed, and
// never once it has abandoned the attempt.
type attemptRun struct {
	ci    CallInfo // in the attempt's context, by pointer
	b     bound    // a binder's attempt, or &plain
	plain plainCall
	err   error
	state atomic.Int32
	done  chan struct{}
}

// A plainCall is the attempt of a tool that is not a [binder]: its Call
// with the arguments as JSON.
type plainCall struct {
	tool Tool
	args []byte
	env  toolresult.Envelope
}

func (c *plainCall) run(ctx context.Context) (err error) {
	c.env, err = c.tool.Call(ctx, c.args)
	return err
}

func (c *plainCall) result() (toolresult.Envelope, error) { return c.env, nil }

// attempt runs the tool once with its own deadline, recovering panics. If
// the tool does not return within Grace after its context is done, the
// executor stops waiting and reports a timeout or cancellation whose
// outcome is unknown. cut reports that the cancellation of ctx cut the
// attempt short ([CancelledWhileRunning]).
//
// A [Func] tool's arguments are decoded, and its result encoded, here on
// the caller's goroutine when its types run no code of their own (see
// plainJSON); the attempt's goroutine then runs only the function, and
// does not need to grow its stack for encoding/json. Every attempt is a
// [bound], so that the goroutine (see run) makes one call with a small
// frame: growing its stack would cost more than a fast tool does.
func (e *Executor) attempt(ctx context.Context, ent *entry, ci CallInfo, p *prepared, timeout time.Duration, level Idempotency) (env toolresult.Envelope, cut bool) {
	r := &attemptRun{ci: ci, done: make(chan struct{})}
	if bt, ok := ent.tool.(binder); ok {
		r.b, r.err = e.bind(bt, &r.ci, p)
	} else {
		r.plain.tool = ent.tool
		r.plain.args, r.err = p.json()
		r.b = &r.plain
	}
	if r.err != nil {
		return envelopeFor(r.err), false
	}
	actx, cancel := context.WithTimeout(context.WithValue(ctx, callInfoKey{}, &r.ci), timeout)
	defer cancel()
	e.stragglers.Add(1)
	go e.run(actx, r)
	select {
	case <-r.done:
	case <-actx.Done():
		grace := time.NewTimer(e.cfg.Grace)
		defer grace.Stop()
		select {
		case <-r.done:
		case <-grace.C:
			if !r.state.CompareAndSwap(running, abandoned) { // it returned just now
				<-r.done
				break
			}
			e.abandoned.Add(1)
			e.cfg.Logger.Warn("tool ignored cancellation; no longer waiting for it", "tool", ci.Name, "call_id", ci.ID, "grace", e.cfg.Grace)
			if cut = ctx.Err() != nil; cut {
				env = toolresult.Failure(toolresult.Cancelled, "the call was cancelled and the tool did not stop; its outcome is unknown")
			} else {
				env = toolresult.Failure(toolresult.Timeout, fmt.Sprintf("the tool did not finish within %v and did not stop; its outcome is unknown", timeout))
			}
			if level != Level1 && level != Level2 {
				env.Error.Retryable = false
			}
			return env, cut
		}
	}
	if r.err == nil {
		env, r.err = e.result(r.b, &r.ci)
	}
	if r.err != nil {
		env = envelopeFor(r.err)
		switch {
		case ctx.Err() != nil && (errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded)):
			env = toolresult.Failure(toolresult.Cancelled, "the call was cancelled before it finished")
			cut = true
		case env.Error.Type == toolresult.Timeout && actx.Err() != nil:
			env.Error.Message = fmt.Sprintf("the tool did not finish within %v", timeout)
			env.Summary = env.Error.Message
		}
	}
	return env, cut
}

// run is an attempt's goroutine: it runs the tool, recovering a panic,
// and tells the executor it is done unless the executor stopped waiting.
func (e *Executor) run(ctx context.Context, r *attemptRun) {
	defer e.stragglers.Done()
	defer func() {
		if p := recover(); p != nil {
			r.err = e.panicked(&r.ci, p)
		}
		if !r.state.CompareAndSwap(running, finished) { // the executor stopped waiting
			e.abandoned.Add(-1)
		}
		close(r.done)
	}()
	r.err = r.b.run(ctx)
}

// bind decodes a tool's arguments for one attempt, recovering a panic.
func (e *Executor) bind(bt binder, ci *CallInfo, p *prepared) (b bound, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, e.panicked(ci, r)
		}
	}()
	return bt.bind(*p)
}

// result encodes what a bound attempt produced, recovering a panic.
func (e *Executor) result(b bound, ci *CallInfo) (env toolresult.Envelope, err error) {
	defer func() {
		if p := recover(); p != nil {
			env, err = toolresult.Envelope{}, e.panicked(ci, p)
		}
	}()
	return b.result()
}

// panicked logs a tool's panic with its stack, for the program, and
// returns the error the model sees, without the stack.
func (e *Executor) panicked(ci *CallInfo, p any) error {
	e.cfg.Logger.Error("tool panicked", "tool", ci.Name, "call_id", ci.ID, "panic", p, "stack", string(debug.Stack()))
	return &Error{Type: toolresult.InternalError, Message: "the tool failed unexpectedly (panic: " + shortMessage(fmt.Sprint(p), "unknown") + ")"}
}

// finish gives an envelope its summary and checks the result against the
// return schema, unless the contract proves it (a [Func]'s plain Out).
// It parses JSON data once, for all that reads it after: validation, the
// summary, the shaper and the renderer; doc is that parse, nil when the
// data is not JSON (which rendering then reports) or not parsed.
func (e *Executor) finish(c *contract, env toolresult.Envelope, brief string, level Idempotency) (_ toolresult.Envelope, doc *toolresult.JSON) {
	if !env.Status.Valid() {
		// A tool returned a zero or broken envelope; Result would render
		// internal_error, but say why here.
		if env.Status == "" && env.Error == nil && env.Data == nil && env.Summary == "" {
			env.Status = llm.StatusSuccess
		}
	}
	switch env.Status {
	case llm.StatusError:
		if env.Error == nil {
			env.Error = &toolresult.Error{Type: toolresult.InternalError, Message: shortMessage(env.Summary, "the tool reported an error")}
		}
		if env.Error.Type == toolresult.Timeout && level != Level1 && level != Level2 && env.Suggestion == "" {
			env.Error.Retryable = false // the action may have happened
			env.Suggestion = toolresult.Options("check whether the action took effect before calling " + c.spec.Name + " again")
		}
		if env.Summary == "" || env.Summary == env.Error.Message {
			env.Summary = brief + " failed: " + string(env.Error.Type) + ": " + env.Error.Message
		}
		return env, nil
	case llm.StatusSuccess, llm.StatusPartial:
	default:
		return env, nil // Result renders the protocol violation as internal_error
	}
	switch d := env.Data.(type) {
	case jsontext.Value:
		doc, _ = toolresult.ParseJSON(d) // nil when not JSON: rendered, or refused below, as it is
	case *toolresult.JSON:
		if d != nil { // parsed by the tool (an HTTP tool's body)
			doc, env.Data = d, jsontext.Value(d.Bytes())
		}
	}
	if c.returns != nil && !c.proven && env.Data != nil {
		data, parsed, v, err := dataValue(env.Data, doc)
		if err != nil {
			f := toolresult.Failure(toolresult.InternalError, "the tool's result could not be encoded as JSON: "+shortMessage(err.Error(), "unknown error"))
			f.Summary = brief + " failed: its result could not be encoded"
			f.Meta = env.Meta
			return f, nil
		}
		if _, isJSON := env.Data.(jsontext.Value); !isJSON {
			env.Data, doc = data, parsed // encoded once, for the shaper and the renderer
		}
		if fes := validate(c.returns, v); len(fes) > 0 {
			what := joinFieldErrors(fes, 5)
			if e.cfg.InvalidOutput == OutputError {
				f := toolresult.Failure(toolresult.InternalError, c.spec.Name+" returned a result that breaks its declared return schema: "+what)
				f.Summary = brief + " failed: the result breaks the return schema (" + what + ")"
				f.Meta = env.Meta
				return f, nil
			}
			env.Status = llm.StatusPartial
			if env.Summary == "" {
				env.Summary = successSummary(brief, data, doc)
			}
			env.Summary = strings.TrimSuffix(env.Summary, ".") + ", but the result breaks the return schema, so some fields may be missing or wrong: " + what
			return env, doc
		}
	}
	if env.Summary == "" {
		env.Summary = successSummary(brief, env.Data, doc)
	}
	return env, doc
}

// approve consults the approver; ok is false when the call must not run.
func (e *Executor) approve(ctx context.Context, spec Spec, call llm.ToolCall, args []byte, brief string) (toolresult.Envelope, bool) {
	if e.cfg.Approver == nil {
		env := toolresult.Failure(toolresult.PermissionDenied, spec.Name+" requires human approval and no approver is configured; the call did not run")
		env.Summary = brief + " was not run: approval is required and cannot be asked for"
		return env, false
	}
	approved, reason, err := e.cfg.Approver.Approve(ctx, spec, call, args)
	switch {
	case err != nil && ctx.Err() != nil:
		return notRun(toolresult.Cancelled, call, "the call was cancelled while waiting for approval"), false
	case err != nil:
		env := toolresult.Failure(toolresult.PermissionDenied, "approval could not be obtained ("+shortMessage(err.Error(), "no reason given")+"); the call did not run")
		env.Summary = brief + " was not run: approval could not be obtained"
		return env, false
	case !approved:
		msg := "the user declined this call; it did not run"
		if reason = shortMessage(reason, ""); reason != "" {
			msg = "the user declined this call: " + reason + "; it did not run"
		}
		env := toolresult.Failure(toolresult.RejectedByUser, msg)
		env.Summary = brief + " was rejected by the user"
		env.Suggestion = toolresult.Options("ask the user what they would like instead", "continue without this action")
		return env, false
	}
	return toolresult.Envelope{}, true
}

// unknownTool answers a call to a name no tool has.
func (e *Executor) unknownTool(call llm.ToolCall) toolresult.Envelope {
	names := e.reg.Names()
	near := closest(call.Name, names, 3)
	env := toolresult.Failure(toolresult.UnknownTool, fmt.Sprintf("no tool is named %q", truncate(call.Name, 80)))
	env.Summary = fmt.Sprintf("%s: no such tool", truncate(call.Name, 80))
	switch {
	case len(near) == 1:
		env.Error.Message += fmt.Sprintf("; the closest is %s", near[0])
		env.Suggestion = toolresult.Options("call " + near[0] + " instead")
	case len(near) > 1:
		env.Error.Message += "; the closest are " + strings.Join(near, ", ")
		opts := make([]string, len(near))
		for i, n := range near {
			opts[i] = "call " + n
		}
		env.Suggestion = toolresult.Options(opts...)
	case len(names) > 0:
		if len(names) > 10 {
			names = append(names[:10:10], "…")
		}
		env.Suggestion = toolresult.Options("call one of the available tools: " + strings.Join(names, ", "))
	default:
		env.Suggestion = toolresult.Options("answer without tools: none are available")
	}
	return env
}

// notRun is the failure of a call that never started.
func notRun(typ toolresult.ErrorType, call llm.ToolCall, msg string) toolresult.Envelope {
	env := toolresult.Failure(typ, msg)
	env.Summary = truncate(call.Name, 80) + " was not run: " + msg
	return env
}

// backoff returns the wait after the given attempt: exponential, capped,
// with jitter in [50%, 100%] of the step.
func (e *Executor) backoff(attempt int) time.Duration {
	d := e.cfg.BaseBackoff
	for i := 1; i < attempt && d < e.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, e.cfg.MaxBackoff)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// sleep waits for d or until ctx is done; it reports whether it waited the
// whole time.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

type keysKey struct{}

// WithIdempotencyKeys returns a context under which [Executor.Run] gives
// each level-1 call whose id keys maps to that key instead of a new one:
// a loop that records the key before the call runs passes the same key
// again when it runs the call again after a restart. Calls not in keys
// get new keys.
func WithIdempotencyKeys(ctx context.Context, keys map[string]string) context.Context {
	return context.WithValue(ctx, keysKey{}, keys)
}

// keyFrom returns the key ctx gives the call id, or "".
func keyFrom(ctx context.Context, id string) string {
	keys, _ := ctx.Value(keysKey{}).(map[string]string)
	return keys[id]
}

// newKey returns a fresh idempotency key.
func newKey() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // never fails on supported platforms
	const prefix = "idem_"
	var key [len(prefix) + 2*len(b)]byte
	copy(key[:], prefix)
	hex.Encode(key[len(prefix):], b[:])
	return string(key[:]) // one allocation, where "idem_" + hex.EncodeToString made two
}
