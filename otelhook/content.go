package otelhook

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// A message and its parts as gen_ai.input.messages writes them: the
// conventions' JSON schema for input messages.
type message struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type part struct {
	Type      string         `json:"type"`
	Content   string         `json:"content,omitzero"`
	ID        string         `json:"id,omitzero"`
	Name      string         `json:"name,omitzero"`
	Arguments jsontext.Value `json:"arguments,omitzero"`
	Response  string         `json:"response,omitzero"`
	MediaType string         `json:"mime_type,omitzero"`
}

// inputMessages writes msgs as the value of gen_ai.input.messages. Images
// are named by their media type, never sent whole.
func inputMessages(msgs []llm.Message) string {
	out := make([]message, len(msgs))
	for i, m := range msgs {
		out[i] = message{Role: string(m.Role), Parts: make([]part, 0, len(m.Parts))}
		for _, p := range m.Parts {
			out[i].Parts = append(out[i].Parts, partOf(p))
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ""
	}
	return string(b)
}

func partOf(p llm.Part) part {
	switch p := p.(type) {
	case llm.Text:
		return part{Type: "text", Content: p.Text}
	case llm.ToolCall:
		args := p.Input
		if !args.IsValid() {
			args = nil // kept out rather than break the attribute's JSON
		}
		return part{Type: "tool_call", ID: p.ID, Name: p.Name, Arguments: args}
	case llm.ToolResult:
		return part{Type: "tool_call_response", ID: p.CallID, Response: p.Text()}
	case llm.Image:
		return part{Type: "blob", MediaType: p.MediaType}
	}
	return part{Type: "other"}
}
