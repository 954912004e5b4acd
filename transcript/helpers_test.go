package transcript

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// Builders for test transcripts.

func sys(text string) llm.Message { return llm.System(text) }
func usr(text string) llm.Message { return llm.User(text) }
func asst(parts ...llm.Part) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Parts: parts}
}
func tool(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleTool, Parts: parts} }
func msg(role llm.Role, parts ...llm.Part) llm.Message {
	return llm.Message{Role: role, Parts: parts}
}
func txt(s string) llm.Text { return llm.Text{Text: s} }

func call(id, name string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: jsontext.Value(`{}`)}
}

func res(id, name, text string) llm.ToolResult {
	return llm.ToolResult{CallID: id, Name: name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: text}}}
}

func errRes(id, name string, content ...llm.Part) llm.ToolResult {
	return llm.ToolResult{CallID: id, Name: name, Status: llm.StatusError, Content: content}
}

func img() llm.Image { return llm.Image{MediaType: "image/png", Data: []byte{1, 2, 3}} }

func think(provider, sig string) llm.Reasoning {
	return llm.Reasoning{Provider: provider, Text: "thinking", Signature: sig}
}

func rsItem(id string) llm.Reasoning {
	return llm.Reasoning{Provider: "openai-responses", Data: jsontext.Value(`{"type":"reasoning","id":"` + id + `","summary":[]}`)}
}

func gsig(sig string) llm.Reasoning { return llm.Reasoning{Provider: "gemini", Signature: sig} }

// gopaque is a Gemini part of a kind the llm form does not model.
func gopaque(kind string) llm.Opaque {
	return llm.Opaque{Provider: "gemini", Kind: kind, Data: jsontext.Value(`{"` + kind + `":{}}`)}
}

// opq is an opaque part of provider, of a kind, with a call id.
func opq(provider, kind, callID string) llm.Opaque {
	return llm.Opaque{Provider: provider, Kind: kind, CallID: callID, Data: jsontext.Value(`{}`)}
}

// render writes msgs one message a line, for golden files and messages.
func render(msgs []llm.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "%d %s:", i, m.Role)
		for _, p := range m.Parts {
			b.WriteString(" ")
			b.WriteString(renderPart(p))
			b.WriteString(";")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func renderPart(p llm.Part) string {
	switch p := p.(type) {
	case llm.Text:
		return fmt.Sprintf("text %q", p.Text)
	case llm.Image:
		return "image"
	case llm.ToolCall:
		s := fmt.Sprintf("call %s %s %s", p.ID, p.Name, string(p.Input))
		if p.ItemID != "" {
			s += " item=" + p.ItemID
		}
		return s
	case llm.ToolResult:
		var parts []string
		for _, c := range p.Content {
			parts = append(parts, renderPart(c))
		}
		return fmt.Sprintf("result %s %s %s [%s]", p.CallID, p.Name, p.Status, strings.Join(parts, ", "))
	case llm.Reasoning:
		return fmt.Sprintf("reasoning %s sig=%q data=%s", p.Provider, p.Signature, string(p.Data))
	case llm.Opaque:
		return fmt.Sprintf("opaque %s %q call=%q %s", p.Provider, p.Kind, p.CallID, string(p.Data))
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", p)
}

func renderViolations(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		kind := "reject"
		if v.Warning {
			kind = "warning"
		}
		fmt.Fprintf(&b, "%s %s [%s]\n  %s\n", v.Path, v.Rule, kind, v.Message)
		if v.ProviderError != "" {
			fmt.Fprintf(&b, "  provider: %s\n", v.ProviderError)
		}
	}
	return b.String()
}

func renderChanges(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %s\n  %s\n", c.Path, c.Rule, c.Action, c.Reason)
	}
	return b.String()
}

// unsettled says what keeps out, the output of Repair as d under pol,
// from being final, "" when nothing does: every repaired transcript must
// pass Check, and repairing it again must change nothing.
func unsettled(out []llm.Message, d Dialect, pol *Policy) string {
	if vs := Check(out, d); !Accepted(vs) {
		return fmt.Sprintf("Check(Repair(x), %s) = %q, want accepted", d, ruleList(vs))
	}
	if again, more, err := Repair(out, d, pol); err != nil || len(more) > 0 || !reflect.DeepEqual(again, out) {
		return fmt.Sprintf("Repair(Repair(x), %s): %d more changes, err %v; want none", d, len(more), err)
	}
	return ""
}
