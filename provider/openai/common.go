package openai

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// A Field is a top-level field of a request body that the codec does not
// model (model, temperature, tool_choice, ...). Value is its JSON as the
// body has it, compacted.
type Field struct {
	Key   string
	Value []byte
}

// SystemRole is the role a body uses for system messages: OpenAI accepts
// "system" and, for newer models, "developer". Both decode to
// [llm.RoleSystem]; a request remembers which one to write back.
type SystemRole string

// The two system roles. The zero SystemRole means [RoleSystem].
const (
	RoleSystem    SystemRole = "system"
	RoleDeveloper SystemRole = "developer"
)

func (s SystemRole) wire() string {
	if s == RoleDeveloper {
		return string(RoleDeveloper)
	}
	return string(RoleSystem)
}

// resultStatus infers a tool result's status from its text: the status of a
// toolwire envelope, else success. OpenAI formats have no error flag.
func resultStatus(content []llm.Part) llm.Status {
	if text, ok := onlyText(content); ok {
		if st, ok := codec.EnvelopeStatus(text); ok {
			return st
		}
	}
	return llm.StatusSuccess
}

// onlyText joins the content's text parts; ok is false if it holds anything
// else.
func onlyText(content []llm.Part) (string, bool) {
	if len(content) == 1 {
		t, ok := content[0].(llm.Text)
		return t.Text, ok
	}
	var sb strings.Builder
	for _, p := range content {
		t, ok := p.(llm.Text)
		if !ok {
			return "", false
		}
		sb.WriteString(t.Text)
	}
	return sb.String(), true
}

// statusWarning warns when a result's status says more than its content,
// which is all an OpenAI format can carry.
func statusWarning(path string, res llm.ToolResult) *provider.Warning {
	if res.Status == "" || res.Status == llm.StatusSuccess || resultStatus(res.Content) == res.Status {
		return nil
	}
	return &provider.Warning{Path: path, Message: fmt.Sprintf(
		"the result of call %q has status %q, which OpenAI cannot mark (no is_error field); only its content tells the model",
		res.CallID, res.Status)}
}

// appendKey appends `,"key":` (or without the comma for the first field).
func appendKey(dst []byte, first *bool, key string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = codec.AppendString(dst, key)
	return append(dst, ':')
}

// appendTopLevel writes an object's fields: the body's original key order when
// known, the modeled ones through emit. Fields not in the order come after.
func appendTopLevel(dst []byte, order []string, fields []Field, modeled []string, emit func(dst []byte, key string, first *bool) ([]byte, error)) ([]byte, error) {
	for _, f := range fields {
		if slices.Contains(modeled, f.Key) {
			return nil, fmt.Errorf("openai: field %q is modeled by the request type; set it there, not in Fields", f.Key)
		}
	}
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	dst = append(dst, '{')
	first := true
	doneField := make([]bool, len(fields))
	doneModeled := make([]bool, len(modeled))
	var err error
	writeField := func(i int) {
		dst = appendKey(dst, &first, fields[i].Key)
		dst, _ = appendValidJSON(dst, fields[i].Value) // checked by checkFields
		doneField[i] = true
	}
	writeModeled := func(key string) error {
		for i, m := range modeled {
			if m == key && !doneModeled[i] {
				doneModeled[i] = true
				dst, err = emit(dst, key, &first)
				return err
			}
		}
		return nil
	}
	for _, key := range order {
		if slices.Contains(modeled, key) {
			if err := writeModeled(key); err != nil {
				return nil, err
			}
			continue
		}
		for i, f := range fields {
			if f.Key == key && !doneField[i] {
				writeField(i)
				break
			}
		}
	}
	for i := range fields {
		if !doneField[i] {
			writeField(i)
		}
	}
	for _, m := range modeled {
		if err := writeModeled(m); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// checkFields validates Fields: unique keys, valid JSON values.
func checkFields(fields []Field) error {
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.Key] {
			return fmt.Errorf("openai: field %q appears twice in Fields", f.Key)
		}
		seen[f.Key] = true
		if validJSON(f.Value) {
			continue
		}
		if _, err := canonicalJSON(nil, f.Value); err != nil {
			return fmt.Errorf("openai: field %q: value is not valid JSON: %w", f.Key, err)
		}
	}
	return nil
}

// pathMap translates paths computed from the llm form of a decoded body
// (the way transcript.Layout computes them, per docs/dialect-mapping.md)
// into paths in the body itself. They differ where the body holds elements
// the llm form has no place for (a legacy function message, an
// item_reference), where transcript counts only some of a content array's
// parts (an assistant's text), and where a Responses content is a string
// (transcript names its text content.0).
type pathMap struct {
	array string        // "messages" or "input"
	elems []int         // llm-form element index → body index; nil: the same
	parts map[int][]int // body element index → llm part index → body part index
	str   map[int]bool  // body element index → its content is a string that transcript indexes
}

// bodyPath translates path; see [ChatRequest.BodyPath].
func (m *pathMap) bodyPath(path string) string {
	i, tail, ok := codec.CutIndex(path, m.array)
	if !ok || (m.elems == nil && m.parts == nil && m.str == nil) {
		return path
	}
	bi := i
	if m.elems != nil {
		if i >= len(m.elems) {
			return path
		}
		bi = m.elems[i]
	}
	out := m.array + "." + strconv.Itoa(bi)
	if tail == "" {
		return out
	}
	if m.str[bi] {
		tail = codec.StringContent(tail)
	}
	if parts := m.parts[bi]; parts != nil {
		if after, ok := strings.CutPrefix(tail, "content."); ok {
			num, more, hasMore := strings.Cut(after, ".")
			if j, err := strconv.Atoi(num); err == nil && j >= 0 && j < len(parts) {
				tail = "content." + strconv.Itoa(parts[j])
				if hasMore {
					tail += "." + more
				}
			}
		}
	}
	return out + "." + tail
}

// record notes where the llm form's next element sits in the body; kept
// lists the body part indices of its parts when transcript does not count
// them all, and str says its content is a string transcript indexes.
func (m *pathMap) record(bodyIndex int, kept []int, str bool) {
	m.elems = append(m.elems, bodyIndex)
	if kept != nil {
		if m.parts == nil {
			m.parts = make(map[int][]int)
		}
		m.parts[bodyIndex] = kept
	}
	if str {
		if m.str == nil {
			m.str = make(map[int]bool)
		}
		m.str[bodyIndex] = true
	}
}

// done drops the element table when it is the identity.
func (m *pathMap) done() {
	for i, b := range m.elems {
		if i != b {
			return
		}
	}
	m.elems = nil
}
