package openai

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// This file holds what the Chat Completions and Responses encoders share:
// warnings with paths into the encoded body, which parts of a message the
// OpenAI formats can hold, and the tools array.

// encoder is the part of a Chat or Responses encoder that does not depend
// on the dialect.
type encoder struct {
	codec.Warner
	array string        // the body's array: "messages" or "input"
	out   int           // the index of the next wire element
	ids   *codec.IDPlan // the ids of a conversion; nil for a decoded request
}

// planIDs plans the ids of msgs, messages converted from another dialect,
// by rules (see [codec.IDPlan]).
func (e *encoder) planIDs(msgs []llm.Message, rules codec.IDRules) {
	e.ids = codec.PlanIDs(msgs, rules)
}

// callID returns the id to write for call j of message i, and warns at path
// when it is not the call's own.
func (e *encoder) callID(i, j int, c llm.ToolCall, path string) string {
	id, warning := e.ids.Call(i, j, c.ID)
	if warning != "" {
		e.Warn(path, warning)
	}
	return id
}

// resultID returns result r, part j of message i, with the call id to
// write, and warns at path when it is not the result's own.
func (e *encoder) resultID(i, j int, r llm.ToolResult, path string) llm.ToolResult {
	id, warning := e.ids.Result(i, j, r.CallID)
	if warning != "" {
		e.Warn(path, warning)
	}
	r.CallID = id
	return r
}

// outPath is the path of the next wire element, for warnings.
func (e *encoder) outPath() string { return e.array + "." + strconv.Itoa(e.out) }

// emit writes one wire element: f appends its canonical form, which w
// swaps for the kept original when there is one.
func (e *encoder) emit(w *arrayWriter, f func(dst []byte) []byte) {
	start := w.begin()
	w.dst = f(w.dst)
	w.done(start)
	e.out++
}

// image reports whether img can be written, and warns when it cannot.
func (e *encoder) image(img llm.Image) bool {
	if why := imageProblem(img); why != "" {
		e.Warn(e.outPath(), why+"; it is left out")
		return false
	}
	return true
}

// userParts returns the parts of system or user message i that can be
// written: its text, and the images of a user message. It warns about what
// it leaves out; a part of another kind is an error.
func (e *encoder) userParts(i int, m llm.Message) ([]llm.Part, error) {
	var parts []llm.Part
	for j, p := range m.Parts {
		switch q := p.(type) {
		case llm.Text:
			parts = append(parts, p)
		case llm.Image:
			if m.Role == llm.RoleSystem {
				e.Warn(e.outPath(), "a system message cannot hold an image; it is left out")
				continue
			}
			if e.image(q) {
				parts = append(parts, p)
			}
		default:
			return nil, placement(i, j, m.Role, p)
		}
	}
	return parts, nil
}

// toolParts walks tool message i: each result, part j, its content checked
// by [encoder.resultContent], goes to result; the text and images beside
// the results are returned, to be written after them.
func (e *encoder) toolParts(i int, m llm.Message, result func(j int, r llm.ToolResult)) (trailing []llm.Part, err error) {
	for j, p := range m.Parts {
		switch q := p.(type) {
		case llm.ToolResult:
			r, err := e.resultContent(i, j, q)
			if err != nil {
				return nil, err
			}
			if len(trailing) > 0 {
				e.Warn(e.outPath(), "text or images between tool results are moved after the results")
			}
			result(j, r)
		case llm.Text:
			trailing = append(trailing, p)
		case llm.Image:
			if e.image(q) {
				trailing = append(trailing, p)
			}
		default:
			return nil, placement(i, j, m.Role, p)
		}
	}
	return trailing, nil
}

// resultContent returns result j of message i with the content that can be
// written: text, and images that can be written. Any other part is an
// error.
func (e *encoder) resultContent(i, j int, r llm.ToolResult) (llm.ToolResult, error) {
	content := make([]llm.Part, 0, len(r.Content))
	for k, p := range r.Content {
		switch q := p.(type) {
		case llm.Text:
			content = append(content, p)
		case llm.Image:
			if e.image(q) {
				content = append(content, p)
			}
		default:
			return r, fmt.Errorf("openai: messages[%d].parts[%d].content[%d]: a tool result can hold only text and images, not a %s", i, j, k, partName(p))
		}
	}
	r.Content = content
	return r, nil
}

// placement returns the error for a part in a message whose role may not
// hold it.
func placement(i, j int, role llm.Role, p llm.Part) error {
	return fmt.Errorf("openai: messages[%d].parts[%d]: %s part cannot be in %s message (llm placement rules)", i, j, an(partName(p)), an(string(role)))
}

func partName(p llm.Part) string {
	if p == nil {
		return "nil"
	}
	return codec.PartKind(p)
}

func providerName(p string) string {
	if p == "" {
		return "unattributed"
	}
	return strconv.Quote(p)
}

// sizeHint guesses the size of an encoded body: perMessage bytes of
// framing for each message, and the size of each part.
func sizeHint(msgs []llm.Message, perMessage int) int {
	n := 256
	for _, m := range msgs {
		n += perMessage
		for _, p := range m.Parts {
			n += partSize(p)
		}
	}
	return n
}

func partSize(p llm.Part) int {
	switch p := p.(type) {
	case llm.Text:
		// Each quote, backslash and newline is escaped: a text that holds
		// JSON (a tool result) grows by a quarter or more.
		return 24 + len(p.Text) + len(p.Text)/32 + strings.Count(p.Text, `"`) + strings.Count(p.Text, `\`) + strings.Count(p.Text, "\n")
	case llm.Image:
		return 64 + len(p.URL) + len(p.Data)*4/3
	case llm.ToolCall:
		return 96 + len(p.ID) + len(p.Name) + len(p.Input)*5/4
	case llm.ToolResult:
		n := 64 + len(p.CallID)
		for _, q := range p.Content {
			n += partSize(q)
		}
		return n
	case llm.Reasoning:
		return 64 + len(p.Data)
	}
	return 0
}

// appendTools writes a tools array: each tool by appendTool, the kept
// tools that are not function tools where they stood.
func appendTools(dst []byte, tools []llm.ToolSpec, kp *keep, appendTool func(dst []byte, t llm.ToolSpec) []byte) ([]byte, error) {
	w := newArrayWriter(append(dst, '['), kp)
	for k, t := range tools {
		if err := checkParameters(t); err != nil {
			return nil, fmt.Errorf("openai: tools[%d]: %w", k, err)
		}
		start := w.begin()
		w.dst = appendTool(w.dst, t)
		w.done(start)
	}
	dst = w.finish(true)
	return append(dst, ']'), nil
}
