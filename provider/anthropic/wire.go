package anthropic

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// The wire shapes the codec reads and writes: what Decode keeps of a body
// beyond the exported fields of a Request, so that Encode writes back what
// did not change with its bytes. Every raw value is the body's own bytes,
// compact (see codec.Reader).

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
}

type srcTool struct {
	raw    []byte
	spec   llm.ToolSpec
	extras []codec.Member
	opaque bool // not a custom tool: written back verbatim
}
