package toolwire

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// An Input is what [Agent.Step] takes with a state: the outcome of
// performing the state's effect ([ModelOutcome], [ToolsOutcome], as
// [Agent.Perform] returns them), or what a person or the program decided
// ([Decisions], [Cancel], [Retry]). The set is closed.
//
// Every input is a plain value that survives JSON and back
// ([MarshalInput], [ParseInput]): a run recorded as its first state and
// its inputs is replayed by Step alone to the same final state.
type Input interface{ isInput() }

// ModelOutcome is the outcome of a [CallModel] effect.
type ModelOutcome struct {
	// Response is the model's answer; nil when the call failed before
	// one arrived. With a Failure of kind [FailIncomplete] or
	// [FailEmptyMessage], it is the answer as it arrived.
	Response *llm.Response
	// Failure is why the call failed; nil when it did not.
	Failure *ModelFailure
	// Duration is how long the call took.
	Duration time.Duration
	// Encoded and Reused count the messages the client encoded for the
	// call and those whose cached encoding it sent again
	// ([llm.CachedModel]).
	Encoded, Reused int
}

// ToolsOutcome is the outcome of a [RunTools] effect: one tool.Outcome
// for each call [Effect.Runnable] returned, in that order.
type ToolsOutcome struct {
	Outcomes []tool.Outcome
}

// Cancel abandons the calls of the turn not answered yet: they are
// answered "cancelled" (they never ran), so that the history stays
// whole, and the state wants the next model call. It is for a program
// that drives the loop itself and gives up on a turn's calls; the driver
// ([Agent.Continue]) does not use it: a run whose context ends stops
// before its next effect, and the calls it cut short follow
// [RecoveryOf]. Step takes Cancel in any state; on a model call or a
// finished run it changes nothing.
type Cancel struct{}

// Retry asks the model again after a run ended on a model failure
// ([ModelError], [ContextLength], [EmptyAnswer]): the failed call is made
// again, with the guards that stopped it reset.
type Retry struct{}

func (ModelOutcome) isInput() {}
func (ToolsOutcome) isInput() {}
func (Decisions) isInput()    {}
func (Cancel) isInput()       {}
func (Retry) isInput()        {}

// The kinds of input, as JSON names them.
const (
	inputModel     = "model"
	inputTools     = "tools"
	inputDecisions = "decisions"
	inputCancel    = "cancel"
	inputRetry     = "retry"
)

// inputJSON is the encoding of every input: "kind" says which fields
// are used.
type inputJSON struct {
	Kind string `json:"kind"`
	// model
	Response   *responseJSON `json:"response,omitzero"`
	Failure    *ModelFailure `json:"failure,omitzero"`
	DurationNS int64         `json:"duration_ns,omitzero"`
	Encoded    int           `json:"encoded,omitzero"`
	Reused     int           `json:"reused,omitzero"`
	// tools: the results as one tool message, and what goes with each
	Results *llm.Conversation `json:"results,omitzero"`
	Calls   []callJSON        `json:"calls,omitzero"`
	// decisions
	Decisions map[string]decisionJSON `json:"decisions,omitzero"`
	Message   string                  `json:"message,omitzero"`
}

type responseJSON struct {
	// Message is the answer in the persistence format, less the calls a
	// stream cut off before their id or name arrived, which Cut holds:
	// that format needs both.
	Message llm.Conversation `json:"message"`
	Cut     []cutJSON        `json:"cut,omitzero"`
	Usage   usageJSON        `json:"usage,omitzero"`
	Finish  llm.FinishReason `json:"finish,omitzero"`
	Raw     string           `json:"finish_raw,omitzero"`
	ID      string           `json:"id,omitzero"`
}

// cutJSON is a tool call without an id or a name, at its place among the
// message's parts.
type cutJSON struct {
	Part  int    `json:"part"`
	ID    string `json:"id,omitzero"`
	Name  string `json:"name,omitzero"`
	Input string `json:"input,omitzero"`
}

type callJSON struct {
	// Envelope is the observation as rendered; DurationNS keeps the
	// call's duration, which rendering rounds to milliseconds.
	Envelope   jsontext.Value `json:"envelope"`
	DurationNS int64          `json:"duration_ns,omitzero"`
	Shaping    *shapingJSON   `json:"shaping,omitzero"`
	// Cancelled: how the run's cancellation kept the call from finishing.
	Cancelled tool.Cancellation `json:"cancelled,omitzero"`
}

type shapingJSON struct {
	Level        toolresult.Level `json:"level,omitzero"`
	Budget       int              `json:"budget,omitzero"`
	TokensBefore int              `json:"tokens_before,omitzero"`
	TokensAfter  int              `json:"tokens_after,omitzero"`
	Records      int              `json:"records,omitzero"`
	Kept         int              `json:"kept,omitzero"`
	Omitted      int              `json:"omitted,omitzero"`
	Ref          string           `json:"ref,omitzero"`
	Steps        []string         `json:"steps,omitzero"`
	OverBudget   bool             `json:"over_budget,omitzero"`
	StoreError   string           `json:"store_error,omitzero"`
}

type decisionJSON struct {
	Kind   DecisionKind   `json:"kind"`
	Reason string         `json:"reason,omitzero"`
	Args   jsontext.Value `json:"args,omitzero"`
}

// MarshalInput encodes in as JSON: {"kind":"model"|"tools"|"decisions"|
// "cancel"|"retry", ...}. Messages and results are written in the
// persistence format of [llm.Conversation].
func MarshalInput(in Input) ([]byte, error) {
	var out inputJSON
	switch in := in.(type) {
	case ModelOutcome:
		out = inputJSON{Kind: inputModel, Failure: in.Failure, DurationNS: int64(in.Duration), Encoded: in.Encoded, Reused: in.Reused}
		if in.Response != nil {
			out.Response = encodeResponse(in.Response)
		}
	case ToolsOutcome:
		out.Kind = inputTools
		results := make([]llm.ToolResult, len(in.Outcomes))
		out.Calls = make([]callJSON, len(in.Outcomes))
		for i, o := range in.Outcomes {
			results[i] = o.Result
			env, err := o.Envelope.MarshalJSON()
			if err != nil {
				return nil, fmt.Errorf("toolwire: encode input: calls.%d.envelope: %w", i, err)
			}
			out.Calls[i] = callJSON{Envelope: env, DurationNS: int64(o.Envelope.Meta.Duration), Shaping: encodeShaping(o.Shaping), Cancelled: o.Cancelled}
		}
		if len(results) > 0 {
			out.Results = &llm.Conversation{Messages: []llm.Message{llm.Tool(results...)}}
		}
	case Decisions:
		out = inputJSON{Kind: inputDecisions, Message: in.Message}
		if len(in.Calls) > 0 {
			out.Decisions = map[string]decisionJSON{}
			for id, d := range in.Calls {
				out.Decisions[id] = decisionJSON(d)
			}
		}
	case Cancel:
		out.Kind = inputCancel
	case Retry:
		out.Kind = inputRetry
	default:
		return nil, fmt.Errorf("toolwire: encode input: %T is not an input", in)
	}
	return json.Marshal(out, jsonOpts)
}

// ParseInput decodes what [MarshalInput] wrote, strictly: an unknown
// member or kind is an error that names it.
func ParseInput(b []byte) (Input, error) {
	var in inputJSON
	if err := json.Unmarshal(b, &in, json.RejectUnknownMembers(true)); err != nil {
		return nil, fmt.Errorf("toolwire: decode input: %w", err)
	}
	switch in.Kind {
	case inputModel:
		o := ModelOutcome{Failure: in.Failure, Duration: time.Duration(in.DurationNS), Encoded: in.Encoded, Reused: in.Reused}
		if o.Failure != nil {
			if err := o.Failure.validate(); err != nil {
				return nil, fmt.Errorf("toolwire: decode input: failure: %w", err)
			}
		}
		if in.Response != nil {
			r, err := decodeResponse(in.Response)
			if err != nil {
				return nil, fmt.Errorf("toolwire: decode input: response: %w", err)
			}
			o.Response = r
		}
		return o, nil
	case inputTools:
		var results []llm.ToolResult
		if in.Results != nil {
			if len(in.Results.Messages) != 1 {
				return nil, fmt.Errorf("toolwire: decode input: results has %d messages, want one tool message", len(in.Results.Messages))
			}
			results = in.Results.Messages[0].ToolResults()
		}
		if len(results) != len(in.Calls) {
			return nil, fmt.Errorf("toolwire: decode input: %d results for %d calls", len(results), len(in.Calls))
		}
		o := ToolsOutcome{Outcomes: make([]tool.Outcome, len(results))}
		for i, c := range in.Calls {
			env, err := toolresult.Parse(c.Envelope)
			if err != nil {
				return nil, fmt.Errorf("toolwire: decode input: calls.%d.envelope: %w", i, err)
			}
			env.Meta.Duration = time.Duration(c.DurationNS)
			switch c.Cancelled {
			case "", tool.CancelledBeforeStart, tool.CancelledWhileRunning:
			default:
				return nil, fmt.Errorf("toolwire: decode input: calls.%d.cancelled %q is not %s or %s", i, c.Cancelled, tool.CancelledBeforeStart, tool.CancelledWhileRunning)
			}
			o.Outcomes[i] = tool.Outcome{Result: results[i], Envelope: env, Shaping: decodeShaping(c.Shaping), Cancelled: c.Cancelled}
		}
		return o, nil
	case inputDecisions:
		d := Decisions{Message: in.Message}
		if len(in.Decisions) > 0 {
			d.Calls = map[string]Decision{}
			for id, dj := range in.Decisions {
				d.Calls[id] = Decision(dj)
			}
		}
		return d, nil
	case inputCancel:
		return Cancel{}, nil
	case inputRetry:
		return Retry{}, nil
	}
	return nil, fmt.Errorf("toolwire: decode input: kind %q is not model, tools, decisions, cancel or retry", in.Kind)
}

func encodeResponse(r *llm.Response) *responseJSON {
	out := &responseJSON{Usage: usageJSON(r.Usage), Finish: r.Finish.Reason, Raw: r.Finish.Raw, ID: r.ID}
	msg := llm.Message{Role: r.Message.Role}
	for i, p := range r.Message.Parts {
		if c, ok := p.(llm.ToolCall); ok && (c.ID == "" || c.Name == "") {
			out.Cut = append(out.Cut, cutJSON{Part: i, ID: c.ID, Name: c.Name, Input: string(c.Input)})
			continue
		}
		msg.Parts = append(msg.Parts, p)
	}
	out.Message = llm.Conversation{Messages: []llm.Message{msg}}
	return out
}

func decodeResponse(in *responseJSON) (*llm.Response, error) {
	if len(in.Message.Messages) != 1 {
		return nil, fmt.Errorf("message has %d messages, want one", len(in.Message.Messages))
	}
	msg := in.Message.Messages[0]
	parts := slices.Clone(msg.Parts)
	for _, c := range in.Cut {
		if c.Part < 0 || c.Part > len(parts) {
			return nil, fmt.Errorf("cut call at part %d of a message of %d parts", c.Part, len(parts))
		}
		parts = slices.Insert(parts, c.Part, llm.Part(llm.ToolCall{ID: c.ID, Name: c.Name, Input: []byte(c.Input)}))
	}
	msg.Parts = parts
	return &llm.Response{Message: msg, Usage: llm.Usage(in.Usage), Finish: llm.Finish{Reason: in.Finish, Raw: in.Raw}, ID: in.ID}, nil
}

func encodeShaping(r *toolresult.Report) *shapingJSON {
	if r == nil {
		return nil
	}
	s := &shapingJSON{Level: r.Level, Budget: r.Budget, TokensBefore: r.TokensBefore, TokensAfter: r.TokensAfter, Records: r.Records,
		Kept: r.Kept, Omitted: r.Omitted, Ref: r.Ref, Steps: r.Steps, OverBudget: r.OverBudget}
	if r.StoreError != nil {
		s.StoreError = r.StoreError.Error()
	}
	return s
}

func decodeShaping(s *shapingJSON) *toolresult.Report {
	if s == nil {
		return nil
	}
	r := &toolresult.Report{Level: s.Level, Budget: s.Budget, TokensBefore: s.TokensBefore, TokensAfter: s.TokensAfter, Records: s.Records,
		Kept: s.Kept, Omitted: s.Omitted, Ref: s.Ref, Steps: s.Steps, OverBudget: s.OverBudget}
	if s.StoreError != "" {
		r.StoreError = errors.New(s.StoreError)
	}
	return r
}
