package openai

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/transcript"
)

func TestDecodeChatErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{``, `openai: empty input: want a Chat Completions request body or a messages array`},
		{`42`, `openai: want a Chat Completions request body (an object) or a messages array, got a number`},
		{`{"model":"x"}`, `openai: messages: missing: a Chat Completions request body needs a messages array`},
		{`{"input":[]}`, `openai: messages: missing: a Chat Completions request body needs a messages array; the body has "input": it looks like a Responses request (use DecodeResponses)`},
		// Arguments as JSON rather than a string are a violation
		// (OAI-CC-JSON-TYPE, TestDecodeWrongType); any other kind is not
		// arguments at all.
		{`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":1}}]}]}`,
			`openai: messages.0.tool_calls.0.function.arguments: want a string, got a number`},
		{`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"f","input":{"a":1}}}]}]}`,
			`openai: messages.0.tool_calls.0.custom.input: want a string, got an object`},
		{`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`, `openai: messages.0.content: want a string, an array of content parts or null, got an object`},
		{`{"messages":[{"content":"hi"}]}`, `openai: messages.0.role: missing (want system, developer, user, assistant or tool)`},
		{`{"messages":[{"role":"bot","content":"hi"}]}`, `openai: messages.0.role: unknown role "bot" (want system, developer, user, assistant or tool)`},
		{`{"messages":[{"role":"user","content":42}]}`, `openai: messages.0.content: want a string, an array of content parts or null, got a number`},
		{`{"messages":[{"role":"user","content":"a","content":"b"}]}`, `openai: messages.0.content: invalid JSON at line 1, column 43: duplicate member name "content" (at byte 42)`},
		{`{"messages":[{"role":"user","content":"hi"}`, `openai: messages: invalid JSON at line 1, column 44: the input ends before the document does (at byte 43)`},
		{`{"messages":[]} x`, `openai: invalid JSON at line 1, column 17: unexpected data after the top-level value: 'x' (at byte 16)`},
		{`{"messages":[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]}`,
			`openai: messages.0.tool_calls.0.id: missing: a tool call needs an id`},
		{`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f"}}]}]}`,
			`openai: messages.0.tool_calls.0.function.arguments: missing (arguments is a JSON string; send "{}" for a call without arguments)`},
		{`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"arguments":"{}"}}]}]}`,
			`openai: messages.0.tool_calls.0.function.name: missing: a tool call needs a name`},
		{`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"mystery"}]}]}`,
			`openai: messages.0.tool_calls.0.type: unknown tool call type "mystery" (want function or custom)`},
		{`{"messages":[{"role":"assistant","tool_calls":{"id":"c"}}]}`, `openai: messages.0.tool_calls: want an array, got an object`},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`, `openai: messages.0.content.0.text: want a string, got a number`},
		{`{"messages":[{"role":"user","content":[{"type":"text"}]}]}`, `openai: messages.0.content.0.text: missing: a text part needs a text string`},
		{`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"detail":"low"}}]}]}`, `openai: messages.0.content.0: image_url part without a url`},
		{`{"messages":[{"role":"tool","tool_call_id":7,"content":"x"}]}`, `openai: messages.0.tool_call_id: want a string, got a number`},
		{`{"messages":[],"tools":[{"type":"function","function":{"parameters":{}}}]}`, `openai: tools.0.function.name: missing: a function tool needs a name`},
		{`{"messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":[]}}]}`, `openai: tools.0.function.parameters: want a JSON Schema object, got an array`},
		{`{"messages":[],"tools":[{"function":{"name":"f"}}]}`, `openai: tools.0: tool without a type (want "function")`},
		{`{"messages":[],"tools":[{"type":"function","function":{"name":"f","strict":"yes"}}]}`, `openai: tools.0.function.strict: want a boolean, got a string`},
		{"{\"messages\":[{\"role\":\"user\",\"content\":\"a\tb\"}]}", `openai: messages.0.content: invalid JSON at line 1, column 41: invalid character '\t' in string (expecting non-control character) (at byte 40)`},
		{`{"messages":[{"role":"user","content":"\x"}]}`, `openai: messages.0.content: invalid JSON at line 1, column 40: invalid escape sequence ` + "`\\x`" + ` in string (at byte 39)`},
		{`{"messages":tru}`, `openai: messages: invalid JSON at line 1, column 16: invalid character '}' in literal true (expecting 'e') (at byte 15)`},
		{`{"messages":[{"role":"user","content":"hi"}],}`, `openai: invalid JSON at line 1, column 45: invalid character ',' at start of value (at byte 44)`},
		{`[{"role":"user","content":5}]`, `openai: messages.0.content: want a string, an array of content parts or null, got a number`},
		{strings.Repeat("[", 10001), `openai: messages.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0`},
		{`{"messages":[],"model":` + strings.Repeat("[", 10001), `openai: model.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0`},
	}
	for _, tt := range tests {
		_, err := DecodeChat([]byte(tt.in))
		if err == nil {
			t.Errorf("DecodeChat(%q) = nil error, want %q", tt.in, tt.want)
			continue
		}
		got := err.Error()
		if strings.HasSuffix(tt.want, ".0.0.0.0") {
			// The nesting limit: check the kind of error, not its long path.
			var de *llm.DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || !strings.Contains(got, "nested deeper than 10000 levels") {
				t.Errorf("DecodeChat(deeply nested) = %v, want a nesting error", err)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("DecodeChat(%q) = %v, want %v", tt.in, got, tt.want)
		}
		var de *llm.DecodeError
		if !errors.As(err, &de) {
			t.Errorf("DecodeChat(%q) error is %T, want *llm.DecodeError", tt.in, err)
		}
	}
}

func TestDecodeResponsesErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{``, `openai: empty input: want a Responses request body or an input array`},
		{`"hi"`, `openai: want a Responses request body (an object) or an input array, got a string`},
		{`{"messages":[{"role":"user","content":"hi"}]}`, `openai: messages: a Responses request has no messages field; this looks like a Chat Completions request (use DecodeChat)`},
		{`{"input":42}`, `openai: input: want a string or an array of input items, got a number`},
		{`{"input":[{"content":"x"}]}`, `openai: input.0: an input item needs a type (message, function_call, function_call_output, reasoning, ...) or a role`},
		{`{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":1}]}`, `openai: input.0.arguments: want a string, got a number`},
		{`{"input":[{"arguments":true,"name":"f","call_id":"c","type":"function_call"}]}`, `openai: input.0.arguments: want a string, got a boolean`},
		{`{"input":[{"type":"custom_tool_call","call_id":"c","name":"f","input":{"a":1}}]}`, `openai: input.0.input: want a string, got an object`},
		{`{"input":[{"role":"user","content":{"type":"input_text","text":"hi"}}]}`, `openai: input.0.content: want a string or an array of content parts, got an object`},
		{`{"input":[{"type":"function_call_output","call_id":"c","output":7}]}`, `openai: input.0.output: want a string or an array of content parts, got a number`},
		{`{"input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, `openai: input.0.call_id: missing: a function_call item needs a call_id`},
		{`{"input":[{"type":"function_call","call_id":"c","arguments":"{}"}]}`, `openai: input.0.name: missing: a function_call item needs a name`},
		{`{"input":[{"type":"function_call","call_id":"c","name":"f"}]}`, `openai: input.0.arguments: missing (a JSON string; send "{}" for a call without arguments)`},
		{`{"input":[{"type":"message","role":"bot","content":"x"}]}`, `openai: input.0.role: unknown role "bot" (want user, assistant, system or developer)`},
		{`{"input":[{"type":"message","content":"x"}]}`, `openai: input.0.role: missing: a message needs a role (user, assistant, system or developer)`},
		{`{"input":[{"type":"function_call_output","call_id":"c"}]}`, `openai: input.0.output: missing: want a string or an array of input_text/input_image parts`},
		{`{"input":[{"type":"function_call_output","output":"x"}]}`, `openai: input.0.call_id: missing: a function_call_output item needs the call_id of the call it answers`},
		{`{"input":[{"role":"user"}]}`, `openai: input.0.content: missing: a message needs content (a string or an array of parts)`},
		{`{"input":[{"role":"user","content":[{"type":"input_text"}]}]}`, `openai: input.0.content.0.text: missing: a text part needs a text string`},
		{`{"input":[{"role":"user","content":[{"text":"x"}]}]}`, `openai: input.0.content.0: content part without a type (want input_text, input_image, output_text, ...)`},
		{`{"input":[],"tools":[{"type":"function","parameters":{}}]}`, `openai: tools.0.name: missing: a function tool needs a name`},
		{`{"input":[],"tools":[{"type":"function","name":"f","parameters":"{}"}]}`, `openai: tools.0.parameters: want a JSON Schema object, got a string`},
		{`{"input":[],"instructions":5}`, `openai: instructions: want a string, got a number`},
		{`[{"type":"function_call","call_id":5}]`, `openai: input.0.call_id: want a string, got a number`},
		{`{"input":[{"type":"message","role":"user","content":"x",}]}`, `openai: input.0: invalid JSON at line 1, column 56: invalid character ',' at start of value (at byte 55)`},
	}
	for _, tt := range tests {
		_, err := DecodeResponses([]byte(tt.in))
		if err == nil {
			t.Errorf("DecodeResponses(%q) = nil error, want %q", tt.in, tt.want)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("DecodeResponses(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestDecodeResponsesOpaqueShapes checks that an item of a type the codec
// does not model is kept whatever its fields look like, and that a
// non-function tool may have any fields.
func TestDecodeResponsesOpaqueShapes(t *testing.T) {
	in := `{"input":[{"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":"data:x"},"content":42}],` +
		`"tools":[{"type":"mcp","name":7,"server_url":"https://mcp.example.com"}]}`
	r, err := DecodeResponses([]byte(in))
	if err != nil {
		t.Fatalf("DecodeResponses(%q) = %v, want no error", in, err)
	}
	if len(r.Messages) != 0 || len(r.Tools) != 0 {
		t.Errorf("DecodeResponses(%q) = %d messages, %d tools, want 0 and 0", in, len(r.Messages), len(r.Tools))
	}
	out, _, err := EncodeResponses(r)
	want := `{"input":[{"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":"data:x"},"content":42}],"tools":[{"type":"mcp","name":7,"server_url":"https://mcp.example.com"}]}`
	if err != nil || string(out) != want {
		t.Errorf("EncodeResponses(DecodeResponses(%q)) = %s, %v, want %s", in, out, err, want)
	}
}

func TestBodyPath(t *testing.T) {
	read := func(name string) []byte { return testBody(t, strings.TrimSuffix(name, ".json")) }
	chat, err := DecodeChat(read("chat/unmodeled.json"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := DecodeResponses(read("responses/opaque_items.json"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := DecodeChat(read("chat/parallel_calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeResponses([]byte(`[{"type":"function_call_output","call_id":"c","output":[{"type":"input_file","file_id":"f"},{"type":"input_text","text":"x"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		bodyPath func(string) string
		in, want string
	}{
		{"chat", chat.BodyPath, "messages.0", "messages.0"},
		{"chat", chat.BodyPath, "messages.1.content.2", "messages.1.content.2"}, // after an input_audio part, an llm.Opaque part counted like any other
		{"chat", chat.BodyPath, "messages.1.content.0", "messages.1.content.0"},
		{"chat", chat.BodyPath, "messages.4.tool_calls.0", "messages.5.tool_calls.0"}, // after a function message
		{"chat", chat.BodyPath, "messages.5", "messages.6"},
		{"chat", chat.BodyPath, "messages.6", "messages.6"}, // beyond the decoded messages
		{"chat", chat.BodyPath, "tools.0.function.name", "tools.0.function.name"},
		{"chat", chat.BodyPath, "messages.x", "messages.x"},
		{"responses", rs.BodyPath, "input.0.content.0", "input.1.content.0"},
		{"responses", rs.BodyPath, "input.3", "input.4"},               // after the web_search_call and the refusal, each an opaque item
		{"responses", rs.BodyPath, "input.5.output", "input.6.output"}, // after an item_reference, which has no llm form
		{"plain", plain.BodyPath, "messages.3.content", "messages.3.content"},
		{"output", out.BodyPath, "input.0.output.1", "input.0.output.1"}, // after an input_file by id, an llm.Opaque part
		{"output", out.BodyPath, "input.0.content.0", "input.0.content.0"},
	}
	for _, tt := range tests {
		if got := tt.bodyPath(tt.in); got != tt.want {
			t.Errorf("%s BodyPath(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestResultStatus checks that a result's status is that of the toolwire
// envelope its text is, whatever the envelope's key order or the white
// space around it, as in the other codecs; other text is a success.
func TestResultStatus(t *testing.T) {
	tests := []struct {
		content string // a JSON string or array of text parts
		want    llm.Status
	}{
		{`"{\"status\":\"partial\",\"summary\":\"2 of 3\"}"`, llm.StatusPartial},
		{`"{\"summary\":\"x failed\",\"status\":\"error\",\"error\":{\"type\":\"timeout\",\"message\":\"slow\",\"retryable\":true}}"`, llm.StatusError},
		{`" \n{\"status\":\"partial\",\"summary\":\"2 of 3\"}"`, llm.StatusPartial},
		{`[{"type":"text","text":"{\"status\":\"partial\","},{"type":"text","text":"\"summary\":\"2 of 3\"}"}]`, llm.StatusPartial},
		{`"{\"status\":\"weird\",\"summary\":\"x\"}"`, llm.StatusSuccess},
		{`"the status and the summary"`, llm.StatusSuccess},
	}
	for _, tt := range tests {
		chat := `[{"role":"tool","tool_call_id":"c","content":` + tt.content + `}]`
		r, err := DecodeChat([]byte(chat))
		if err != nil {
			t.Fatalf("DecodeChat(%s) error: %v", chat, err)
		}
		if got := r.Messages[0].ToolResults()[0].Status; got != tt.want {
			t.Errorf("DecodeChat(%s) status = %q, want %q", chat, got, tt.want)
		}
		rs := `[{"type":"function_call_output","call_id":"c","output":` + strings.ReplaceAll(tt.content, `"type":"text"`, `"type":"input_text"`) + `}]`
		r2, err := DecodeResponses([]byte(rs))
		if err != nil {
			t.Fatalf("DecodeResponses(%s) error: %v", rs, err)
		}
		if got := r2.Messages[0].ToolResults()[0].Status; got != tt.want {
			t.Errorf("DecodeResponses(%s) status = %q, want %q", rs, got, tt.want)
		}
	}
}

// TestDecodeWhatTheLLMFormDoesNotModel checks how parts and fields the llm
// form has no type for are read: as llm.Opaque parts of the dialect (never
// dropped, never an empty message), a document given inline as an Image of
// its media type, and a string content as one text part, "" included.
func TestDecodeWhatTheLLMFormDoesNotModel(t *testing.T) {
	pdf := []byte("%PDF-1.3")
	opq := func(provider, kind, data string) llm.Opaque {
		return llm.Opaque{Provider: provider, Kind: kind, Data: []byte(data)}
	}
	tests := []struct {
		name, dialect, body string
		want                []llm.Message
	}{
		{"empty string content is one empty text part", "chat",
			`[{"role":"user","content":""},{"role":"assistant","content":""}]`,
			[]llm.Message{llm.User(""), llm.Assistant(llm.Text{})}},
		{"beside an assistant's calls, \"\" is no text", "chat",
			`[{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]`,
			[]llm.Message{llm.Assistant(llm.ToolCall{ID: "c1", Name: "f", Input: []byte(`{}`)})}},
		{"a file part with inline data is a document image", "chat",
			`[{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjM=","filename":"a.pdf"}}]}]`,
			[]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Image{MediaType: "application/pdf", Data: pdf}}}}},
		{"a file by id and an audio part are opaque", "chat",
			`[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]`,
			[]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{
				opq(ChatProvider, "file", `{"type":"file","file":{"file_id":"file-1"}}`),
				opq(ChatProvider, "input_audio", `{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}`)}}}},
		{"a part without a type is opaque with no kind", "chat",
			`[{"role":"user","content":[{"url":"x"}]}]`,
			[]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{opq(ChatProvider, "", `{"url":"x"}`)}}}},
		{"a part without a type whose only content is text is text", "chat",
			`[{"role":"user","content":[{"role":"system","content":"x"},{"text":"y"}]}]`,
			[]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: "x"}, llm.Text{Text: "y"}}}}},
		{"an assistant's legacy function_call and audio are opaque", "chat",
			`[{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},{"role":"function","name":"f","content":"ok"},{"role":"assistant","audio":{"id":"audio_1"}}]`,
			[]llm.Message{llm.Assistant(opq(ChatProvider, "function_call", `{"name":"f","arguments":"{}"}`)), llm.Assistant(opq(ChatProvider, "audio", `{"id":"audio_1"}`))}},
		{"an input_file with inline data is a document image", "responses",
			`[{"role":"user","content":[{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjM="}]}]`,
			[]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Image{MediaType: "application/pdf", Data: pdf}}}}},
		{"a model item the codec does not model is opaque, with its call id", "responses",
			`[{"role":"user","content":"q"},{"type":"tool_search_call","call_id":"s1","execution":"client","arguments":{"queries":["x"]}},{"type":"function_call_output","call_id":"s1","output":"found"}]`,
			[]llm.Message{llm.User("q"),
				llm.Assistant(llm.Opaque{Provider: ResponsesProvider, Kind: "tool_search_call", CallID: "s1", Data: []byte(`{"type":"tool_search_call","call_id":"s1","execution":"client","arguments":{"queries":["x"]}}`)}),
				llm.Tool(llm.ToolResult{CallID: "s1", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "found"}}})}},
		{"an assistant message with a refusal is an opaque item", "responses",
			`[{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"refusal","refusal":"no"}]}]`,
			[]llm.Message{llm.Assistant(opq(ResponsesProvider, "message", `{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"refusal","refusal":"no"}]}`))}},
		{"an item the client sends and the codec does not model has no llm form", "responses",
			`[{"type":"item_reference","id":"msg_0"},{"role":"user","content":"q"}]`,
			[]llm.Message{llm.User("q")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []llm.Message
			switch tt.dialect {
			case "chat":
				r, err := DecodeChat([]byte(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				got = r.Messages
			default:
				r, err := DecodeResponses([]byte(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				got = r.Messages
			}
			if !reflect.DeepEqual(normalize(got), normalize(tt.want)) {
				t.Errorf("Decode(%s) =\n%s\nwant\n%s", tt.body, normalize(got), normalize(tt.want))
			}
		})
	}
}

// TestDecodeResponsesSettings checks what a Responses body's other fields
// change: strict only where the body says so, a conversation or a
// previous_response_id continues a stored chain, the reasoning effort.
func TestDecodeResponsesSettings(t *testing.T) {
	tests := []struct {
		body      string
		strict    []bool
		continues bool
		effort    string
	}{
		{`{"input":"q","tools":[{"type":"function","name":"a","parameters":{"type":"object"}},{"type":"function","name":"b","strict":true},{"type":"function","name":"c","strict":false},{"type":"function","name":"d","strict":null}]}`,
			[]bool{false, true, false, false}, false, ""},
		{`{"input":"q","conversation":"conv_1"}`, nil, true, ""},
		{`{"input":"q","conversation":{"id":"conv_1"}}`, nil, true, ""},
		{`{"input":"q","conversation":null}`, nil, false, ""},
		{`{"input":"q","previous_response_id":"resp_1","reasoning":{"effort":"low","summary":"auto"}}`, nil, true, "low"},
	}
	for _, tt := range tests {
		r, err := DecodeResponses([]byte(tt.body))
		if err != nil {
			t.Fatalf("DecodeResponses(%s) error: %v", tt.body, err)
		}
		var strict []bool
		for _, s := range r.Tools {
			strict = append(strict, s.Strict)
		}
		if !reflect.DeepEqual(strict, tt.strict) || r.Continues() != tt.continues || r.ReasoningEffort() != tt.effort {
			t.Errorf("DecodeResponses(%s): strict %v, Continues %v, ReasoningEffort %q; want %v, %v, %q", tt.body, strict, r.Continues(), r.ReasoningEffort(), tt.strict, tt.continues, tt.effort)
		}
	}
}

// TestDecodeResponsesWire checks the Responses rules only the body shows:
// a stored reasoning item followed by a model item without an id
// (OAI-RS-REASONING-FOLLOW), and items with ids in a request that
// continues a stored conversation (OAI-RS-DUP-ITEM, a warning).
func TestDecodeResponsesWire(t *testing.T) {
	rs := `{"type":"reasoning","id":"rs_1","summary":[]}`
	tests := []struct {
		name, body string
		want       []string // rule path (warning)
		encoded    string   // what EncodeResponses writes
	}{
		{"stored reasoning, then a message without an id",
			`{"input":[` + rs + `,{"role":"assistant","content":"a"}]}`,
			[]string{"OAI-RS-REASONING-FOLLOW input.0"}, `{"input":[{"role":"assistant","content":"a"}]}`},
		{"stored reasoning, then a call without an id",
			`{"store":true,"input":[` + rs + `,{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`,
			[]string{"OAI-RS-REASONING-FOLLOW input.0"}, `{"store":true,"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`},
		{"two reasoning items, then a message without an id",
			`{"input":[` + rs + `,{"type":"reasoning","id":"rs_2","summary":[]},{"role":"assistant","content":"a"}]}`,
			[]string{"OAI-RS-REASONING-FOLLOW input.1", "OAI-RS-REASONING-FOLLOW input.0"}, `{"input":[{"role":"assistant","content":"a"}]}`},
		{"not stored: the item is not looked up",
			`{"store":false,"input":[` + rs + `,{"role":"assistant","content":"a"}]}`, nil, ""},
		{"the following item has its id",
			`{"input":[` + rs + `,{"type":"message","id":"msg_1","role":"assistant","content":"a"}]}`, nil, ""},
		{"followed by a user message: transcript's to judge",
			`{"input":[` + rs + `,{"role":"user","content":"q"}]}`, nil, ""},
		{"a reasoning item without an id",
			`{"input":[{"type":"reasoning","summary":[],"encrypted_content":"gAAA"},{"role":"assistant","content":"a"}]}`, nil, ""},
		{"items with ids in a continued conversation",
			`{"previous_response_id":"resp_1","input":[{"type":"item_reference","id":"rs_0"},{"type":"function_call_output","call_id":"c","output":"x"},{"type":"message","id":"msg_2","role":"user","content":"q"}]}`,
			[]string{"OAI-RS-DUP-ITEM input.0.id (warning)", "OAI-RS-DUP-ITEM input.2.id (warning)"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResponses([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range r.Wire {
				s := string(v.Rule) + " " + v.Path
				if v.Warning {
					s += " (warning)"
				}
				got = append(got, s)
				if v.Rule == "OAI-RS-REASONING-FOLLOW" && !strings.HasPrefix(v.ProviderError, "Item 'rs_") {
					t.Errorf("provider error = %q, want the recorded text", v.ProviderError)
				}
			}
			if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
				t.Errorf("DecodeResponses(%s).Wire = %q, want %q", tt.body, got, tt.want)
			}
			want := tt.encoded
			if want == "" {
				want = tt.body
			}
			if out, _, err := EncodeResponses(r); err != nil || string(out) != want {
				t.Errorf("EncodeResponses = %s, %v; want %s", out, err, want)
			}
		})
	}
}

// TestLayoutPointsIntoTheBody checks, on generated bodies, that the path
// transcript computes for each llm part, through BodyPath, names the
// body's value of that part: the contract of docs/dialect-mapping.md
// between the codecs and the checker.
func TestLayoutPointsIntoTheBody(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 500 {
		for _, dialect := range []transcript.Dialect{transcript.OpenAIChat, transcript.OpenAIResponses} {
			var body []byte
			var msgs []llm.Message
			var bodyPath func(string) string
			if dialect == transcript.OpenAIChat {
				body = []byte(pick(r, randChatBody(r), randAcceptedChat(r)))
				c, err := DecodeChat(body)
				if err != nil {
					t.Fatal(err)
				}
				msgs, bodyPath = c.Messages, c.BodyPath
			} else {
				body = []byte(pick(r, randRsBody(r), randAcceptedResponses(r)))
				q, err := DecodeResponses(body)
				if err != nil {
					t.Fatal(err)
				}
				if q.src.elems != nil && q.inputNode != nil {
					continue // a string input has no item to point at
				}
				msgs, bodyPath = q.Messages, q.BodyPath
			}
			var root any
			if err := json.Unmarshal(body, &root); err != nil {
				t.Fatal(err)
			}
			if arr, ok := root.([]any); ok {
				root = map[string]any{"messages": arr, "input": arr}
			}
			m := transcript.Layout(msgs, dialect)
			for i, msg := range msgs {
				for j, p := range msg.Parts {
					loc := m.Part(i, j)
					if loc.Place != transcript.InArray {
						continue
					}
					path := bodyPath(loc.Path)
					v, ok := lookup(root, path)
					if !ok || !names(v, p) {
						t.Fatalf("%s: part %d.%d (%T) is at %s (llm path %s), which holds %v\n%s", dialect, i, j, p, path, loc.Path, v, body)
					}
				}
			}
		}
	}
}

// lookup returns the value at a dotted path.
func lookup(v any, path string) (any, bool) {
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil, false
			}
		case []any:
			k, err := strconv.Atoi(seg)
			if err != nil || k < 0 || k >= len(x) {
				return nil, false
			}
			v = x[k]
		default:
			return nil, false
		}
	}
	return v, true
}

// names reports whether body value v is the wire form of part p.
func names(v any, p llm.Part) bool {
	obj, _ := v.(map[string]any)
	switch p := p.(type) {
	case llm.Text:
		switch x := v.(type) {
		case string:
			return x == validUTF8(p.Text)
		case []any: // the checker names a lone text part by its content field
			for _, e := range x {
				if names(e, p) {
					return true
				}
			}
			return false
		}
		s, _ := obj["text"].(string)
		return s == validUTF8(p.Text)
	case llm.ToolCall:
		id, _ := obj["id"].(string)
		callID, _ := obj["call_id"].(string)
		return obj["role"] == nil && (id == p.ID || callID == p.ID) || obj["function"] != nil && id == p.ID
	case llm.ToolResult:
		id, _ := obj["tool_call_id"].(string)
		callID, _ := obj["call_id"].(string)
		return obj["role"] == "tool" && id == p.CallID || obj["type"] != nil && callID == p.CallID
	case llm.Reasoning, llm.Opaque, llm.Image:
		return obj != nil
	}
	return false
}

// validUTF8 returns s with each run of invalid UTF-8 replaced by U+FFFD,
// to compare a decoded text with what json.Unmarshal reads in the body.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// TestDecodeWrongType covers values of a JSON type the API refuses where
// their meaning is plain: arguments given as JSON rather than the string
// that holds it, a tool's output given as an object. Each is a violation
// in Wire (OAI-CC-JSON-TYPE, OAI-RS-JSON-TYPE), not a decode error, and
// encoding writes it as the string the API takes.
func TestDecodeWrongType(t *testing.T) {
	type decoded struct {
		wire []transcript.Violation
		msgs []llm.Message
		enc  func() ([]byte, []provider.Warning, error)
	}
	chat := func(b []byte) (decoded, error) {
		r, err := DecodeChat(b)
		if err != nil {
			return decoded{}, err
		}
		return decoded{r.Wire, r.Messages, func() ([]byte, []provider.Warning, error) { return EncodeChat(r) }}, nil
	}
	responses := func(b []byte) (decoded, error) {
		r, err := DecodeResponses(b)
		if err != nil {
			return decoded{}, err
		}
		return decoded{r.Wire, r.Messages, func() ([]byte, []provider.Warning, error) { return EncodeResponses(r) }}, nil
	}
	tests := []struct {
		name    string
		decode  func([]byte) (decoded, error)
		body    string
		want    string // rule path: provider error
		encoded string
	}{
		{"Chat arguments as an object", chat,
			`{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"a":1}}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
			`OAI-CC-JSON-TYPE messages.1.tool_calls.0.function.arguments: Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.`,
			`{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`},
		{"Chat arguments as an array, beside a call that is right", chat,
			`[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"arguments":[1,2],"name":"g"}}]}]`,
			`OAI-CC-JSON-TYPE messages.0.tool_calls.1.function.arguments: Invalid type for 'messages[0].tool_calls[1].function.arguments': expected a string, but got an array instead.`,
			`[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"arguments":"[1,2]","name":"g"}}]}]`},
		{"Chat tool content as an object", chat,
			`[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":{"temp":18},"tool_call_id":"c1"}]`,
			`OAI-CC-JSON-TYPE messages.1.content: Invalid type for 'messages[1].content': expected one of a string or array of objects, but got an object instead.`,
			`[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"{\"temp\":18}","tool_call_id":"c1"}]`},
		{"Responses arguments as an object", responses,
			`{"input":[{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":{"a":1}},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`,
			`OAI-RS-JSON-TYPE input.0.arguments: Invalid type for 'input[0].arguments': expected a string, but got an object instead.`,
			`{"input":[{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{\"a\":1}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`},
		{"Responses output as an object", responses,
			`[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"output":{"temp":18},"type":"function_call_output","call_id":"c1"}]`,
			`OAI-RS-JSON-TYPE input.1.output: Invalid type for 'input[1].output': expected one of a string or array of objects, but got an object instead.`,
			`[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"output":"{\"temp\":18}","type":"function_call_output","call_id":"c1"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := tt.decode([]byte(tt.body))
			if err != nil {
				t.Fatalf("decode(%s) error = %v, want a violation", tt.body, err)
			}
			var got []string
			for _, v := range d.wire {
				got = append(got, string(v.Rule)+" "+v.Path+": "+v.ProviderError)
			}
			if strings.Join(got, "; ") != tt.want {
				t.Errorf("decode(%s).Wire = %q, want %q", tt.body, got, tt.want)
			}
			out, _, err := d.enc()
			if err != nil || string(out) != tt.encoded {
				t.Errorf("encode = %s, %v; want %s", out, err, tt.encoded)
			}
			back, err := tt.decode(out)
			if err != nil || len(back.wire) != 0 || !reflect.DeepEqual(back.msgs, d.msgs) {
				t.Errorf("decode(%s) = wire %v, %v, messages changed %v; want the same messages and no violation", out, back.wire, err, !reflect.DeepEqual(back.msgs, d.msgs))
			}
		})
	}
}
