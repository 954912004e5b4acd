package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
)

// TestOpaqueBlocks checks that each block the Messages API accepts and the
// llm form does not model is read as an llm.Opaque of its kind, in any
// message or in a tool_result, and that the body round-trips byte for byte.
func TestOpaqueBlocks(t *testing.T) {
	user := func(block string) string {
		return `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"q"},` + block + `]}]}`
	}
	inResult := func(block string) string {
		return `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[` + block + `]}]}]}`
	}
	assistant := func(block string) string {
		return `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[` + block + `]}]}`
	}
	tests := []struct {
		name, body string
		at         func(r *Request) llm.Part
		kind       string
	}{
		{"container_upload in a user message", user(`{"type":"container_upload","file_id":"file_1"}`), userPart, "container_upload"},
		{"a document from the Files API", user(`{"type":"document","source":{"type":"file","file_id":"file_1"},"title":"t"}`), userPart, "document"},
		{"an image from the Files API", user(`{"type":"image","source":{"type":"file","file_id":"file_1"}}`), userPart, "image"},
		{"a document of content blocks", user(`{"type":"document","source":{"type":"content","content":[{"type":"text","text":"p1"}]}}`), userPart, "document"},
		{"a source type toolwire does not know", user(`{"type":"image","source":{"type":"s3","key":"k"}}`), userPart, "image"},
		{"a search_result in a user message", user(`{"type":"search_result","source":"s","title":"t","content":[{"type":"text","text":"x"}]}`), userPart, "search_result"},
		{"a block type toolwire does not know", user(`{"type":"hologram","data":{}}`), userPart, "hologram"},
		{"a search_result in a tool_result", inResult(`{"type":"search_result","source":"s","title":"t","content":[]}`), resultPart, "search_result"},
		{"a tool_reference in a tool_result", inResult(`{"type":"tool_reference","tool_name":"lookup"}`), resultPart, "tool_reference"},
		{"a file document in a tool_result", inResult(`{"type":"document","source":{"type":"file","file_id":"file_1"}}`), resultPart, "document"},
		{"a server_tool_use", assistant(`{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}`), assistantPart, "server_tool_use"},
		{"an mcp_tool_use", assistant(`{"type":"mcp_tool_use","id":"mcptoolu_1","name":"n","server_name":"s","input":{}}`), assistantPart, "mcp_tool_use"},
		{"a tool_addition system entry", `{"model":"claude-opus-4-8","max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_reference","name":"lookup"}}]}]}`,
			func(r *Request) llm.Part { return r.Messages[1].Parts[0] }, "tool_addition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode([]byte(tt.body))
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", tt.body, err)
			}
			o, ok := tt.at(r).(llm.Opaque)
			if !ok || o.Provider != "anthropic" || o.Kind != tt.kind || !json.Valid(o.Data) {
				t.Errorf("Decode(%s) part = %#v, want an anthropic Opaque of kind %q", tt.body, tt.at(r), tt.kind)
			}
			enc, warns, err := Encode(r)
			if err != nil || len(warns) > 0 || string(enc) != tt.body {
				t.Errorf("Encode(Decode(%s)) = %s, %v, %v; want the body back", tt.body, enc, warns, err)
			}
		})
	}
}

func userPart(r *Request) llm.Part      { return r.Messages[0].Parts[1] }
func assistantPart(r *Request) llm.Part { return r.Messages[1].Parts[0] }
func resultPart(r *Request) llm.Part {
	return r.Messages[2].Parts[0].(llm.ToolResult).Content[0]
}

// TestOpaqueEdited checks that an Anthropic Opaque part is written back
// verbatim wherever an edit moves it, and that another dialect's Opaque is
// dropped with a warning that names it.
func TestOpaqueEdited(t *testing.T) {
	tr := llm.Opaque{Provider: "anthropic", Kind: "tool_reference", Data: jsontext.Value(`{"type": "tool_reference", "tool_name": "lookup"}`)}
	foreign := llm.Opaque{Provider: "openai-responses", Kind: "tool_search_call", Data: jsontext.Value(`{"type":"tool_search_call"}`)}
	r := &Request{Fields: []Field{{Key: "max_tokens", Value: []byte("9")}, {Key: "messages"}}, Messages: []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: "q"}, tr, foreign}},
		llm.Assistant(llm.ToolCall{ID: "t1", Name: "f", Input: jsontext.Value(`{}`)}),
		llm.Tool(llm.ToolResult{CallID: "t1", Status: llm.StatusSuccess, Content: []llm.Part{tr, foreign}}),
	}}
	enc, warns, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"q"},{"type":"tool_reference","tool_name":"lookup"}]},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"tool_reference","tool_name":"lookup"}]}]}]}`
	if string(enc) != want {
		t.Errorf("Encode() =\n%s\nwant\n%s", enc, want)
	}
	if len(warns) != 2 || !strings.Contains(warns[0].Message, `tool_search_call element from "openai-responses"`) || warns[0].Path != "messages.0.content.2" || warns[1].Path != "messages.2.content.0.content.1" {
		t.Errorf("Encode() warnings = %v, want one per foreign Opaque, at messages.0.content.2 and messages.2.content.0.content.1", warns)
	}

	// A decoded body whose messages were reordered keeps its opaque
	// blocks' bytes.
	body := `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"container_upload","file_id":"f1"},{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"a"}]}]}`
	d, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	u := d.Messages[0]
	d.Messages[0] = llm.Message{Role: llm.RoleUser, Parts: []llm.Part{u.Parts[1], u.Parts[0]}}
	enc, _, err = Encode(d)
	if err != nil || !bytes.Contains(enc, []byte(`[{"type":"text","text":"q"},{"type":"container_upload","file_id":"f1"}]`)) {
		t.Errorf("Encode(reordered) = %s, %v; want the container_upload block after the text, verbatim", enc, err)
	}
}

// TestDescriptionNull checks that a tool whose description is null reads
// as a tool without one, and is written back as it was.
func TestDescriptionNull(t *testing.T) {
	body := `{"max_tokens":9,"messages":[{"role":"user","content":"q"}],"tools":[{"name":"f","description":null,"input_schema":{"type":"object"}}]}`
	r, err := Decode([]byte(body))
	if err != nil {
		t.Fatalf("Decode(%s) error: %v", body, err)
	}
	if len(r.Tools) != 1 || r.Tools[0].Description != "" {
		t.Errorf("Decode(%s).Tools = %+v, want one tool without a description", body, r.Tools)
	}
	if enc, _, err := Encode(r); err != nil || string(enc) != body {
		t.Errorf("Encode(Decode(%s)) = %s, %v; want the body back", body, enc, err)
	}
}

// TestOpaqueNotWritten: an opaque part Anthropic cannot carry is dropped
// with a warning that names it plainly.
func TestOpaqueNotWritten(t *testing.T) {
	for _, c := range []struct {
		part llm.Opaque
		want string
	}{
		{llm.Opaque{Provider: string(Dialect), Kind: "server_tool_use", Data: []byte(`[1]`)},
			"a server_tool_use element whose Data is not a JSON object cannot be written as an Anthropic block; dropped"},
		{llm.Opaque{Provider: string(Dialect), Data: []byte(`"x"`)},
			"an opaque part whose Data is not a JSON object cannot be written as an Anthropic block; dropped"},
		{llm.Opaque{Provider: "gemini", Kind: "executableCode", Data: []byte(`{}`)},
			`an executableCode element from "gemini" cannot be expressed in Anthropic; dropped`},
	} {
		r := &Request{Messages: []llm.Message{llm.User("q"), llm.Assistant(llm.Text{Text: "a"}, c.part)},
			Fields: []Field{{Key: "max_tokens", Value: []byte("9")}}}
		_, warns, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		if len(warns) != 1 || warns[0].Message != c.want || warns[0].Path != "messages.1.content.1" {
			t.Errorf("%+v: warnings %+v, want one: %s", c.part, warns, c.want)
		}
	}
}
