// Package tool defines tool contracts, typed Go tools, the registry, the
// validate-and-call layer that turns every call into exactly one tool
// result, and the executor that runs a turn's calls in parallel.
package tool

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// Idempotency says whether, and how, a call may safely be retried.
type Idempotency string

// The idempotency levels.
const (
	// Level0 tools have side effects that must not repeat (send an SMS,
	// charge a card): never retried.
	Level0 Idempotency = "level_0"
	// Level1 tools are idempotent given a key: the runtime generates an
	// idempotency_key, passes it to the tool, and reuses it on every retry
	// of that call.
	Level1 Idempotency = "level_1"
	// Level2 tools are read-only and safely retried.
	Level2 Idempotency = "level_2"
)

// Spec is a tool's contract as data: what the model is told, plus what the
// runtime enforces.
type Spec struct {
	Name        string // ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$, safe across providers
	Description string
	// Parameters is the JSON Schema (draft 2020-12) of the arguments.
	Parameters jsontext.Value
	// Returns is the JSON Schema of the result's data; nil if undeclared.
	// An [Executor] validates every result against it, except those of a
	// [Func] whose schema was inferred from a Go type that proves it: see
	// [Func] for the rule. A Spec alone proves nothing: the results of an
	// HTTP tool, or of any tool built from a Spec, are always validated.
	Returns jsontext.Value
	// Idempotency is the retry level; "" if undeclared.
	Idempotency Idempotency
	// Timeout bounds one attempt; 0 means the executor's default.
	Timeout time.Duration
	// RequiresApproval asks a human to approve each call before it runs.
	RequiresApproval bool
	// Strict asks the provider to constrain arguments to the schema.
	Strict bool
	// HTTP, when set, binds the tool to an HTTP endpoint.
	HTTP *HTTPBinding
	// Shape says how the tool's output is shaped to fit the context: the
	// fields that matter, a sort key for "top N", a record cap. The zero
	// value lets the pipeline decide alone (see [toolresult.Shaper]).
	Shape toolresult.Rules
}

// ToolSpec returns what a model is told about the tool.
func (s Spec) ToolSpec() llm.ToolSpec {
	return llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters, Strict: s.Strict}
}

// HTTPBinding makes a [Spec] an HTTP-backed tool: a call sends its
// arguments to URL and the response becomes the result.
type HTTPBinding struct {
	Method  string            // GET, POST, ...; "" means POST
	URL     string            // may hold {param} placeholders filled from the arguments
	Headers map[string]string // sent with every request
}
