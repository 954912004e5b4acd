// Package llm is the provider-neutral model of a conversation with a language
// model: messages made of sealed parts, tool calls and their results, stream
// events and the accumulator that assembles them, and a versioned persistence
// format.
//
// Every other toolwire package may import llm; llm imports only the standard
// library and the module's one JSON layer, github.com/go-json-experiment/json.
package llm

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Role says who wrote a [Message].
type Role string

// The roles a message can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// A Message is one turn of a conversation.
//
// Which parts a message may hold depends on its role:
//   - [ToolCall] and [Reasoning] parts belong to assistant messages;
//   - [ToolResult] parts belong to tool messages. A tool message holds one or
//     more results and may carry [Text] or [Image] parts after them (the
//     Anthropic shape: text after the results of one user turn);
//   - [Text] and [Image] parts may appear in any message.
//
// The persistence decoder enforces these rules; where results sit relative to
// their calls is checked by the transcript package.
type Message struct {
	Role  Role
	Parts []Part
}

// System returns a system message holding text.
func System(text string) Message { return Message{Role: RoleSystem, Parts: []Part{Text{Text: text}}} }

// User returns a user message holding text.
func User(text string) Message { return Message{Role: RoleUser, Parts: []Part{Text{Text: text}}} }

// Assistant returns an assistant message made of parts.
func Assistant(parts ...Part) Message { return Message{Role: RoleAssistant, Parts: parts} }

// Tool returns a tool message carrying results, in the order given.
func Tool(results ...ToolResult) Message {
	parts := make([]Part, len(results))
	for i, r := range results {
		parts[i] = r
	}
	return Message{Role: RoleTool, Parts: parts}
}

// Text returns the concatenation of the message's text parts.
func (m Message) Text() string {
	var n int
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			n += len(t.Text)
		}
	}
	b := make([]byte, 0, n)
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			b = append(b, t.Text...)
		}
	}
	return string(b)
}

// ToolCalls returns the tool calls in the message, in order.
func (m Message) ToolCalls() []ToolCall { return partsOf[ToolCall](m.Parts) }

// ToolResults returns the tool results in the message, in order.
func (m Message) ToolResults() []ToolResult { return partsOf[ToolResult](m.Parts) }

// partsOf returns the parts of type P, in order; nil when there are none.
func partsOf[P Part](parts []Part) []P {
	var out []P
	for _, p := range parts {
		if q, ok := p.(P); ok {
			out = append(out, q)
		}
	}
	return out
}

// A Part is one piece of a [Message]. The set of parts is closed: [Text],
// [Image], [ToolCall], [ToolResult], [Reasoning] and [Opaque].
type Part interface {
	isPart()
}

// Text is plain text.
type Text struct {
	Text string
}

// Image is a picture, given either inline (Data, with its MediaType) or by
// URL.
type Image struct {
	MediaType string // "image/png", "image/jpeg", ...; required with Data
	Data      []byte // the image bytes
	URL       string // where the image can be fetched, when Data is empty
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	// ID links the call to its [ToolResult].
	ID string
	// Name is the tool's name.
	Name string
	// Input holds the arguments exactly as the model sent them. It is usually
	// a JSON object, but a model may send invalid JSON: it is kept as is so
	// that the failure can be reported and the transcript replayed.
	Input jsontext.Value
	// ItemID is the provider's own id for the item that carried the call,
	// when it differs from ID (OpenAI Responses "fc_…"). Optional.
	ItemID string
}

// Status is the outcome of a tool call.
type Status string

// The statuses a [ToolResult] can have.
const (
	// StatusSuccess: the tool did what was asked. An empty result is a
	// success with a summary that says nothing was found.
	StatusSuccess Status = "success"
	// StatusError: the tool did not do what was asked.
	StatusError Status = "error"
	// StatusPartial: part of the work was done; the summary says which part
	// is missing.
	StatusPartial Status = "partial"
)

// Valid reports whether s is one of the three statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusSuccess, StatusError, StatusPartial:
		return true
	}
	return false
}

// ToolResult is the answer to a [ToolCall], fed back to the model.
type ToolResult struct {
	// CallID is the ID of the call this result answers.
	CallID string
	// Name is the name of the tool that was called.
	Name string
	// Status is the outcome. Providers with an error flag (Anthropic
	// is_error) set it when Status is [StatusError].
	Status Status
	// Content is what the model reads: [Text] and [Image] parts.
	Content []Part
}

// IsError reports whether the result's status is [StatusError].
func (r ToolResult) IsError() bool { return r.Status == StatusError }

// Text returns the result's content as text for a person or a summary: its
// text parts in order, and a note in their place for each image,
// "[image image/png, 5120 bytes]" (or "[image URL]" for one the model
// fetches).
func (r ToolResult) Text() string {
	var b strings.Builder
	for _, p := range r.Content {
		switch p := p.(type) {
		case Text:
			b.WriteString(p.Text)
		case Image:
			if len(p.Data) == 0 && p.URL != "" {
				fmt.Fprintf(&b, "[image %s]", p.URL)
			} else {
				fmt.Fprintf(&b, "[image %s, %d bytes]", p.MediaType, len(p.Data))
			}
		}
	}
	return b.String()
}

// Merge returns the result of appending chunk to r, for tool results that
// arrive in pieces: the content concatenates in order, and the call id, name
// and status are the later non-empty ones, else the earlier.
func (r ToolResult) Merge(chunk ToolResult) ToolResult {
	out := r
	out.Content = make([]Part, 0, len(r.Content)+len(chunk.Content))
	out.Content = append(out.Content, r.Content...)
	out.Content = append(out.Content, chunk.Content...)
	if chunk.CallID != "" {
		out.CallID = chunk.CallID
	}
	if chunk.Name != "" {
		out.Name = chunk.Name
	}
	if chunk.Status != "" {
		out.Status = chunk.Status
	}
	return out
}

// Reasoning is a model's reasoning, carried through untouched so that it can
// be replayed to the provider that produced it (Anthropic thinking blocks and
// their signatures, OpenAI Responses reasoning items, Gemini thought
// signatures). toolwire never interprets Signature or Data.
type Reasoning struct {
	// Provider names the dialect that produced the reasoning ("anthropic",
	// "openai-responses", "gemini"). Reasoning is replayed only to that
	// dialect.
	Provider string
	// Text is the human-readable reasoning or its summary, if any.
	Text string
	// Signature is the provider's opaque signature over the reasoning.
	Signature string
	// Data is any other opaque provider payload (a redacted thinking block,
	// a whole reasoning item), as JSON.
	Data jsontext.Value
}

// Opaque is content of one provider's wire format that the llm form does
// not model: an Anthropic search_result or tool_reference block, a Gemini
// videoMetadata part, an OpenAI Responses tool_search_call item. A codec
// decodes such an element into an Opaque instead of refusing the body, and
// writes it back verbatim, so that a body the provider accepts is read and
// round-trips byte for byte. Like [Reasoning], an Opaque is replayed only to
// the dialect that produced it; other dialects drop it with a warning.
// toolwire never interprets Data.
//
// An Opaque may stand in a message of any role, and in a tool result's
// content.
type Opaque struct {
	// Provider names the dialect whose wire format Data is in
	// ("openai-chat", "openai-responses", "anthropic", "gemini").
	Provider string
	// Kind is the element's type on the wire ("search_result",
	// "videoMetadata", "tool_search_call"), for messages and warnings.
	Kind string
	// CallID is set when the element is a call that a [ToolResult] may
	// answer (a client-executed Responses tool_search_call): the id that
	// result names. Most elements have none.
	CallID string
	// Data is the element, verbatim JSON.
	Data jsontext.Value
}

func (Text) isPart()       {}
func (Image) isPart()      {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}
func (Reasoning) isPart()  {}
func (Opaque) isPart()     {}

// partKind names a part in messages and in the persistence format.
func partKind(p Part) string {
	switch p.(type) {
	case Text:
		return "text"
	case Image:
		return "image"
	case ToolCall:
		return "tool_call"
	case ToolResult:
		return "tool_result"
	case Reasoning:
		return "reasoning"
	case Opaque:
		return "opaque"
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", p)
}
