package toolwire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/tool"
)

// outputInstructions adds to the system prompt what Config.Output asks.
func outputInstructions(system string, schema jsontext.Value) string {
	s := "When you give your final answer, answer with only a JSON value, with no other text, that matches this JSON Schema: " + string(bytes.TrimSpace(schema))
	if system == "" {
		return s
	}
	return system + "\n\n" + s
}

// checkOutput validates an answer against Config.Output. It returns the
// answer as compact JSON, or what is wrong with it.
func (a *Agent) checkOutput(text string) (jsontext.Value, string) {
	b := []byte(strings.TrimSpace(text))
	// Models often fence JSON as Markdown: ```json … ```.
	if rest, ok := bytes.CutPrefix(b, []byte("```")); ok {
		if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if body, ok := bytes.CutSuffix(bytes.TrimSpace(rest), []byte("```")); ok {
			b = bytes.TrimSpace(body)
		}
	}
	if len(b) == 0 {
		return nil, "the answer is empty, not JSON"
	}
	fes, err := a.output.Validate(b)
	if err != nil {
		return nil, "the answer is not JSON (" + err.Error() + ")"
	}
	if len(fes) > 0 {
		msgs := make([]string, 0, len(fes))
		for i, fe := range fes {
			if i == 5 {
				msgs = append(msgs, fmt.Sprintf("and %d more", len(fes)-5))
				break
			}
			path := fe.Path
			if path == "" {
				path = "the answer"
			}
			msgs = append(msgs, path+": "+fe.Message)
		}
		return nil, strings.Join(msgs, "; ")
	}
	v := jsontext.Value(bytes.Clone(b))
	if err := v.Compact(); err != nil {
		return nil, "the answer is not JSON (" + err.Error() + ")"
	}
	return v, ""
}

// SchemaFor returns the JSON Schema inferred from the Go type T (as
// [tool.Func] infers a result schema), for Config.Output.
func SchemaFor[T any]() (jsontext.Value, error) {
	s, err := tool.InferSchema[T](false)
	if err != nil {
		return nil, fmt.Errorf("toolwire: schema for %T: %w", *new(T), err)
	}
	return jsontext.Value(s), nil
}

// RunTyped runs a, whose Config.Output is the schema of T (see
// [SchemaFor]), and decodes the final answer into a T.
func RunTyped[T any](ctx context.Context, a *Agent, question string) (T, *Result, error) {
	var out T
	if a.output == nil {
		return out, nil, errors.New("toolwire: run typed: the agent has no Config.Output schema (set it to SchemaFor[T]())")
	}
	res, err := a.Run(ctx, question)
	if err != nil {
		return out, res, err
	}
	if err := json.Unmarshal(res.Output, &out); err != nil {
		return out, res, fmt.Errorf("toolwire: run typed: the answer matches the schema but does not decode into %T: %w", out, err)
	}
	return out, res, nil
}
