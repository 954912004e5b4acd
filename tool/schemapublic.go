package tool

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A Schema is a compiled JSON Schema (draft 2020-12), for values that are
// not tool arguments: an agent's final answer, say. It validates as tool
// arguments are validated, with the same [FieldError]s. A Schema is safe
// for concurrent use.
type Schema struct {
	s   *jsonschema.Schema
	raw jsontext.Value
}

// CompileSchema compiles raw, which must be self-contained (no remote
// $ref). name appears in error messages.
func CompileSchema(name string, raw jsontext.Value) (*Schema, error) {
	s, err := compileSchema(raw, name)
	if err != nil {
		return nil, fmt.Errorf("tool: schema %s: %w", name, err)
	}
	return &Schema{s: s, raw: append(jsontext.Value(nil), raw...)}, nil
}

// Raw returns the schema as it was given.
func (s *Schema) Raw() jsontext.Value { return s.raw }

// Validate checks the JSON value data against the schema. It returns the
// failures, sorted by path, or an error when data is not JSON.
func (s *Schema) Validate(data []byte) ([]FieldError, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	return validate(s.s, v), nil
}
