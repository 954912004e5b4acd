package llm

import "github.com/go-json-experiment/json/jsontext"

// ToolSpec is what a model is told about a tool: its name, what it does,
// and the JSON Schema of its arguments. Provider codecs render it into each
// provider's tool definition; the tool package builds it from a contract.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is the JSON Schema (draft 2020-12) of the arguments, an
	// object schema. nil means no parameters.
	Parameters jsontext.Value
	// Strict asks the provider to constrain the model's arguments to the
	// schema exactly (OpenAI strict mode, Anthropic strict tools).
	Strict bool
}
