// Package otelhook traces and measures toolwire runs with OpenTelemetry,
// following the semantic conventions for generative AI: a [toolwire.Hook]
// that turns a run's events into spans and metrics.
//
// Each drive of the loop is an "invoke_agent {agent}" span, whose
// children are one client span per model call, named "{operation}
// {model}" ("chat gpt-4.1", "generate_content gemini-2.5-flash"), and one
// "execute_tool {tool}" span per attempt of a tool call, with the call's
// id set as the span starts and, on failure, error.type set to the tool
// message's error type. A call answered without running (invalid
// arguments, an unknown tool, a rejection) gets a span of no length with
// toolwire.tool.ran=false, so that every call the model made is in the
// trace. gen_ai.conversation.id is the run's session id: a run resumed
// after a pause is a second invoke_agent span of the same conversation.
// Two metrics are recorded: gen_ai.client.operation.duration and
// gen_ai.client.token.usage.
//
// Messages, arguments and results can hold secrets: they are recorded
// only with [Options].Content.
//
// The hook costs a run nothing measurable when neither tracing nor the
// metrics are enabled (no SDK installed): it keeps nothing for the run
// and returns at once for its other events.
package otelhook

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// scope names the instrumentation: this package.
const scope = "github.com/toolwire/toolwire/otelhook"

// Options configures a [Hook]. A nil *Options means the defaults.
type Options struct {
	// TracerProvider and MeterProvider are where spans and metrics go; nil
	// means OpenTelemetry's global ones (otel.GetTracerProvider,
	// otel.GetMeterProvider).
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Provider is gen_ai.provider.name ("openai", "anthropic",
	// "gcp.gemini", ...); "" means the one the model's dialect implies
	// (see [ProviderOf]). Set it for a server that speaks another
	// provider's dialect.
	Provider string
	// Agent is gen_ai.agent.name, and names the invoke_agent spans; ""
	// means the run's ([toolwire.Config].Name).
	Agent string
	// Content records what the model is sent (gen_ai.input.messages on
	// model call spans) and each tool call's arguments and result
	// (gen_ai.tool.call.arguments, gen_ai.tool.call.result). They can
	// hold secrets: off by default.
	Content bool
}

// A Hook is a [toolwire.Hook] that records spans and metrics. It is safe
// for concurrent use, by several runs and several agents.
type Hook struct {
	opts      Options
	tracer    trace.Tracer
	durations metric.Float64Histogram
	tokens    metric.Int64Histogram

	mu   sync.Mutex
	runs map[string]*run // by run id
}

// run is what the hook keeps for one drive of a run.
type run struct {
	ctx      context.Context // holds the invoke_agent span, the children's parent
	span     trace.Span
	provider string
	model    string
	op       string     // the model calls' gen_ai.operation.name
	call     trace.Span // the model call in flight, or nil
	tools    map[attemptKey]trace.Span
	ran      map[string]bool // calls of this turn with an attempt span
	turn     int
}

type attemptKey struct {
	id      string
	attempt int
}

// New returns a hook that records to the providers of o.
func New(o *Options) (*Hook, error) {
	h := &Hook{runs: map[string]*run{}}
	if o != nil {
		h.opts = *o
	}
	tp, mp := h.opts.TracerProvider, h.opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	h.tracer = tp.Tracer(scope)
	meter := mp.Meter(scope)
	var err error
	h.durations, err = meter.Float64Histogram("gen_ai.client.operation.duration",
		metric.WithDescription("GenAI operation duration."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	h.tokens, err = meter.Int64Histogram("gen_ai.client.token.usage",
		metric.WithDescription("Number of input and output tokens used."), metric.WithUnit("{token}"),
		metric.WithExplicitBucketBoundaries(tokenBuckets...))
	if err != nil {
		return nil, err
	}
	return h, nil
}

// ProviderOf returns the gen_ai.provider.name of a model's dialect: what
// [Options].Provider defaults to.
func ProviderOf(dialect string) string {
	switch transcript.Dialect(dialect) {
	case transcript.OpenAIChat, transcript.OpenAIResponses:
		return "openai"
	case transcript.Anthropic:
		return "anthropic"
	case transcript.Gemini:
		return "gcp.gemini"
	}
	return ""
}

// Observe records e.
func (h *Hook) Observe(ctx context.Context, e toolwire.Event) {
	if s, ok := e.(toolwire.RunStartEvent); ok {
		h.start(ctx, s)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.runs) == 0 {
		return // nothing records (and RunID of a context.WithoutCancel allocates)
	}
	id := toolwire.RunID(ctx)
	r := h.runs[id]
	if r == nil {
		return
	}
	switch e := e.(type) {
	case toolwire.ModelCallEvent:
		h.modelCall(r, e)
	case toolwire.ModelDoneEvent:
		h.modelDone(r, e)
	case toolwire.ToolStartEvent:
		h.toolStart(r, e)
	case toolwire.ToolDoneEvent:
		h.toolDone(r, e)
	case toolwire.ToolProgressEvent:
		if span := r.tools[attemptKey{e.CallID, e.Attempt}]; span != nil {
			attrs := []attribute.KeyValue{attribute.Float64("toolwire.progress", e.Progress.Progress)}
			if e.Progress.Total > 0 {
				attrs = append(attrs, attribute.Float64("toolwire.progress.total", e.Progress.Total))
			}
			if e.Progress.Message != "" {
				attrs = append(attrs, attribute.String("toolwire.progress.message", e.Progress.Message))
			}
			span.AddEvent("toolwire.progress", trace.WithAttributes(attrs...))
		}
	case toolwire.ResultEvent:
		h.answered(r, e)
	case toolwire.TurnStartEvent:
		r.turn = e.Turn
		clear(r.ran)
	case toolwire.InterruptEvent:
		waiting := make([]string, len(e.Waiting))
		for i, c := range e.Waiting {
			waiting[i] = c.ID
		}
		r.span.AddEvent("toolwire.interrupt", trace.WithAttributes(keyStop.String(string(e.Reason)),
			attribute.StringSlice("toolwire.waiting", waiting)))
	case toolwire.RunEndEvent:
		h.end(r, e)
		delete(h.runs, id)
	}
}

// start opens the invoke_agent span of a drive, unless nothing records.
func (h *Hook) start(ctx context.Context, e toolwire.RunStartEvent) {
	provider := h.opts.Provider
	if provider == "" {
		provider = ProviderOf(e.Dialect)
	}
	if h.opts.Agent != "" {
		e.Agent = h.opts.Agent
	}
	name := opInvokeAgent
	if e.Agent != "" {
		name += " " + e.Agent
	}
	// The span starts with no option, and its attributes are set once it
	// is known to record: without an SDK, a run then costs the hook one
	// allocation (the span's context) and its events none.
	ctx, span := h.tracer.Start(ctx, name)
	if !span.IsRecording() && !h.durations.Enabled(ctx) && !h.tokens.Enabled(ctx) {
		span.End()
		return
	}
	id := toolwire.RunID(ctx)
	span.SetAttributes(keyOperation.String(opInvokeAgent), keyConversation.String(id))
	if e.Agent != "" {
		span.SetAttributes(keyAgentName.String(e.Agent))
	}
	setNonEmpty(span, keyProvider, provider)
	setNonEmpty(span, keyRequestModel, e.Model)
	op := opChat
	if transcript.Dialect(e.Dialect) == transcript.Gemini {
		op = opGenerateContent
	}
	r := &run{ctx: ctx, span: span, provider: provider, model: e.Model, op: op, turn: e.Turn,
		tools: map[attemptKey]trace.Span{}, ran: map[string]bool{}}
	h.mu.Lock()
	if old := h.runs[id]; old != nil {
		h.end(old, toolwire.RunEndEvent{Turn: old.turn})
	}
	h.runs[id] = r
	h.mu.Unlock()
}

// end closes the spans of a drive.
func (h *Hook) end(r *run, e toolwire.RunEndEvent) {
	if r.call != nil {
		r.call.End()
	}
	for _, s := range r.tools {
		s.End()
	}
	r.span.SetAttributes(keyTurn.Int(e.Turn))
	switch {
	case e.Result != nil:
		r.span.SetAttributes(keyStop.String(string(e.Result.Stop)))
		if e.Result.Stop != toolwire.Answered && e.Result.Stop != toolwire.Paused {
			r.span.SetAttributes(keyErrorType.String(string(e.Result.Stop)))
			r.span.SetStatus(codes.Error, e.Result.Message)
		}
	case e.Err != nil:
		r.span.SetAttributes(keyErrorType.String(errOther))
		r.span.SetStatus(codes.Error, e.Err.Error())
	default:
		r.span.SetAttributes(keyStop.String("abandoned"))
	}
	r.span.End()
}

// appendModel appends to attrs the run's provider and requested model,
// those that are known: what the spans and metrics of its model calls
// carry.
func (r *run) appendModel(attrs []attribute.KeyValue) []attribute.KeyValue {
	if r.provider != "" {
		attrs = append(attrs, keyProvider.String(r.provider))
	}
	if r.model != "" {
		attrs = append(attrs, keyRequestModel.String(r.model))
	}
	return attrs
}

// modelCall opens the client span of a model call.
func (h *Hook) modelCall(r *run, e toolwire.ModelCallEvent) {
	name := r.op
	if r.model != "" {
		name += " " + r.model
	}
	attrs := []attribute.KeyValue{
		keyOperation.String(r.op),
		keyConversation.String(toolwire.RunID(r.ctx)),
		keyTurn.Int(e.Turn),
	}
	attrs = r.appendModel(attrs)
	if req := e.Request; req != nil {
		if req.Temperature != nil {
			attrs = append(attrs, keyTemperature.Float64(*req.Temperature))
		}
		if req.MaxOutputTokens > 0 {
			attrs = append(attrs, keyMaxTokens.Int(req.MaxOutputTokens))
		}
		if h.opts.Content {
			attrs = append(attrs, keyInputMessages.String(inputMessages(req.Messages)))
		}
	}
	_, r.call = h.tracer.Start(r.ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// modelDone closes the model call's span and records its metrics.
func (h *Hook) modelDone(r *run, e toolwire.ModelDoneEvent) {
	common := r.appendModel([]attribute.KeyValue{keyOperation.String(r.op)})
	if e.Model != "" {
		common = append(common, keyResponseModel.String(e.Model))
	}
	if span := r.call; span != nil {
		r.call = nil
		u := e.Usage
		span.SetAttributes(keyInputTokens.Int(u.InputTokens), keyOutputTokens.Int(u.OutputTokens))
		setNonZero(span, keyCacheRead, u.CacheReadTokens)
		setNonZero(span, keyCacheWrite, u.CacheWriteTokens)
		setNonZero(span, keyReasoning, u.ReasoningTokens)
		if e.Finish != "" {
			span.SetAttributes(keyFinishReasons.StringSlice([]string{string(e.Finish)}))
		}
		setNonEmpty(span, keyResponseModel, e.Model)
		setNonEmpty(span, keyResponseID, e.ResponseID)
		if f := e.Failure; f != nil {
			span.SetAttributes(keyErrorType.String(string(f.Kind)))
			span.SetStatus(codes.Error, f.Message)
		}
		span.End()
	}
	ctx := r.ctx
	dur := common
	if e.Failure != nil {
		dur = append(dur[:len(dur):len(dur)], keyErrorType.String(string(e.Failure.Kind)))
	}
	h.durations.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(dur...))
	if e.Failure == nil {
		n := len(common)
		h.tokens.Record(ctx, int64(e.Usage.InputTokens), metric.WithAttributes(append(common[:n:n], keyTokenType.String("input"))...))
		h.tokens.Record(ctx, int64(e.Usage.OutputTokens), metric.WithAttributes(append(common[:n:n], keyTokenType.String("output"))...))
	}
}

// toolAttrs are the attributes of a tool call's span.
func (h *Hook) toolAttrs(r *run, id, name string, args []byte) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		keyOperation.String(opExecuteTool),
		keyToolName.String(name),
		keyToolCallID.String(id),
		keyToolType.String("function"),
		keyConversation.String(toolwire.RunID(r.ctx)),
		keyTurn.Int(r.turn),
	}
	if h.opts.Content && args != nil {
		attrs = append(attrs, keyToolArguments.String(string(args)))
	}
	return attrs
}

// toolStart opens the span of a tool call's attempt.
func (h *Hook) toolStart(r *run, e toolwire.ToolStartEvent) {
	attrs := h.toolAttrs(r, e.Call.ID, e.Call.Name, e.Call.Input)
	if e.Attempt > 1 {
		attrs = append(attrs, keyToolAttempt.Int(e.Attempt))
	}
	_, span := h.tracer.Start(r.ctx, opExecuteTool+" "+e.Call.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	r.tools[attemptKey{e.Call.ID, e.Attempt}] = span
	r.ran[e.Call.ID] = true
}

// toolDone closes the span of a tool call's attempt.
func (h *Hook) toolDone(r *run, e toolwire.ToolDoneEvent) {
	k := attemptKey{e.Call.ID, e.Attempt}
	span := r.tools[k]
	if span == nil {
		return
	}
	delete(r.tools, k)
	h.toolOutcome(span, e.Result, string(e.ErrorType))
	span.End()
}

// answered gives a call that was answered without running a span of no
// length, so that the trace holds every call the model made.
func (h *Hook) answered(r *run, e toolwire.ResultEvent) {
	if r.ran[e.Result.CallID] {
		return
	}
	now := time.Now()
	attrs := append(h.toolAttrs(r, e.Result.CallID, e.Result.Name, nil), keyToolRan.Bool(false))
	_, span := h.tracer.Start(r.ctx, opExecuteTool+" "+e.Result.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(now), trace.WithAttributes(attrs...))
	h.toolOutcome(span, e.Result, string(e.ErrorType))
	span.End(trace.WithTimestamp(now))
}

// toolOutcome sets the status of a tool call's span.
func (h *Hook) toolOutcome(span trace.Span, res llm.ToolResult, errType string) {
	span.SetAttributes(keyToolStatus.String(string(res.Status)))
	if h.opts.Content {
		span.SetAttributes(keyToolResult.String(res.Text()))
	}
	if res.IsError() {
		if errType == "" {
			errType = errOther
		}
		span.SetAttributes(keyErrorType.String(errType))
		span.SetStatus(codes.Error, errType)
	}
}

func setNonEmpty(span trace.Span, k attribute.Key, v string) {
	if v != "" {
		span.SetAttributes(k.String(v))
	}
}

func setNonZero(span trace.Span, k attribute.Key, v int) {
	if v != 0 {
		span.SetAttributes(k.Int(v))
	}
}
