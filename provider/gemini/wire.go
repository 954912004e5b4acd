package gemini

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// What the Gemini codec keeps of a generateContent body beyond the exported
// fields of a Request: each content's parts, tools and function
// declarations with their bytes in the body (compact, see codec.Reader),
// and how the body spelled what Google's parser reads more than one way
// (one object for an array, snake_case names), so that Encode writes back
// what did not change as it was.

// source is what Decode saw beyond the exported fields.
type source struct {
	blocks  []block
	msgs    []codec.Msg // one per decoded llm message
	tools   []srcTool
	leadSys int // leading llm system messages from systemInstruction (0 or 1)
	// contentsOne and toolsOne: the field was one object rather than an
	// array (Google's JSON parser takes one value for a repeated field).
	contentsOne, toolsOne bool
	// heads are the role fields of the contents, by message index, where
	// they are not "role" then "parts" with "user" or "model": a content
	// that changed is written with its role as it was.
	heads map[int]head
}

// head is how a content wrote its role.
type head struct {
	role     string // the role's JSON ("user", "function", null), or ""
	hasRole  bool   // the content has a role field
	roleLast bool   // it comes after parts
	badRole  bool   // the role is "assistant" (GEM-ROLE)
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
	noData  bool   // a part without a data field (GEM-PARTS-NONEMPTY)
	respVal []byte // a functionResponse.response that is not an object (GEM-RESPONSE-OBJECT)
	badRole bool   // a part of a content whose role is "assistant" (GEM-ROLE)
	// one: the part was its content's parts, written as one object rather
	// than an array; respOne: likewise for a functionResponse's parts.
	one, respOne bool
}

// wireBad reports whether the block is one that Wire lists.
func (b *block) wireBad() bool { return b.noData || b.respVal != nil || b.badRole }

// srcTool is one Tool object of the tools array.
type srcTool struct {
	raw     []byte
	decls   []srcDecl
	extras  []codec.Member // the Tool object's other fields
	key     string         // the spelling of functionDeclarations
	opaque  bool           // no function declarations: written back verbatim
	declOne bool           // functionDeclarations was one object, not an array
}

type srcDecl struct {
	raw      []byte
	spec     llm.ToolSpec
	paramKey string // "parameters" or "parametersJsonSchema" (either spelling)
	extras   []codec.Member
}
