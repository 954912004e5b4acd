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
//	(in a model content)
//	thoughtSignature on a model llm.Reasoning{Provider: "gemini", Signature} just before
//	part or a functionCall      the part's own llm part (it takes no wire index)
//	inlineData, fileData        llm.Image (any media type: a PDF is an image of
//	                            MediaType application/pdf, and is written back so)
//	functionCall                llm.ToolCall (id optional; Input is args, verbatim)
//	functionResponse            llm.ToolResult (below)
//	any other part              llm.Opaque{Provider: "gemini", Kind, Data: the whole part}
//
// An [llm.Opaque] carries, in either role, what the llm form does not model:
// executableCode, codeExecutionResult, a built-in tool's toolCall and
// toolResponse, a videoMetadata part of its own, an empty thought or one in
// a user content, a part of a kind toolwire does not know (noted in
// Unmodeled). Kind is the part's field ("toolCall"). Such parts are content
// that Gemini accepts; they are written back verbatim, and dropped with a
// warning when converting to another dialect. A part with no field besides
// thought and thoughtSignature has no data, which Gemini rejects
// (GEM-PARTS-NONEMPTY, in Wire): it is an Opaque of no Kind, which
// transcript does not count as content. A videoMetadata beside inlineData
// or fileData is metadata of that part, kept with it.
//
// A content may mix functionCall and functionResponse parts: it decodes as
// one message holding both, which transcript reports (GEM-NO-MIX) and
// Repair splits. A functionCall alone in a user content, or a
// functionResponse alone in a model content, is refused.
//
// Repeated fields (contents, parts, tools, functionDeclarations,
// functionResponse.parts) may be one object instead of an array, as
// Google's own curl samples write "parts": {"text": ...}: Google's JSON
// parser takes a single value for a repeated field. Encode writes such a
// field back as one object while it still holds one element. A null
// optional field (a declaration's "description": null, a call's "id":
// null) reads as unset; a null description is written back as it was.
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
// Gemini needs and reports each change as a [provider.Warning]: a
// functionResponse's name is looked up from its call, an input that is not
// a JSON object is wrapped as {"_raw": text}, and reasoning from another
// provider and content Gemini cannot carry are dropped, never silently.
package gemini

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
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
	// value as it was; a content whose role is "assistant" (GEM-ROLE) is
	// written with the role "model". Leave it unset for a faithful round
	// trip; toolwire check --fix sets it.
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
	// dialect loses it. Parts of a known kind the llm form does not model
	// are not listed: they travel as [llm.Opaque], which other dialects
	// drop with a warning.
	Unmodeled []provider.Warning

	src  *source
	hist *history // what its contents array left, for DecodeAfter
}

// Field is one top-level field of a request body.
type Field struct {
	Key string
	// Value is the field's JSON, or nil for a field written from the
	// Request's own fields (systemInstruction, contents, tools).
	Value jsontext.Value
}
