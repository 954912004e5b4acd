package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"unicode"
)

// A Model is a language model behind a provider API: the contract the agent
// loop calls and the provider clients implement, as database/sql calls a
// driver.
//
// Implementations must be safe for concurrent use: one Model serves many
// runs at once.
type Model interface {
	// Stream asks the model to answer req and yields its answer as it
	// arrives, in the order of the provider's stream. A failure ends the
	// stream with one (nil, err) pair; a provider failure is an [*Error].
	// A stream cut off by the output token limit is not an error here: the
	// [Finish] event says [FinishLength] and [Accumulator.Message] reports
	// any tool call left incomplete.
	//
	// The request is sent when iteration starts, not when Stream is
	// called, and every iteration sends it again. Breaking out of the loop
	// early cancels the request and releases its connection. Stream does
	// not modify req, and nothing it starts outlives the iteration.
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]

	// Dialect names the wire format the model's history is written in,
	// one of transcript's dialects ("openai-chat", "openai-responses",
	// "anthropic", "gemini"), so that the caller can check the history by
	// that provider's rules before each call; "" for a model that has no
	// wire rules (a fake in a test).
	Dialect() string
}

// Named is the optional capability of a [Model] to say which model it
// calls ("gpt-5", "claude-sonnet-4-5"), found by type assertion. The loop
// keys on it what depends on the model: the rules transcript applies
// (transcript.Request.Model) and the default context window.
type Named interface {
	Name() string
}

// A Request is what a [Model] is asked: the conversation, the tools it may
// call, and how to answer. The zero value of each option means the
// provider's default.
type Request struct {
	// Messages is the conversation so far, system messages included.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []ToolSpec
	// ToolChoice says whether and which tool the model must call; the zero
	// value lets it choose.
	ToolChoice ToolChoice
	// Temperature is the sampling temperature; nil means the provider's
	// default.
	Temperature *float64
	// MaxOutputTokens limits the answer's length, reasoning included; 0
	// means the client's default.
	MaxOutputTokens int
	// Effort is how much the model should reason before answering; ""
	// means the provider's default.
	Effort Effort
	// Previous, when set, is an answer the provider stored (its
	// [Response].ID) that this request continues: the provider holds
	// Messages[:Previous.Messages] and that answer. A client that can
	// continue a stored answer (OpenAI Responses with Store) sends only
	// the messages after them; if the provider has lost it, the whole
	// history. Other clients send the whole history. nil sends it whole.
	Previous *Previous
}

// Previous names a stored answer that a request continues; see
// [Request].Previous.
type Previous struct {
	// ID is the answer's id at the provider ([Response].ID).
	ID string
	// Messages is how many of the request's messages the provider holds
	// with it: the history that answer was given for, and the answer.
	Messages int
}

// Validate reports the first option of r that no provider could honour.
func (r *Request) Validate() error {
	switch r.ToolChoice.Mode {
	case ToolAuto, ToolRequired:
	case ToolNone:
		if r.ToolChoice.Name != "" {
			return fmt.Errorf("llm: tool choice none names the tool %q; a named tool must be called", r.ToolChoice.Name)
		}
	default:
		return fmt.Errorf("llm: unknown tool choice %q; want auto, none or required", string(r.ToolChoice.Mode))
	}
	if n := r.ToolChoice.Name; n != "" && !hasTool(r.Tools, n) {
		return fmt.Errorf("llm: tool choice names the tool %q, which is not among the request's tools", n)
	}
	if r.ToolChoice.Mode == ToolRequired && len(r.Tools) == 0 {
		return errors.New("llm: tool choice required, but the request has no tools")
	}
	if t := r.Temperature; t != nil && (*t < 0 || *t > 2 || *t != *t) {
		return fmt.Errorf("llm: temperature %v is outside [0, 2]", *t)
	}
	if p := r.Previous; p != nil && (p.ID == "" || p.Messages < 0 || p.Messages > len(r.Messages)) {
		return fmt.Errorf("llm: previous answer %q holds %d messages of a request of %d; want an id and 0 to %d", p.ID, p.Messages, len(r.Messages), len(r.Messages))
	}
	if r.MaxOutputTokens < 0 {
		return fmt.Errorf("llm: max output tokens %d is negative", r.MaxOutputTokens)
	}
	if !r.Effort.Valid() {
		return fmt.Errorf("llm: unknown reasoning effort %q; want minimal, low, medium or high", string(r.Effort))
	}
	return nil
}

func hasTool(tools []ToolSpec, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// ToolChoice says whether the model must call a tool.
type ToolChoice struct {
	// Mode is [ToolAuto] (the zero value), [ToolNone] or [ToolRequired].
	Mode ToolMode
	// Name, when set, is the one tool the model must call; Mode is then
	// [ToolAuto] or [ToolRequired], which mean the same.
	Name string
}

// ToolMode is how a [ToolChoice] constrains the model.
type ToolMode string

// The tool modes.
const (
	ToolAuto     ToolMode = ""         // the model decides
	ToolNone     ToolMode = "none"     // the model must not call a tool
	ToolRequired ToolMode = "required" // the model must call at least one tool
)

// Effort is how much a reasoning model should think before it answers.
// Clients map it to their provider's setting (OpenAI reasoning effort,
// Anthropic and Gemini thinking budgets).
type Effort string

// The reasoning efforts; "" leaves the provider's default.
const (
	EffortMinimal Effort = "minimal"
	EffortLow     Effort = "low"
	EffortMedium  Effort = "medium"
	EffortHigh    Effort = "high"
)

// Valid reports whether e is "" or one of the four efforts.
func (e Effort) Valid() bool {
	switch e {
	case "", EffortMinimal, EffortLow, EffortMedium, EffortHigh:
		return true
	}
	return false
}

// A Response is a model's whole answer, for callers that do not stream.
type Response struct {
	// Message is the assistant message.
	Message Message
	// Usage is the token counts the provider reported.
	Usage Usage
	// Finish says why the model stopped.
	Finish Finish
	// ID names the answer where the provider stored it, for a later
	// request to continue ([Request].Previous); "" when it stored none.
	ID string
	// Model is the model the provider says answered ([Finish].Model);
	// "" when it did not say.
	Model string
}

// ErrEmptyMessage is wrapped by the error [Accumulator.Response] and
// [Generate] return when the model answered with no text and no tool call:
// such a message must not be appended to a history (providers reject empty
// assistant messages), and asking again usually helps.
var ErrEmptyMessage = errors.New("llm: the model answered with an empty message")

// Response returns the assembled answer: the message as [Accumulator.Message]
// returns it, with the usage and the finish. Its error is Message's
// [*IncompleteError], or, for a message without text (other than white
// space), tool calls or opaque parts, an error that wraps
// [ErrEmptyMessage] and says how the stream finished. The Response is
// returned in both cases.
func (a *Accumulator) Response() (*Response, error) {
	msg, err := a.Message()
	resp := &Response{Message: msg, Usage: a.usage, Finish: a.finish, ID: a.stored, Model: a.finish.Model}
	if err != nil {
		return resp, err
	}
	if empty(msg) {
		reason := string(a.finish.Reason)
		if reason == "" {
			reason = "none"
		}
		return resp, fmt.Errorf("%w (finish reason: %s)", ErrEmptyMessage, reason)
	}
	return resp, nil
}

// empty reports whether an assistant message says nothing a history could
// keep: reasoning alone does not count.
func empty(m Message) bool {
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Text:
			if strings.TrimFunc(p.Text, unicode.IsSpace) != "" {
				return false
			}
		case Reasoning:
		default:
			return false
		}
	}
	return true
}

// Generate asks m to answer req and returns the whole answer: it ranges
// over [Model.Stream] and accumulates the events.
//
// A failure of the stream returns a nil Response and the error. When the
// stream ends but its message cannot be used as it is — a tool call cut off
// ([*IncompleteError]) or an empty message ([ErrEmptyMessage]) — Generate
// returns the Response and that error, so that the caller can tell the
// model what went wrong.
func Generate(ctx context.Context, m Model, req *Request) (*Response, error) {
	var acc Accumulator
	for ev, err := range m.Stream(ctx, req) {
		if err != nil {
			return nil, err
		}
		acc.Add(ev)
	}
	return acc.Response()
}
