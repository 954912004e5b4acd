package toolwire

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// StateVersion is the version of the JSON encoding of a [State] that this
// release writes and the only one it reads.
const StateVersion = 1

// A State is everything the loop knows about a run between two steps: the
// history the model sees, the turn, the usage so far, the guards'
// bookkeeping, and the effect it wants performed next. The loop is a pure
// transition over it ([Agent.Step]) and a driver that performs the effects
// ([Agent.Continue]), so a State can be saved after any step, as JSON, and
// the run continued from it later, in another process.
//
// A State is a value: [Agent.Step] returns a new one and never modifies
// the one it is given. Its Messages are shared between states; treat them
// as read-only.
type State struct {
	// ID names the run. It seeds the idempotency keys of its level-1 tool
	// calls, so that a call run again after a restart gets the same key.
	ID string
	// Messages is the history as the model sees it, system messages
	// included: fitting may have cleared old results or replaced old
	// rounds by a summary.
	Messages []llm.Message
	// Turn counts the model's answers so far.
	Turn int
	// Usage adds up the token counts the provider reported.
	Usage llm.Usage
	// Fits counts the times fitting changed the history.
	Fits int
	// Previous is the provider's stored answer that the next model call
	// continues (OpenAI Responses with Store): the provider holds
	// Messages[:Previous.Messages], so the call sends only the rest. It
	// is the state's, so that it survives a restart; nil when the model
	// stores nothing, or once fitting changed the history.
	Previous *llm.Previous
	// Next is what the loop wants done next.
	Next Effect
	// Guard is the loop guards' bookkeeping.
	Guard Guard

	// mem is what the steps of one drive share in memory: token counts
	// and wire encodings of the history's messages. It is never
	// persisted: a decoded state starts without it.
	mem *scratch
	// turn is the report of the turn in progress, for its TurnEvent.
	turn turnProgress
}

// scratch keeps, for one run in one process, what is costly to compute
// again for each step: each message's token count and wire encoding.
type scratch struct {
	counter *memoCounter
	wire    *llm.WireCache
}

// turnProgress is the report of the turn in progress, filled in as its
// steps go: fitting and the call, then the tools.
type turnProgress struct {
	rep  TurnReport
	base int                     // the history's length when the turn's call was prepared
	ran  map[string]tool.Outcome // the outcomes of the calls that ran, by call id
}

// Runnable returns the positions in e.Calls of the calls to run: those
// not answered yet, less those that need approval unless approved is set
// (the executor has an approver that decides them).
func (e Effect) Runnable(approved bool) []int {
	var out []int
	for i, pc := range e.Calls {
		if pc.Result == nil && (approved || !pc.Approval) {
			out = append(out, i)
		}
	}
	return out
}

// EffectKind names what a [State] wants done next.
type EffectKind string

// The kinds of effect.
const (
	// CallModel: fit the history and call the model with it.
	CallModel EffectKind = "model"
	// RunTools: run the calls of the last assistant message.
	RunTools EffectKind = "tools"
	// AwaitApproval: some calls need a person's approval; the others
	// have run, their results kept in the effect until every call of the
	// turn is answered.
	AwaitApproval EffectKind = "approval"
	// Done: the run has ended; Effect.Stop says how.
	Done EffectKind = "done"
)

// An Effect is what the loop wants performed: a model call, a batch of
// tool calls, a person's decisions, or nothing more.
type Effect struct {
	// Kind is what is wanted.
	Kind EffectKind
	// Refit is set on a model call whose history was fitted harder: the
	// provider said the history is longer than its context window.
	Refit bool
	// Request is the exact request of a CallModel effect, as [Agent.Step]
	// prepared it: the fitted history, checked by the provider's rules,
	// with the agent's tools and options. It is not persisted: on a
	// decoded state it is nil, and [Agent.Request] builds it again from
	// the state.
	Request *llm.Request
	// Offload are the results that fitting cleared for this call,
	// without a ref of their own: [Agent.Perform] keeps each under the
	// ref the cleared result names before it calls the model.
	Offload []Offload
	// Room is the tokens the results of a RunTools effect may take
	// together (budget.Room), each shaped to its share.
	Room int
	// Calls are the calls of the last assistant message, in order, for
	// RunTools and AwaitApproval.
	Calls []PendingCall
	// Stop says why the run ended, for Done.
	Stop *Stop
	// Then are messages to append after the turn's tool message, once
	// every call is answered: a person's message given at [Agent.Resume],
	// which must never come between a call and its result.
	Then []llm.Message
}

// An Offload is a cleared result's content to keep under its ref.
type Offload struct {
	Ref    string
	Result toolresult.Stored
}

// A PendingCall is one call of a turn and where it stands.
type PendingCall struct {
	// Call is the call as the model made it.
	Call llm.ToolCall
	// Key is the idempotency key a level-1 tool gets for this call.
	Key string
	// Approval is set when the tool needs a person's approval.
	Approval bool
	// Result is set once the call is answered: it ran, or it was answered
	// without running (cut off by the output limit, rejected).
	Result *llm.ToolResult
	// Decision is a person's decision about a call that needs approval,
	// given at [Agent.Resume]; nil until then. An edit's arguments are in
	// Call.Input, and the result tells the model the arguments it ran
	// with.
	Decision *Decision
	// Attempts counts the attempts of the call that a cancelled run
	// started and cut short, when the call is left to run again: the
	// write-ahead records of its next attempt are numbered after them.
	// 0 for a call that has not run.
	Attempts int
}

// StopReason says why a run ended.
type StopReason string

// The stop reasons; docs/loop.md says what each one means.
const (
	// Answered: the model answered without calling a tool.
	Answered StopReason = "answered"
	// MaxTurns: the run reached Config.MaxTurns without an answer.
	MaxTurns StopReason = "max_turns"
	// RepeatedCalls: the model kept making a call that it had made before
	// with the same result, after it was told so.
	RepeatedCalls StopReason = "repeated_calls"
	// EmptyAnswer: the model answered with an empty message twice.
	EmptyAnswer StopReason = "empty_answer"
	// ContextLength: the provider refused the history as too long, also
	// after it was fitted again.
	ContextLength StopReason = "context_length"
	// ModelError: the model call failed: rate limited beyond the client's
	// retries, authentication, a refused request, the network.
	ModelError StopReason = "model_error"
	// InvalidOutput: the final answer did not match Config.Output, also
	// after one corrective turn.
	InvalidOutput StopReason = "invalid_output"
	// InvalidHistory: the history broke a rule of the model's provider
	// before a call (a bug: the loop never sends such a request).
	InvalidHistory StopReason = "invalid_history"
)

// A Stop says how a run ended.
type Stop struct {
	// Reason is why.
	Reason StopReason `json:"reason"`
	// Message says it for people: what happened and what was gathered.
	Message string `json:"message"`
	// Answer is the final answer: the model's, or, when a guard stopped
	// the run, a summary of what the run gathered.
	Answer string `json:"answer,omitzero"`
	// Output is the final answer as JSON, when Config.Output is set and
	// the answer matches it.
	Output jsontext.Value `json:"output,omitzero"`
}

// Guard is the loop guards' bookkeeping.
type Guard struct {
	// Calls remembers each distinct call (tool and arguments) made so far
	// and its latest result.
	Calls []CallRecord `json:"calls,omitzero"`
	// Failures counts each tool's consecutive error results.
	Failures map[string]int `json:"failures,omitzero"`
	// EmptyRetried is set once an empty answer was asked again.
	EmptyRetried bool `json:"empty_retried,omitzero"`
	// Refitted is set once a context-length error was answered by a
	// harder fit.
	Refitted bool `json:"refitted,omitzero"`
	// Corrected is set once a final answer that broke Config.Output was
	// sent back for a correction.
	Corrected bool `json:"corrected,omitzero"`
}

// A CallRecord is one distinct call, for the repeated-call guard.
type CallRecord struct {
	// Tool and Args identify the call; Args is canonical JSON.
	Tool string `json:"tool"`
	Args string `json:"args"`
	// Turn is the turn of the call's latest result that brought new
	// information.
	Turn int `json:"turn"`
	// Digest identifies that result, meta left out.
	Digest string `json:"digest"`
	// Repeats counts the turns since then that made the call again with
	// the same result.
	Repeats int `json:"repeats,omitzero"`
}

// stateJSON is the encoding of a State; messages go through the
// persistence format of llm.Conversation.
type stateJSON struct {
	Version  int              `json:"version"`
	ID       string           `json:"id"`
	Messages llm.Conversation `json:"messages"`
	Turn     int              `json:"turn"`
	Usage    usageJSON        `json:"usage"`
	Fits     int              `json:"fits,omitzero"`
	Previous *previousJSON    `json:"previous,omitzero"`
	Next     effectJSON       `json:"next"`
	Guard    Guard            `json:"guard"`
}

type effectJSON struct {
	Kind    EffectKind    `json:"kind"`
	Refit   bool          `json:"refit,omitzero"`
	Room    int           `json:"room,omitzero"`
	Offload []offloadJSON `json:"offload,omitzero"`
	// Calls: the calls and their results go through llm.Conversation too,
	// as one assistant message and one tool message.
	Calls    []pendingJSON     `json:"calls,omitzero"`
	Messages *llm.Conversation `json:"call_messages,omitzero"`
	Stop     *Stop             `json:"stop,omitzero"`
	Then     *llm.Conversation `json:"then,omitzero"`
}

type previousJSON struct {
	ID       string `json:"id"`
	Messages int    `json:"messages"`
}

type offloadJSON struct {
	Ref       string          `json:"ref"`
	Tool      string          `json:"tool"`
	Kind      toolresult.Kind `json:"kind"`
	MediaType string          `json:"media_type,omitzero"`
	Data      []byte          `json:"data"`
}

// usageJSON is llm.Usage with the names of the persistence format.
type usageJSON struct {
	InputTokens      int `json:"input_tokens,omitzero"`
	OutputTokens     int `json:"output_tokens,omitzero"`
	CacheReadTokens  int `json:"cache_read_tokens,omitzero"`
	CacheWriteTokens int `json:"cache_write_tokens,omitzero"`
	ReasoningTokens  int `json:"reasoning_tokens,omitzero"`
}

type pendingJSON struct {
	Key      string `json:"key,omitzero"`
	Approval bool   `json:"approval,omitzero"`
	Answered bool   `json:"answered,omitzero"`
	// Decision and Reason: a person's decision at resume; an edited
	// call's arguments are in the call message.
	Decision DecisionKind `json:"decision,omitzero"`
	Reason   string       `json:"reason,omitzero"`
	// Attempts: the attempts a cancelled run cut short.
	Attempts int `json:"attempts,omitzero"`
}

var jsonOpts = json.JoinOptions(json.Deterministic(true), jsontext.EscapeForHTML(false))

// MarshalJSON encodes s: {"version":1,"id":…,"messages":{"version":1,
// "messages":[…]},"turn":…,"usage":…,"next":{…},"guard":{…}}.
func (s State) MarshalJSON() ([]byte, error) {
	out := stateJSON{Version: StateVersion, ID: s.ID, Messages: llm.Conversation{Messages: s.Messages},
		Turn: s.Turn, Usage: usageJSON(s.Usage), Fits: s.Fits, Guard: s.Guard,
		Next: effectJSON{Kind: s.Next.Kind, Refit: s.Next.Refit, Room: s.Next.Room, Stop: s.Next.Stop}}
	if p := s.Previous; p != nil {
		out.Previous = &previousJSON{ID: p.ID, Messages: p.Messages}
	}
	for _, o := range s.Next.Offload {
		out.Next.Offload = append(out.Next.Offload, offloadJSON{Ref: o.Ref, Tool: o.Result.Tool, Kind: o.Result.Kind, MediaType: o.Result.MediaType, Data: o.Result.Data})
	}
	if len(s.Next.Calls) > 0 {
		call := llm.Message{Role: llm.RoleAssistant}
		res := llm.Message{Role: llm.RoleTool}
		for _, pc := range s.Next.Calls {
			call.Parts = append(call.Parts, pc.Call)
			pj := pendingJSON{Key: pc.Key, Approval: pc.Approval, Attempts: pc.Attempts}
			if pc.Decision != nil {
				pj.Decision, pj.Reason = pc.Decision.Kind, pc.Decision.Reason
			}
			if pc.Result != nil {
				pj.Answered = true
				res.Parts = append(res.Parts, *pc.Result)
			}
			out.Next.Calls = append(out.Next.Calls, pj)
		}
		conv := llm.Conversation{Messages: []llm.Message{call}}
		if len(res.Parts) > 0 {
			conv.Messages = append(conv.Messages, res)
		}
		out.Next.Messages = &conv
	}
	if len(s.Next.Then) > 0 {
		out.Next.Then = &llm.Conversation{Messages: s.Next.Then}
	}
	b, err := json.Marshal(out, jsonOpts)
	if err != nil {
		return nil, fmt.Errorf("toolwire: encode state: %w", err)
	}
	return b, nil
}

// UnmarshalJSON decodes what [State.MarshalJSON] wrote. Decoding is
// strict: an unknown field, another version, or calls and results that do
// not line up is an error that says where.
func (s *State) UnmarshalJSON(b []byte) error {
	var in stateJSON
	if err := json.Unmarshal(b, &in, json.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("toolwire: decode state: %w", err)
	}
	if in.Version != StateVersion {
		return fmt.Errorf("toolwire: decode state: version %d, but this release reads version %d", in.Version, StateVersion)
	}
	switch in.Next.Kind {
	case CallModel, RunTools, AwaitApproval, Done:
	default:
		return fmt.Errorf("toolwire: decode state: next.kind %q is not model, tools, approval or done", in.Next.Kind)
	}
	out := State{ID: in.ID, Messages: in.Messages.Messages, Turn: in.Turn, Usage: llm.Usage(in.Usage), Fits: in.Fits, Guard: in.Guard,
		Next: Effect{Kind: in.Next.Kind, Refit: in.Next.Refit, Room: in.Next.Room, Stop: in.Next.Stop}}
	if p := in.Previous; p != nil {
		if p.ID == "" || p.Messages < 0 || p.Messages > len(out.Messages) {
			return fmt.Errorf("toolwire: decode state: previous: answer %q holds %d messages of %d; want an id and 0 to %d", p.ID, p.Messages, len(out.Messages), len(out.Messages))
		}
		out.Previous = &llm.Previous{ID: p.ID, Messages: p.Messages}
	}
	for i, o := range in.Next.Offload {
		if o.Ref == "" {
			return fmt.Errorf("toolwire: decode state: next.offload.%d.ref is empty", i)
		}
		out.Next.Offload = append(out.Next.Offload, Offload{Ref: o.Ref, Result: toolresult.Stored{Tool: o.Tool, Kind: o.Kind, MediaType: o.MediaType, Data: o.Data}})
	}
	if in.Next.Then != nil {
		out.Next.Then = in.Next.Then.Messages
	}
	if n := len(in.Next.Calls); n > 0 {
		if in.Next.Messages == nil || len(in.Next.Messages.Messages) == 0 {
			return errors.New("toolwire: decode state: next.calls without next.call_messages")
		}
		calls := in.Next.Messages.Messages[0].ToolCalls()
		var results []llm.ToolResult
		if len(in.Next.Messages.Messages) > 1 {
			results = in.Next.Messages.Messages[1].ToolResults()
		}
		if len(calls) != n {
			return fmt.Errorf("toolwire: decode state: next.calls has %d entries for %d calls", n, len(calls))
		}
		for i, pj := range in.Next.Calls {
			if pj.Attempts < 0 {
				return fmt.Errorf("toolwire: decode state: next.calls.%d.attempts is %d; want 0 or more", i, pj.Attempts)
			}
			pc := PendingCall{Call: calls[i], Key: pj.Key, Approval: pj.Approval, Attempts: pj.Attempts}
			switch pj.Decision {
			case "":
			case Approved, Rejected, Edited:
				pc.Decision = &Decision{Kind: pj.Decision, Reason: pj.Reason}
			default:
				return fmt.Errorf("toolwire: decode state: next.calls.%d.decision %q is not approve, reject or edit", i, pj.Decision)
			}
			if pj.Answered {
				if len(results) == 0 {
					return fmt.Errorf("toolwire: decode state: next.calls.%d is answered, but no result is left for it", i)
				}
				r := results[0]
				results = results[1:]
				if r.CallID != pc.Call.ID {
					return fmt.Errorf("toolwire: decode state: next.calls.%d: the result answers %q, not the call %q", i, r.CallID, pc.Call.ID)
				}
				pc.Result = &r
			}
			out.Next.Calls = append(out.Next.Calls, pc)
		}
		if len(results) > 0 {
			return fmt.Errorf("toolwire: decode state: %d results more than answered calls", len(results))
		}
	}
	*s = out
	return nil
}
