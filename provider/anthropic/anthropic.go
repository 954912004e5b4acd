// Package anthropic converts Anthropic Messages API request bodies to and
// from [llm] messages, by the rules of docs/dialect-mapping.md; Decode and
// Encode are a pure codec, with no network. [Client] is the Messages API
// client that implements [llm.Model] over them.
//
// [Decode] reads a request body (or a bare messages array) into a
// [Request]: leading system text from the top-level system field, one
// [llm.Message] per wire message, one part per content block, and the tools.
// [Encode] writes a Request back. A decoded body encodes back to the same
// JSON, compacted: everything the llm form does not model (the model name,
// cache_control, citations, server tools, key order, a string versus a
// block array, blocks the llm form has no part for) is kept in the Request
// and written back where the message or part it belongs to is still there,
// even after the messages were edited, reordered or repaired. So are role "system" messages at the
// start of the messages array, which the Messages API rejects
// (ANT-SYSTEM-ROLE, in Wire), unless [Request.FixWire] asks for the
// accepted form: the top-level system field.
//
// Block mapping (a user message that holds a tool_result becomes an
// [llm.RoleTool] message):
//
//	text                      llm.Text
//	image, document           llm.Image (a document has a non-image MediaType:
//	                          application/pdf, or text/plain for a text source)
//	tool_use                  llm.ToolCall (Input is the input object, verbatim)
//	tool_result               llm.ToolResult (is_error ⇔ StatusError; otherwise the
//	                          status of a toolwire envelope in the content, else success)
//	thinking                  llm.Reasoning{Provider: "anthropic", Text, Signature}
//	redacted_thinking         llm.Reasoning{Provider: "anthropic", Data: the data string as JSON}
//	any other block           llm.Opaque{Provider: "anthropic", Kind: its type, Data: the block}
//
// Opaque blocks are those the llm form has no place for, in any message
// and in a tool_result's content: server tool blocks (server_tool_use,
// web_search_tool_result, mcp_tool_use, ...), search_result,
// tool_reference, container_upload, the tool_addition entries of a role
// "system" message, an image or document whose source is a Files API id
// ("file") or inline content blocks ("content"), and block types toolwire
// does not know. They are written back verbatim, replayed only to
// Anthropic and dropped with a warning elsewhere. A server tool use is
// answered by its server's result block in the same assistant content,
// never by a tool_result: it is no call for the pairing rules. (A
// Reasoning whose Data is a JSON object, as earlier versions decoded
// server tool blocks, is still written back verbatim.)
//
// When the messages came from another dialect (a Request that [Decode] did
// not make), [Encode] makes them valid for Anthropic and reports each change as a [provider.Warning]: tool-call
// ids outside ^[a-zA-Z0-9_-]+$ (ANT-ID-PATTERN) are rewritten, consistently in
// the tool_use and its tool_result; an input that is not a JSON object is
// wrapped as {"_raw": text}; reasoning from another provider and content
// Anthropic cannot carry are dropped, never silently.
package anthropic

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Dialect is the dialect this package encodes.
const Dialect = transcript.Anthropic

// Request is a decoded Messages API request body.
//
// A Request from [Decode] remembers the body it came from, so that
// [Encode] can write back what the exported fields do not hold. Build a
// Request literal to encode messages from another dialect. A Request is
// not safe for concurrent modification; Encode only reads it.
type Request struct {
	// Messages are the conversation. Leading system messages come from the
	// top-level system field: a string is one message with one text part,
	// a block array is one message with a text part per block.
	Messages []llm.Message
	// Tools are the custom (client) tools. Server tools and other
	// non-custom tool definitions are kept verbatim in the source body and
	// written back in place.
	Tools []llm.ToolSpec
	// Thinking reports that the body enables extended thinking
	// (thinking.type == "enabled"), which makes ANT-THINKING-FIRST apply.
	// Encode writes the body's own thinking field (in Fields) back as it
	// was; setting Thinking without one is reported as a warning, because
	// the budget is unknown.
	Thinking bool
	// Bare reports that the input was a bare messages array; Encode then
	// writes one back.
	Bare bool
	// FixWire makes Encode write what Wire lists in a form the Messages API
	// accepts, instead of back as it was: every leading system message goes
	// into the top-level system field, the role "system" messages that
	// opened the body's messages array (ANT-SYSTEM-ROLE) included, in order
	// after the text the field held. A single text keeps its form (a string
	// stays a string); several are written as text blocks, each keeping its
	// own fields (cache_control), so that no text is dropped or joined. A
	// bare array has no system field: there they stay role "system"
	// messages, with a warning. Leave FixWire unset for a faithful round
	// trip; toolwire check --fix sets it. A Request that Decode did not make
	// always writes its leading system messages to the field. A
	// tool_result whose content was an object (ANT-JSON-TYPE) is written
	// with the object's JSON as its string content.
	FixWire bool
	// Fields are the top-level fields of the body in their order. The
	// fields the codec models (system, messages, tools) appear with a nil
	// Value and mark where Encode writes them; every other field (model,
	// max_tokens, thinking, metadata, ...) is written back verbatim.
	Fields []Field
	// Wire lists what the provider would reject that the llm form cannot
	// show, found while decoding, with dotted paths into the body.
	Wire []transcript.Violation
	// Unmodeled lists what the body holds that the llm form does not
	// (cache_control, citations, a tool_use's caller, server tools, ...),
	// with dotted paths. It is kept and written back when its part is
	// re-encoded as Anthropic; converting to another dialect loses it.
	// Opaque blocks are not listed: they travel as [llm.Opaque], which
	// other dialects drop with a warning.
	Unmodeled []provider.Warning

	src  *source
	hist *history // what its messages array left, for DecodeAfter
}

// BodyPath translates a dotted path computed from r's llm form, as
// transcript.Layout and transcript.Check compute it, into the path of the
// same value in the body r was decoded from. The two differ in two ways.
// A message whose content is a string has no blocks: the path of its text,
// "messages.3.content.0", is "messages.3.content" in the body. And when the
// body's messages array starts with role "system" messages, which the
// Messages API rejects (ANT-SYSTEM-ROLE, in Wire), the llm form counts them
// with the top-level system prompt: after one such message "messages.1" is
// "messages.2" in the body, and "system" is "messages.0" when the body has
// no top-level system field. Other paths come back unchanged. The
// translation holds for the messages as decoded: the paths of a changed
// transcript (after transcript.Repair, say) are paths in its own encoding,
// not in this body.
func (r *Request) BodyPath(path string) string {
	src := r.src
	if src == nil {
		return path
	}
	if path == "system" && src.leadSys == 0 && src.roleSys > 0 {
		return "messages.0"
	}
	i, tail, ok := codec.CutIndex(path, "messages")
	if !ok {
		return path
	}
	bi := i + src.roleSys // the message's index in the body
	if m := bi + src.leadSys; m < len(src.msgs) {
		if sm := src.msgs[m]; sm.Count == 1 && src.blocks[sm.First].str {
			tail = codec.StringContent(tail)
		}
	}
	out := "messages." + strconv.Itoa(bi)
	if tail != "" {
		out += "." + tail
	}
	return out
}

// Field is one top-level field of a request body.
type Field struct {
	Key string
	// Value is the field's JSON, or nil for a field written from the
	// Request's own fields (system, messages, tools).
	Value jsontext.Value
}
