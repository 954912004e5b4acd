package anthropic

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// What the Anthropic codec keeps of a Messages body beyond the exported
// fields of a Request: each content block and tool with its bytes in the
// body (compact, see codec.Reader) and the fields the llm form does not
// model, so that Encode writes back what did not change as it was.

// source is what Decode saw beyond the exported fields.
type source struct {
	blocks  []block
	msgs    []codec.Msg // one per decoded llm message
	tools   []srcTool
	leadSys int // leading llm system messages that came from top-level system (0 or 1)
	roleSys int // role "system" messages at the start of the messages array (ANT-SYSTEM-ROLE)
}

// block is one decoded content block.
type block struct {
	part   llm.Part
	raw    []byte         // the block, compact; for a string content, the string
	extras []codec.Member // fields the part does not model, in order
	inner  []block        // a tool_result's content blocks
	str    bool           // raw is a message's (or tool_result's) string content
	wasArr bool           // a tool_result whose content was an array
	// objContent marks a tool_result whose content was an object, which
	// Wire lists (ANT-JSON-TYPE) and FixWire writes as a string.
	objContent bool
}

type srcTool struct {
	raw    []byte
	spec   llm.ToolSpec
	extras []codec.Member
	opaque bool // not a custom tool: written back verbatim
}
