package llm

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/golden"
)

// sample covers every part type and field.
func sample() Conversation {
	return Conversation{Messages: []Message{
		System("You are a travel agent."),
		{Role: RoleUser, Parts: []Part{
			Text{Text: "Flights to 北京 <tomorrow> & back?"},
			Image{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2}},
			Image{URL: "https://example.com/map.jpg"},
			Opaque{Provider: "anthropic", Kind: "search_result", Data: jsontext.Value(`{"type":"search_result","source":"s","title":"t","content":[]}`)},
		}},
		Assistant(
			Reasoning{Provider: "anthropic", Text: "Search both legs.", Signature: "sig-abc"},
			Reasoning{Provider: "anthropic", Data: jsontext.Value(`"redacted-blob"`)},
			Text{Text: "Searching."},
			ToolCall{ID: "call_1", Name: "search_flights", Input: jsontext.Value(`{"from":"PAR","to":"PEK"}`)},
			ToolCall{ID: "call_2", Name: "search_flights", Input: jsontext.Value(`{"from":"PEK", "to":"PAR"`), ItemID: "fc_2"},
			ToolCall{ID: "call_3", Name: "now"},
			ToolCall{ID: "call_4", Name: "echo", Input: jsontext.Value(" {\n\"a\": 1}\n")},
			Opaque{Provider: "openai-responses", Kind: "tool_search_call", CallID: "call_5", Data: jsontext.Value(`{"type":"tool_search_call","call_id":"call_5"}`)},
		),
		Tool(
			ToolResult{CallID: "call_1", Name: "search_flights", Status: StatusSuccess, Content: []Part{Text{Text: `{"status":"success"}`}}},
			ToolResult{CallID: "call_2", Name: "search_flights", Status: StatusError, Content: []Part{
				Text{Text: "malformed"}, Image{MediaType: "image/jpeg", Data: []byte("jpg")},
				Opaque{Provider: "anthropic", Kind: "tool_reference", Data: jsontext.Value(`{"type":"tool_reference","tool_name":"t"}`)}}},
			ToolResult{CallID: "call_3", Name: "now", Status: StatusPartial},
			ToolResult{CallID: "call_4", Name: "echo", Status: StatusSuccess, Content: []Part{}},
		),
		{Role: RoleTool, Parts: []Part{
			ToolResult{CallID: "call_5", Name: "x", Status: StatusSuccess},
			Text{Text: "note after the results"},
		}},
		{Role: RoleAssistant, Parts: []Part{}},
	}}
}

// normalize maps the one encoding of an empty result content to nil.
func normalize(c Conversation) Conversation {
	for _, m := range c.Messages {
		for j, p := range m.Parts {
			if r, ok := p.(ToolResult); ok && len(r.Content) == 0 {
				r.Content = nil
				m.Parts[j] = r
			}
		}
	}
	return c
}

func TestConversationRoundTrip(t *testing.T) {
	in := sample()
	b, err := in.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON() error: %v", err)
	}
	if !json.Valid(b) {
		t.Fatalf("MarshalJSON() = %s, not valid JSON", b)
	}
	golden.Check(t, filepath.Join("testdata", "conversation.json"), b)

	var out Conversation
	if err := out.UnmarshalJSON(b); err != nil {
		t.Fatalf("UnmarshalJSON() error: %v", err)
	}
	if want := normalize(sample()); !reflect.DeepEqual(out, want) {
		t.Errorf("round trip:\n got %#v\nwant %#v", out, want)
	}
	// The raw inputs, including invalid JSON and white space, come back byte for byte.
	for i, c := range out.Messages[2].ToolCalls() {
		if want := in.Messages[2].ToolCalls()[i].Input; string(c.Input) != string(want) {
			t.Errorf("call %d input = %q, want %q", i, c.Input, want)
		}
	}
}

func TestConversationThroughEncodingJSON(t *testing.T) {
	type doc struct {
		Conv Conversation `json:"conversation"`
	}
	b, err := json.Marshal(doc{sample()})
	if err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if want := normalize(sample()); !reflect.DeepEqual(d.Conv, want) {
		t.Errorf("round trip through encoding/json differs")
	}
}

func TestDecodeErrors(t *testing.T) {
	msg := func(parts string) string { return `{"version":1,"messages":[` + parts + `]}` }
	tests := []struct {
		name, in string
		path     string // want DecodeError.Path
		contains string
	}{
		{"empty input", ``, "", "want an object, found end of input"},
		{"not an object", `[1]`, "", "want an object, found an array"},
		{"truncated", `{"version":1,"messages":[{"role":"user"`, "messages[0]", "invalid JSON"},
		{"trailing data", `{"version":1,"messages":[]} x`, "", "unexpected data after"},
		{"no version", `{"messages":[]}`, "version", "missing"},
		{"version 2", `{"version":2,"messages":[]}`, "version", "unsupported version 2"},
		{"version string", `{"version":"1","messages":[]}`, "version", "want an integer, found a string"},
		{"no messages", `{"version":1}`, "messages", "missing"},
		{"unknown top field", `{"version":1,"messages":[],"extra":0}`, "extra", `unknown field "extra"`},
		{"case-folded field", `{"Version":1,"messages":[]}`, "Version", `unknown field "Version"`},
		{"duplicate field", `{"version":1,"version":1,"messages":[]}`, "version", "duplicate field"},
		{"messages not array", `{"version":1,"messages":{}}`, "messages", "want an array, found an object"},
		{"unknown role", msg(`{"role":"user","parts":[]},{"role":"robot","parts":[]}`), "messages[1].role", `unknown role "robot"`},
		{"unknown message field", msg(`{"role":"user","parts":[],"name":"x"}`), "messages[0].name", `unknown field "name"`},
		{"no parts", msg(`{"role":"user"}`), "messages[0].parts", "missing"},
		{"unknown part field", msg(`{"role":"user","parts":[{"type":"text","text":"a","cache":1}]}`), "messages[0].parts[0].cache", `unknown field "cache"`},
		{"foreign part field", msg(`{"role":"user","parts":[{"type":"text","text":"a","call_id":"x"}]}`), "messages[0].parts[0].call_id", `does not belong to a "text" part`},
		{"unknown part type", msg(`{"role":"user","parts":[{"type":"video"}]}`), "messages[0].parts[0].type", `unknown part type "video"`},
		{"no part type", msg(`{"role":"user","parts":[{"text":"a"}]}`), "messages[0].parts[0].type", "missing"},
		{"text missing", msg(`{"role":"user","parts":[{"type":"text"}]}`), "messages[0].parts[0].text", "missing"},
		{"call without id", msg(`{"role":"assistant","parts":[{"type":"tool_call","name":"f"}]}`), "messages[0].parts[0].id", "missing"},
		{"call with empty id", msg(`{"role":"assistant","parts":[{"type":"tool_call","id":"","name":"f"}]}`), "messages[0].parts[0].id", "missing"},
		{"call without name", msg(`{"role":"assistant","parts":[{"type":"tool_call","id":"c"}]}`), "messages[0].parts[0].name", "missing"},
		{"input and input_raw", msg(`{"role":"assistant","parts":[{"type":"tool_call","id":"c","name":"f","input":{},"input_raw":"{"}]}`), "messages[0].parts[0].input_raw", "not both"},
		{"invalid input JSON", msg(`{"role":"assistant","parts":[{"type":"tool_call","id":"c","name":"f","input":{"a":}}]}`), "messages[0].parts[0].input", "invalid JSON"},
		{"result without call_id", msg(`{"role":"user","parts":[]},{"role":"assistant","parts":[]},{"role":"user","parts":[]},{"role":"tool","parts":[{"type":"text","text":"x"},{"type":"tool_result","name":"f","status":"success"}]}`), "messages[3].parts[1].call_id", "missing"},
		{"result without name", msg(`{"role":"tool","parts":[{"type":"tool_result","call_id":"c","status":"success"}]}`), "messages[0].parts[0].name", "missing"},
		{"result bad status", msg(`{"role":"tool","parts":[{"type":"tool_result","call_id":"c","name":"f","status":"ok"}]}`), "messages[0].parts[0].status", `unknown status "ok"`},
		{"opaque without provider", msg(`{"role":"user","parts":[{"type":"opaque","kind":"k","data":{}}]}`), "messages[0].parts[0].provider", "missing"},
		{"opaque without data", msg(`{"role":"user","parts":[{"type":"opaque","provider":"gemini"}]}`), "messages[0].parts[0].data", "missing"},
		{"result nested call", msg(`{"role":"tool","parts":[{"type":"tool_result","call_id":"c","name":"f","status":"success","content":[{"type":"tool_call","id":"c","name":"f"}]}]}`), "messages[0].parts[0].content[0].type", "text, image and opaque parts"},
		{"result nested unknown", msg(`{"role":"tool","parts":[{"type":"tool_result","call_id":"c","name":"f","status":"success","content":[{"type":"text","text":"a","x":1}]}]}`), "messages[0].parts[0].content[0].x", `unknown field "x"`},
		{"call in user message", msg(`{"role":"user","parts":[{"type":"tool_call","id":"c","name":"f"}]}`), "messages[0].parts[0]", "belongs in an assistant message"},
		{"result in user message", msg(`{"role":"user","parts":[{"type":"tool_result","call_id":"c","name":"f","status":"success"}]}`), "messages[0].parts[0]", "belongs in a tool message"},
		{"tool message without result", msg(`{"role":"tool","parts":[{"type":"text","text":"x"}]}`), "messages[0].parts", "at least one tool_result"},
		{"image without source", msg(`{"role":"user","parts":[{"type":"image"}]}`), "messages[0].parts[0]", "needs data or url"},
		{"image bad base64", msg(`{"role":"user","parts":[{"type":"image","media_type":"image/png","data":"!!"}]}`), "messages[0].parts[0].data", "invalid base64"},
		{"image data without type", msg(`{"role":"user","parts":[{"type":"image","data":"AAAA"}]}`), "messages[0].parts[0].media_type", "missing"},
		{"reasoning without provider", msg(`{"role":"assistant","parts":[{"type":"reasoning","text":"x"}]}`), "messages[0].parts[0].provider", "missing"},
		{"bad escape", msg(`{"role":"user","parts":[{"type":"text","text":"\q"}]}`), "messages[0].parts[0].text", "invalid escape"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Conversation
			err := c.UnmarshalJSON([]byte(tt.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("UnmarshalJSON(%s) = %v, want a *DecodeError", tt.in, err)
			}
			if got := de.Path.Format(Indexed); got != tt.path {
				t.Errorf("UnmarshalJSON(%s) path = %q, want %q (error: %v)", tt.in, got, tt.path, err)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("UnmarshalJSON(%s) = %q, want it to contain %q", tt.in, err, tt.contains)
			}
		})
	}
}

func TestDecodeStrings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t"},
		{`"\u00e9\u4e2d"`, "é中"},
		{`"\ud83d\ude00"`, "😀"},
	}
	for _, tt := range tests {
		in := `{"version":1,"messages":[{"role":"user","parts":[{"type":"text","text":` + tt.in + `}]}]}`
		var c Conversation
		if err := c.UnmarshalJSON([]byte(in)); err != nil {
			t.Errorf("UnmarshalJSON(%s) = %v", in, err)
			continue
		}
		if got := c.Messages[0].Parts[0].(Text).Text; got != tt.want {
			t.Errorf("UnmarshalJSON(%s) text = %q, want %q", in, got, tt.want)
		}
	}
	// Invalid UTF-8, raw or as a lone surrogate escape, is refused as
	// everywhere else in the module.
	for _, s := range []string{`"\ud83d x"`, "\"bad \xff byte\""} { // "invalid surrogate pair", "invalid UTF-8"
		in := `{"version":1,"messages":[{"role":"user","parts":[{"type":"text","text":` + s + `}]}]}`
		var c Conversation
		if err := c.UnmarshalJSON([]byte(in)); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
			t.Errorf("UnmarshalJSON(%q) = %v, want an invalid JSON error", in, err)
		}
	}
}

func TestEmptyConversation(t *testing.T) {
	b, err := Conversation{}.MarshalJSON()
	if err != nil || string(b) != `{"version":1,"messages":[]}` {
		t.Fatalf("MarshalJSON() = %s, %v", b, err)
	}
	var c Conversation
	if err := c.UnmarshalJSON(b); err != nil || c.Messages == nil || len(c.Messages) != 0 {
		t.Fatalf("UnmarshalJSON(%s) = %#v, %v; want an empty, non-nil list", b, c, err)
	}
}

func TestEncodeRejectsForeignParts(t *testing.T) {
	c := Conversation{Messages: []Message{{Role: RoleUser, Parts: []Part{nil}}}}
	if _, err := c.MarshalJSON(); err == nil || !strings.Contains(err.Error(), "messages[0].parts[0]") {
		t.Errorf("MarshalJSON(nil part) = %v, want an error naming messages[0].parts[0]", err)
	}
}

func FuzzConversationDecode(f *testing.F) {
	b, _ := sample().MarshalJSON()
	f.Add(b)
	f.Add([]byte(`{"version":1,"messages":[]}`))
	f.Add([]byte(`{"version":1,"messages":[{"role":"tool","parts":[{"type":"tool_result","call_id":"c","name":"f","status":"success","content":[{"type":"text","text":"\ud83d"}]}]}]}`))
	f.Add([]byte(`{"version":1,"messages":[{"role":"assistant","parts":[{"type":"tool_call","id":"c","name":"f","input":[[[[{}]]]]}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Conversation
		if err := c.UnmarshalJSON(b); err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			return
		}
		// Anything that decodes re-encodes, and decodes again to the same value.
		out, err := c.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON of a decoded conversation: %v", err)
		}
		var again Conversation
		if err := again.UnmarshalJSON(out); err != nil {
			t.Fatalf("decode(encode(decode(x))) failed: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(normalize(c), normalize(again)) {
			t.Fatalf("decode(encode(c)) != c\n%s", out)
		}
	})
}
