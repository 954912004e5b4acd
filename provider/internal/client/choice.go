package client

import (
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// ToolChoices are how a provider writes an [llm.ToolChoice], as JSON:
// Named for a forced tool, with %s where the tool's name goes (as a JSON
// string), None for [llm.ToolNone] and Required for [llm.ToolRequired].
// They are data, one value per API, read by [ToolChoices.Of].
type ToolChoices struct {
	Named, None, Required string
}

// Of returns the JSON of req's tool choice, or "" for the API's default:
// a request without tools, or one that lets the model choose.
func (c ToolChoices) Of(req *llm.Request) string {
	if len(req.Tools) == 0 {
		return ""
	}
	if n := req.ToolChoice.Name; n != "" {
		return fmt.Sprintf(c.Named, codec.AppendString(nil, n))
	}
	switch req.ToolChoice.Mode {
	case llm.ToolNone:
		return c.None
	case llm.ToolRequired:
		return c.Required
	}
	return ""
}
