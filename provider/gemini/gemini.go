// Package gemini converts Gemini generateContent request bodies to and from
// [llm] messages, by the rules of docs/dialect-mapping.md; Decode and Encode
// are a pure codec, with no network. [Client] is the Gemini API client that
// implements [llm.Model] over them.
//
// [Decode] reads a request body (or a bare contents array) into a
// [Request]: leading system text from systemInstruction, one [llm.Message]
// per content, and the function declarations of the tools. [Encode] writes
// a Request back. A decoded body encodes back to the same JSON, compacted:
// what the llm form does not model (generationConfig, toolConfig, non-function
// tools, part fields such as videoMetadata, snake_case spellings, key order)
// is kept in the Request and written back where the message or part it
// belongs to is still there, even after the messages were edited or
// repaired. What the provider would reject in the body's own shape (Wire)
// is written back too, unless [Request.FixWire] asks for the accepted form.
//
// Part mapping (a user content that holds a functionResponse becomes an
// [llm.RoleTool] message):
//
//	text                        llm.Text
//	text with thought: true     llm.Reasoning{Provider: "gemini", Text, Signature}
//	thoughtSignature on a part  llm.Reasoning{Provider: "gemini", Signature} just before
//	                            the part's own llm part (it takes no wire index)
//	inlineData, fileData        llm.Image (any media type)
//	functionCall                llm.ToolCall (id optional; Input is args, verbatim)
//	functionResponse            llm.ToolResult (below)
//	other model parts           llm.Reasoning{Provider: "gemini", Data: the whole part}
//	(executableCode, codeExecutionResult, an empty thought): opaque,
//	replayed verbatim to Gemini and dropped with a warning elsewhere.
//
// A function declaration's parameters (an OpenAPI 3.0 schema) become JSON
// Schema in [llm.ToolSpec].Parameters ("OBJECT" → "object", nullable → a
// "null" type), so that other dialects can use them; parametersJsonSchema is
// taken as is. A declaration that changed is written with
// parametersJsonSchema.
//
// A functionResponse's response object becomes the result's content:
// {"output": "text"} is the text, {"error": "text"} is the text with
// [llm.StatusError], a toolwire envelope keeps its own status, {} is an
// empty result, and any other object is its JSON as text. Encode chooses the
// response that decodes back to the same content and status: a text that is
// a JSON object is sent as the object, any other text is wrapped as
// {"output": …} or {"error": …} (GEM-RESPONSE-OBJECT). Images in a result go
// to functionResponse.parts (GEM-MULTIMODAL-RESP: Gemini 3 only).
//
// When the messages came from another dialect (a Request that [Decode] did
// not make), [Encode] fills in what
// Gemini needs and reports each change as a [transcript.Warning]: a
// functionResponse's name is looked up from its call, an input that is not
// a JSON object is wrapped as {"_raw": text}, and reasoning from another
// provider and content Gemini cannot carry are dropped, never silently.
package gemini

import (
	"encoding/json"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Dialect is the dialect this package encodes.
const Dialect = transcript.Gemini

// Request is a decoded generateContent request body.
//
// A Request from [Decode] remembers the body it came from, so that
// [Encode] can write back what the exported fields do not hold. Build a
// Request literal to encode messages from another dialect. A Request is
// not safe for concurrent modification; Encode only reads it.
type Request struct {
	// Messages are the conversation. A leading system message comes from
	// systemInstruction, with one text part per part.
	Messages []llm.Message
	// Tools are the function declarations of the tools, in order. Tools
	// that are not function declarations (googleSearch, codeExecution,
	// ...) are kept verbatim in the source body and written back in place.
	Tools []llm.ToolSpec
	// Bare reports that the input was a bare contents array; Encode then
	// writes one back.
	Bare bool
	// FixWire makes Encode write what Wire lists in a form Gemini accepts,
	// instead of back as it was: a model part without a data field
	// (GEM-PARTS-NONEMPTY) is left out, and so is a model content that
	// leaves without parts; a functionResponse.response that is not an
	// object (GEM-RESPONSE-OBJECT) is wrapped as {"output": value}, the
	// value as it was. Leave it unset for a faithful round trip; toolwire
	// check --fix sets it.
	FixWire bool
	// Fields are the top-level fields of the body in their order. The
	// fields the codec models (systemInstruction, contents, tools, in
	// either spelling) appear with a nil Value and mark where Encode writes
	// them; every other field (generationConfig, toolConfig,
	// safetySettings, ...) is written back verbatim.
	Fields []Field
	// Wire lists what the provider would reject that the llm form cannot
	// show, found while decoding, with dotted paths into the body.
	Wire []transcript.Violation
	// Unmodeled lists what the body holds that the llm form does not (part
	// fields such as videoMetadata, a functionResponse's willContinue,
	// non-function tools, ...), with dotted paths. It is kept and written
	// back when its part is re-encoded as Gemini; converting to another
	// dialect loses it. Opaque model parts are not listed: they travel as
	// [llm.Reasoning], which other dialects drop with a warning.
	Unmodeled []transcript.Warning

	src *source
}

// Field is one top-level field of a request body.
type Field struct {
	Key string
	// Value is the field's JSON, or nil for a field written from the
	// Request's own fields (systemInstruction, contents, tools).
	Value json.RawMessage
}

// source is what Decode saw beyond the exported fields.
type source struct {
	blocks  []block
	msgs    []codec.Msg // one per decoded llm message
	tools   []srcTool
	leadSys int // leading llm system messages from systemInstruction (0 or 1)
}

// block is one decoded wire part. It stands for one llm part, preceded by
// a signature-only Reasoning when sig is set.
type block struct {
	part   llm.Part
	sig    string
	raw    []byte         // the part, compact
	extras []codec.Member // fields the part does not model, in order
	resp   []codec.Member // a functionResponse's fields it does not model
	// What Wire lists about the part, for FixWire.
	noData  bool   // a model part without a data field (GEM-PARTS-NONEMPTY)
	respVal []byte // a functionResponse.response that is not an object (GEM-RESPONSE-OBJECT)
}

// wireBad reports whether the block is one that Wire lists.
func (b *block) wireBad() bool { return b.noData || b.respVal != nil }

// srcTool is one Tool object of the tools array.
type srcTool struct {
	raw    []byte
	decls  []srcDecl
	extras []codec.Member // the Tool object's other fields
	key    string         // the spelling of functionDeclarations
	opaque bool           // no function declarations: written back verbatim
}

type srcDecl struct {
	raw      []byte
	spec     llm.ToolSpec
	paramKey string // "parameters" or "parametersJsonSchema" (either spelling)
	extras   []codec.Member
}
