package llm

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// An Event is one item of a model's streamed answer. The set is closed:
// [TextDelta], [ReasoningDelta], [ToolCallDelta], [Usage], [Stored] and [Finish].
// Provider codecs turn their wire events into these; an [Accumulator]
// assembles them into a [Message].
type Event interface {
	isEvent()
}

// TextDelta is a fragment of assistant text. Fragments with the same Index
// belong to the same [Text] part.
type TextDelta struct {
	Index int
	Text  string
}

// ReasoningDelta is a fragment of reasoning. Fragments with the same Index
// belong to the same [Reasoning] part: Text concatenates; Provider,
// Signature and Data are taken from the latest fragment that sets them.
type ReasoningDelta struct {
	Index     int
	Provider  string
	Text      string
	Signature string
	Data      jsontext.Value
}

// ToolCallDelta is a fragment of a tool call. Providers route fragments
// either by position (OpenAI Chat "index", Anthropic content block index,
// Responses "output_index") or by id; the first fragment of a call usually
// carries its ID and Name and later ones only Arguments.
//
// An [Accumulator] matches a fragment to a call by ID when the ID is known,
// else by Index (set Index to -1 when the provider gives none). A fragment
// whose Index matches a call with a different ID starts a new call: some
// OpenAI-compatible servers give every parallel call index 0.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	ItemID    string
	Arguments string // appended to the call's arguments
}

// Usage reports token counts. Within a stream, the latest non-zero value of
// each count wins.
//
// Clients normalise the providers' counts to one meaning: InputTokens counts
// every input token, whether read from the prompt cache, written to it or
// neither (Anthropic reports the three apart; they are added up), and
// OutputTokens every output token, reasoning included (Gemini reports
// thoughts apart; they are added).
type Usage struct {
	// InputTokens is the size of the request, cached tokens included.
	InputTokens int
	// OutputTokens is the size of the answer, reasoning included.
	OutputTokens int
	// CacheReadTokens is the part of InputTokens read from the provider's
	// prompt cache (billed at a discount).
	CacheReadTokens int
	// CacheWriteTokens is the part of InputTokens written to the prompt
	// cache (Anthropic cache_creation_input_tokens).
	CacheWriteTokens int
	// ReasoningTokens is the part of OutputTokens spent reasoning.
	ReasoningTokens int
}

// Add returns the sum of u and v, for the usage of a run of several calls.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
	}
}

// FinishReason says why the model stopped.
type FinishReason string

// The reasons a model stops.
const (
	FinishStop          FinishReason = "stop"           // a natural end or a stop sequence
	FinishToolCalls     FinishReason = "tool_calls"     // the model wants tools run
	FinishLength        FinishReason = "length"         // the output token limit
	FinishContentFilter FinishReason = "content_filter" // the provider withheld content
)

// Finish ends a stream. Raw keeps the provider's own reason; Model is
// the model the provider says answered ("gpt-4.1-2025-04-14" for
// "gpt-4.1"), "" when it did not say.
type Finish struct {
	Reason FinishReason
	Raw    string
	Model  string `json:",omitzero"`
}

// Stored says that the provider stored the answer under ID, for a later
// request to continue ([Request].Previous). It comes before the [Finish].
type Stored struct {
	ID string
}

func (Stored) isEvent()         {}
func (TextDelta) isEvent()      {}
func (ReasoningDelta) isEvent() {}
func (ToolCallDelta) isEvent()  {}
func (Usage) isEvent()          {}
func (Finish) isEvent()         {}

// ErrIncompleteCall is wrapped by the error [Accumulator.Message] returns
// when a tool call did not arrive whole.
var ErrIncompleteCall = errors.New("llm: incomplete tool call")

// IncompleteCall describes a tool call a stream left unfinished.
type IncompleteCall struct {
	Index   int    // the call's position among the message's tool calls
	ID      string // may be empty
	Name    string // may be empty
	Input   jsontext.Value
	Problem string // what is missing, e.g. "arguments end mid-JSON"
}

// IncompleteError lists the tool calls a stream left unfinished. It wraps
// [ErrIncompleteCall].
type IncompleteError struct {
	Calls  []IncompleteCall
	Finish Finish // how the stream ended; FinishLength explains most truncations
}

func (e *IncompleteError) Error() string {
	var b strings.Builder
	b.WriteString("llm: stream ended with ")
	if len(e.Calls) == 1 {
		b.WriteString("1 incomplete tool call")
	} else {
		fmt.Fprintf(&b, "%d incomplete tool calls", len(e.Calls))
	}
	for i, c := range e.Calls {
		sep := ": "
		if i > 0 {
			sep = "; "
		}
		fmt.Fprintf(&b, "%scall %d (id %q, tool %q): %s", sep, c.Index, c.ID, c.Name, c.Problem)
	}
	if e.Finish.Reason == FinishLength {
		b.WriteString(" (the model hit its output token limit; retry with a higher limit rather than replaying the call)")
	}
	return b.String()
}

func (e *IncompleteError) Unwrap() error { return ErrIncompleteCall }

// An Accumulator assembles a stream of [Event]s into the assistant
// [Message] they describe. Parts appear in the order their first fragment
// arrived; fragments of different parts may interleave in any way.
//
// The zero value is ready to use. An Accumulator is not safe for concurrent
// use.
type Accumulator struct {
	parts []partBuilder
	// Position of a part in parts, by kind and index.
	text, reasoning map[int]int
	callByIndex     map[int]int
	callByID        map[string]int
	calls           int
	usage           Usage
	finish          Finish
	stored          string // the Stored event's id
}

type partBuilder struct {
	kind      byte // 't' text, 'r' reasoning, 'c' call
	text      []byte
	provider  string
	signature string
	data      jsontext.Value
	id, name  string
	itemID    string
	args      []byte
	callIndex int
}

// Add folds one event into the message being assembled.
func (a *Accumulator) Add(ev Event) {
	switch ev := ev.(type) {
	case TextDelta:
		b := a.builder(&a.text, ev.Index, 't')
		b.text = append(b.text, ev.Text...)
	case ReasoningDelta:
		b := a.builder(&a.reasoning, ev.Index, 'r')
		b.text = append(b.text, ev.Text...)
		if ev.Provider != "" {
			b.provider = ev.Provider
		}
		if ev.Signature != "" {
			b.signature = ev.Signature
		}
		if ev.Data != nil {
			b.data = ev.Data
		}
	case ToolCallDelta:
		a.addCall(ev)
	case Usage:
		latest(&a.usage.InputTokens, ev.InputTokens)
		latest(&a.usage.OutputTokens, ev.OutputTokens)
		latest(&a.usage.CacheReadTokens, ev.CacheReadTokens)
		latest(&a.usage.CacheWriteTokens, ev.CacheWriteTokens)
		latest(&a.usage.ReasoningTokens, ev.ReasoningTokens)
	case Finish:
		a.finish = ev
	case Stored:
		a.stored = ev.ID
	}
}

// latest sets *dst to v unless v is zero.
func latest(dst *int, v int) {
	if v != 0 {
		*dst = v
	}
}

func (a *Accumulator) builder(m *map[int]int, index int, kind byte) *partBuilder {
	if *m == nil {
		*m = make(map[int]int)
	}
	pos, ok := (*m)[index]
	if !ok {
		pos = len(a.parts)
		a.parts = append(a.parts, partBuilder{kind: kind})
		(*m)[index] = pos
	}
	return &a.parts[pos]
}

func (a *Accumulator) addCall(d ToolCallDelta) {
	pos, ok := -1, false
	if d.ID != "" {
		pos, ok = a.callByID[d.ID]
	}
	if !ok && d.Index >= 0 {
		pos, ok = a.callByIndex[d.Index]
		if ok && d.ID != "" && a.parts[pos].id != "" && a.parts[pos].id != d.ID {
			ok = false // same index, another id: a new call
		}
	}
	if !ok {
		pos = len(a.parts)
		a.parts = append(a.parts, partBuilder{kind: 'c', callIndex: a.calls})
		a.calls++
		if a.callByIndex == nil {
			a.callByIndex = make(map[int]int)
			a.callByID = make(map[string]int)
		}
		if d.Index >= 0 {
			a.callByIndex[d.Index] = pos
		}
	}
	b := &a.parts[pos]
	if d.ID != "" && b.id == "" {
		b.id = d.ID
		a.callByID[d.ID] = pos
	}
	switch {
	case d.Name == "" || d.Name == b.name:
	case b.name == "":
		b.name = d.Name
	default: // a server that streams the name in pieces
		b.name += d.Name
	}
	if d.ItemID != "" {
		b.itemID = d.ItemID
	}
	b.args = append(b.args, d.Arguments...)
}

// Usage returns the token counts seen so far.
func (a *Accumulator) Usage() Usage { return a.usage }

// Finish returns the stream's [Finish] event, or the zero value if none
// arrived.
func (a *Accumulator) Finish() Finish { return a.finish }

// Message returns the assembled assistant message. A call whose arguments
// never arrived gets {}, the providers' encoding of no arguments; other
// arguments are kept exactly as sent, even when they are not valid JSON.
//
// If a call lacks an id or a name, or its arguments end in the middle of a
// JSON value, Message still returns the whole message and also an
// [*IncompleteError] that lists those calls: such a call must not be run as
// if it were whole.
func (a *Accumulator) Message() (Message, error) {
	m := Message{Role: RoleAssistant, Parts: make([]Part, 0, len(a.parts))}
	var incomplete []IncompleteCall
	for i := range a.parts {
		b := &a.parts[i]
		switch b.kind {
		case 't':
			m.Parts = append(m.Parts, Text{Text: string(b.text)})
		case 'r':
			m.Parts = append(m.Parts, Reasoning{Provider: b.provider, Text: string(b.text), Signature: b.signature, Data: b.data})
		case 'c':
			input := jsontext.Value(`{}`)
			if len(b.args) > 0 {
				input = jsontext.Value(append([]byte(nil), b.args...))
			}
			call := ToolCall{ID: b.id, Name: b.name, Input: input, ItemID: b.itemID}
			m.Parts = append(m.Parts, call)
			if problem := callProblem(call); problem != "" {
				incomplete = append(incomplete, IncompleteCall{Index: b.callIndex, ID: b.id, Name: b.name, Input: input, Problem: problem})
			}
		}
	}
	if incomplete != nil {
		return m, &IncompleteError{Calls: incomplete, Finish: a.finish}
	}
	return m, nil
}

func callProblem(c ToolCall) string {
	var problems []string
	if c.ID == "" {
		problems = append(problems, "no id")
	}
	if c.Name == "" {
		problems = append(problems, "no tool name")
	}
	if truncatedJSON(c.Input) {
		problems = append(problems, "arguments end mid-JSON")
	}
	return strings.Join(problems, ", ")
}

// truncatedJSON reports whether b is not valid JSON because it ends too
// early: it reads as the start of a JSON value that the end of input cuts
// off. Malformed but complete input is not truncated: it is passed on, and
// reported when the call is validated.
func truncatedJSON(b []byte) bool {
	_, err := newStrictDecoder(b).ReadValue()
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
