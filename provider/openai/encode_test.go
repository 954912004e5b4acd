package openai

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/toolresult"
)

var png = []byte("\x89PNG\r\n\x1a\n")

func TestEncodeChatConversion(t *testing.T) {
	conversions(t, EncodeChat, codecs[0], []conversion[ChatRequest]{
		{
			name: "from anthropic",
			req:  ChatRequest{Messages: codectest.FromAnthropic(), Fields: []Field{{"model", []byte(`"gpt-4o"`)}}},
			want: `{"model":"gpt-4o","messages":[` +
				`{"role":"system","content":"Be careful."},` +
				`{"role":"user","content":"Weather in Paris, and chart it."},` +
				`{"role":"assistant","content":"Checking.","tool_calls":[{"id":"toolu_01A","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"toolu_01B","type":"function","function":{"name":"chart","arguments":"{\"series\":\"temp\"}"}}]},` +
				`{"role":"tool","tool_call_id":"toolu_01A","content":"station offline"},` +
				`{"role":"tool","tool_call_id":"toolu_01B","content":"The result is an image; it follows in the next message."},` +
				`{"role":"user","content":[{"type":"text","text":"Image(s) returned by the call toolu_01B (chart):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"text","text":"Also, use Celsius."}]},` +
				`{"role":"assistant","content":[{"type":"text","text":"The station is offline; "},{"type":"text","text":"retrying."}],"tool_calls":[{"id":"toolu_01C","type":"function","function":{"name":"retry","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"toolu_01C","content":"{\"status\":\"error\",\"summary\":\"the run stopped before the result came back; the outcome is unknown\",\"error\":{\"type\":\"interrupted\",\"message\":\"the run stopped before the result came back; the outcome is unknown\",\"retryable\":false}}"}]}`,
			warnings: []string{
				`messages.2: Chat Completions has no reasoning blocks; "anthropic" reasoning is dropped`,
				`messages.3: the result of call "toolu_01A" has status "error", which OpenAI cannot mark (no is_error field); only its content tells the model`,
				`messages.4: a Chat Completions tool message cannot hold images (OAI-CC-TOOL-IMAGE); the 1 image(s) of the result of call "toolu_01B" move into a user message after the tool messages`,
				`messages.6: Chat Completions puts an assistant's text before its tool calls; text that followed a call is moved before the calls`,
			},
		},
		{
			name: "bad images and bare",
			req: ChatRequest{Bare: true, Tools: []llm.ToolSpec{{Name: "f"}}, Messages: []llm.Message{
				{Role: llm.RoleSystem, Parts: []llm.Part{llm.Text{Text: "s"}, llm.Image{URL: "https://x/y.png"}}},
				{Role: llm.RoleUser, Parts: []llm.Part{llm.Image{Data: png}, llm.Image{}}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Image{URL: "https://x/z.png"}}},
			}},
			want: `[{"role":"system","content":"s"},{"role":"user","content":""},{"role":"assistant","content":""}]`,
			warnings: []string{
				`tools: a bare messages array has no place for tools; they are left out`,
				`messages.0: a system message cannot hold an image; it is left out`,
				`messages.1: an inline image without a media type cannot be written as a data URL; it is left out`,
				`messages.1: an image with neither data nor a URL; it is left out`,
				`messages.2: an assistant message cannot hold an image in Chat Completions; it is left out`,
			},
		},
		{
			name: "developer role, tools and fields in order",
			req: ChatRequest{SystemRole: RoleDeveloper, Fields: []Field{{"model", []byte(` "o3" `)}, {"tool_choice", []byte(`{"type": "function", "function": {"name": "f"}}`)}},
				Messages: []llm.Message{llm.System("x"), llm.User("<b>&</b>")},
				Tools:    []llm.ToolSpec{{Name: "f", Description: "Does f.", Parameters: jsontext.Value(`{ "type": "object" }`), Strict: true}}},
			want: `{"model":"o3","tool_choice":{"type":"function","function":{"name":"f"}},"messages":[{"role":"developer","content":"x"},{"role":"user","content":"<b>&</b>"}],"tools":[{"type":"function","function":{"name":"f","description":"Does f.","parameters":{"type":"object"},"strict":true}}]}`,
		},
	})
}

func TestEncodeResponsesConversion(t *testing.T) {
	rsReasoning := llm.Reasoning{Provider: ResponsesProvider, Text: "think", Data: jsontext.Value(`{"type":"reasoning","id":"rs_1","summary":[]}`)}
	conversions(t, EncodeResponses, codecs[1], []conversion[ResponsesRequest]{
		{
			name: "from anthropic",
			req:  ResponsesRequest{Messages: codectest.FromAnthropic(), Instructions: "Be brief.", Fields: []Field{{"model", []byte(`"gpt-5"`)}}},
			want: `{"model":"gpt-5","instructions":"Be brief.","input":[` +
				`{"type":"message","role":"system","content":"Be careful."},` +
				`{"type":"message","role":"user","content":"Weather in Paris, and chart it."},` +
				`{"type":"message","role":"assistant","content":"Checking."},` +
				`{"type":"function_call","call_id":"toolu_01A","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},` +
				`{"type":"function_call","call_id":"toolu_01B","name":"chart","arguments":"{\"series\":\"temp\"}"},` +
				`{"type":"function_call_output","call_id":"toolu_01A","output":"station offline"},` +
				`{"type":"function_call_output","call_id":"toolu_01B","output":[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"auto"}]},` +
				`{"type":"message","role":"user","content":"Also, use Celsius."},` +
				`{"type":"message","role":"assistant","content":"The station is offline; "},` +
				`{"type":"function_call","call_id":"toolu_01C","name":"retry","arguments":"{}"},` +
				`{"type":"message","role":"assistant","content":"retrying."},` +
				`{"type":"function_call_output","call_id":"toolu_01C","output":"{\"status\":\"error\",\"summary\":\"the run stopped before the result came back; the outcome is unknown\",\"error\":{\"type\":\"interrupted\",\"message\":\"the run stopped before the result came back; the outcome is unknown\",\"retryable\":false}}"}]}`,
			warnings: []string{
				`input.2: "anthropic" reasoning cannot be replayed to OpenAI Responses; it is dropped`,
				`input.5: the result of call "toolu_01A" has status "error", which OpenAI cannot mark (no is_error field); only its content tells the model`,
			},
		},
		{
			name: "reasoning, runs of text, empty assistant, strict tools",
			req: ResponsesRequest{Messages: []llm.Message{
				llm.User("q"),
				llm.Assistant(rsReasoning, llm.Text{Text: "a"}, llm.Text{Text: "b"}, llm.ToolCall{ID: "c1", Name: "f", Input: jsontext.Value(`{}`), ItemID: "fc_1"},
					llm.Reasoning{Provider: ResponsesProvider, Text: "no data"}, llm.Reasoning{Provider: "gemini", Signature: "sig"}),
				llm.Tool(llm.ToolResult{CallID: "c1", Name: "f", Status: llm.StatusSuccess}),
				llm.Assistant(),
			}, Tools: []llm.ToolSpec{{Name: "f", Strict: false}, {Name: "g", Strict: true, Parameters: jsontext.Value(`{"type":"object","properties":{},"additionalProperties":false,"required":[]}`)}}},
			// The body stores its items (no "store": false), and the text
			// after rs_1 has no id: rs_1 is left out (OAI-RS-REASONING-FOLLOW).
			want: `{"input":[{"type":"message","role":"user","content":"q"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"output_text","text":"b"}]},` +
				`{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"c1","output":""},` +
				`{"type":"message","role":"assistant","content":""}],` +
				`"tools":[{"type":"function","name":"f","strict":false},{"type":"function","name":"g","parameters":{"type":"object","properties":{},"additionalProperties":false,"required":[]},"strict":true}]}`,
			warnings: []string{
				`input.1: a stored reasoning item is left out (OAI-RS-REASONING-FOLLOW): what follows it is written without the item id the server knows it by; with "store": false it is kept`,
				`input.3: an openai-responses reasoning part without its reasoning item (Data) cannot be replayed; it is dropped`,
				`input.3: "gemini" reasoning cannot be replayed to OpenAI Responses; it is dropped`,
			},
		},
		{
			name: "reasoning before text, not stored",
			req: ResponsesRequest{Messages: []llm.Message{llm.User("q"), llm.Assistant(rsReasoning, llm.Text{Text: "a"})},
				Fields: []Field{{Key: "store", Value: jsontext.Value("false")}}},
			want: `{"store":false,"input":[{"type":"message","role":"user","content":"q"},` +
				`{"type":"reasoning","id":"rs_1","summary":[]},` +
				`{"type":"message","role":"assistant","content":"a"}]}`,
		},
	})
}

// A conversion is a request to encode, the body wanted and the warnings
// wanted, in order.
type conversion[R any] struct {
	name     string
	req      R
	want     string
	warnings []string
}

// conversions encodes each case's request with encode, checks the body
// and the warnings, and that c reads the body back stably.
func conversions[R any](t *testing.T, encode func(*R) ([]byte, []provider.Warning, error), c testCodec, tests []conversion[R]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := encode(&tt.req)
			if err != nil {
				t.Fatalf("encode(%s) error: %v", tt.name, err)
			}
			if string(got) != tt.want {
				t.Errorf("encode(%s) =\n%s\nwant\n%s", tt.name, got, tt.want)
			}
			if gw := warningStrings(warnings); strings.Join(gw, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("encode(%s) warnings =\n%s\nwant\n%s", tt.name, strings.Join(gw, "\n"), strings.Join(tt.warnings, "\n"))
			}
			checkStable(t, c, got)
		})
	}
}

func warningStrings[T fmt.Stringer](ws []T) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		msgs []llm.Message
		tool []llm.ToolSpec
		flds []Field
		want string
	}{
		{"call in a user message", []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.ToolCall{ID: "c"}}}}, nil, nil,
			"openai: messages[0].parts[0]: a tool call part cannot be in a user message (llm placement rules)"},
		{"result in an assistant message", []llm.Message{{Role: llm.RoleAssistant, Parts: []llm.Part{llm.ToolResult{CallID: "c"}}}}, nil, nil,
			"openai: messages[0].parts[0]: a tool result part cannot be in an assistant message (llm placement rules)"},
		{"nil part", []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{nil}}}, nil, nil,
			"openai: messages[0].parts[0]: a nil part cannot be in a user message (llm placement rules)"},
		{"call inside a result", []llm.Message{llm.Tool(llm.ToolResult{CallID: "c", Content: []llm.Part{llm.ToolCall{}}})}, nil, nil,
			"openai: messages[0].parts[0].content[0]: a tool result can hold only text and images, not a tool call"},
		{"unknown role", []llm.Message{{Role: "narrator"}}, nil, nil, `openai: messages[0]: unknown role "narrator"`},
		{"bad parameters", nil, []llm.ToolSpec{{Name: "f", Parameters: jsontext.Value(`{"type":`)}}, nil,
			`openai: tools[0]: tool "f": parameters are not valid JSON: openai: type: invalid JSON at line 1, column 9: the input ends before the document does (at byte 8)`},
		{"array parameters", nil, []llm.ToolSpec{{Name: "f", Parameters: jsontext.Value(`[]`)}}, nil,
			`openai: tools[0]: tool "f": parameters must be a JSON Schema object, got an array`},
		{"modeled field", nil, nil, []Field{{"tools", []byte(`[]`)}}, `openai: field "tools" is modeled by the request type; set it there, not in Fields`},
		{"duplicate field", nil, nil, []Field{{"model", []byte(`"a"`)}, {"model", []byte(`"b"`)}}, `openai: field "model" appears twice in Fields`},
		{"invalid field", nil, nil, []Field{{"model", []byte(`gpt`)}}, `openai: field "model": value is not valid JSON: openai: invalid JSON at line 1, column 1: invalid character 'g' at start of value (at byte 0)`},
	}
	for _, tt := range tests {
		_, _, err := EncodeChat(&ChatRequest{Messages: tt.msgs, Tools: tt.tool, Fields: tt.flds})
		if err == nil || err.Error() != tt.want {
			t.Errorf("EncodeChat(%s) error = %v, want %v", tt.name, err, tt.want)
		}
		_, _, err = EncodeResponses(&ResponsesRequest{Messages: tt.msgs, Tools: tt.tool, Fields: tt.flds})
		if err == nil || err.Error() != tt.want {
			t.Errorf("EncodeResponses(%s) error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

// TestKeepFollowsMessages checks that unmodeled wire data stays with its
// message when other messages are inserted, moved or changed, as
// transcript.Repair does, and is lost only for a changed message.
func TestKeepFollowsMessages(t *testing.T) {
	body := `{"messages":[` +
		`{"role":"user","name":"alice","content":"first"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"one","x_trace":"t1"},` +
		`{"role":"function","name":"legacy","content":"old"},` +
		`{"role":"user","name":"bob","content":"second"}]}`
	r, err := DecodeChat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	// Answer c2 after c1 (what Repair does for an unanswered call), and
	// change bob's message.
	tm := r.Messages[2]
	tm.Parts = append(tm.Parts, toolresult.Failure(toolresult.Interrupted, "unknown outcome").Result("c2", "f"))
	r.Messages[2] = tm
	r.Messages[3] = llm.User("second, edited")
	got, _, err := EncodeChat(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[` +
		`{"role":"user","name":"alice","content":"first"},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"one","x_trace":"t1"},` +
		`{"role":"tool","tool_call_id":"c2","content":"{\"status\":\"error\",\"summary\":\"unknown outcome\",\"error\":{\"type\":\"interrupted\",\"message\":\"unknown outcome\",\"retryable\":false}}"},` +
		`{"role":"user","content":"second, edited"}]}`
	if string(got) != want {
		t.Errorf("EncodeChat(edited) =\n%s\nwant\n%s", got, want)
	}
	// The legacy function message was anchored to bob's message, which
	// changed: it is lost, as the Unmodeled note said it would be.
	if !strings.Contains(fmt.Sprint(r.Unmodeled), `messages.3: a legacy "function" message`) {
		t.Errorf("Unmodeled = %v, want a note on messages.3", r.Unmodeled)
	}
	// Encoding twice gives the same bytes: encoding does not consume the
	// kept data.
	again, _, _ := EncodeChat(r)
	if string(again) != string(got) {
		t.Errorf("EncodeChat twice:\n%s\n%s", got, again)
	}
}

// TestKeepSameCanonical checks that elements with the same canonical form
// get their own originals back, in order.
func TestKeepSameCanonical(t *testing.T) {
	body := `[{"role":"user","content":"hi","name":"a"},{"role":"user","content":"hi"},{"role":"user","content":"hi","name":"b"}]`
	r, err := DecodeChat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ := EncodeChat(r)
	if string(got) != body {
		t.Errorf("EncodeChat(DecodeChat(%s)) = %s, want it unchanged", body, got)
	}
}

// TestKeepTools checks that a non-function tool is written back after the
// function tool it preceded, and at the end when that tool is gone: tools
// are never lost.
func TestKeepTools(t *testing.T) {
	body := `{"input":"hi","tools":[{"type":"function","name":"a","strict":true},{"type":"web_search"},{"type":"function","name":"b","strict":true},{"type":"file_search","vector_store_ids":["vs"]}]}`
	r, err := DecodeResponses([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		tools []llm.ToolSpec
		want  string
	}{
		{"unchanged", r.Tools, `[{"type":"function","name":"a","strict":true},{"type":"web_search"},{"type":"function","name":"b","strict":true},{"type":"file_search","vector_store_ids":["vs"]}]`},
		{"anchor removed", r.Tools[:1], `[{"type":"function","name":"a","strict":true},{"type":"web_search"},{"type":"file_search","vector_store_ids":["vs"]}]`},
		{"all removed", nil, `[{"type":"web_search"},{"type":"file_search","vector_store_ids":["vs"]}]`},
	}
	for _, tt := range tests {
		r2 := *r
		r2.Tools = tt.tools
		out, _, err := EncodeResponses(&r2)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"input":"hi","tools":` + tt.want + `}`
		if string(out) != want {
			t.Errorf("EncodeResponses(%s) = %s, want %s", tt.name, out, want)
		}
	}
}

func TestEncodeNil(t *testing.T) {
	if _, _, err := EncodeChat(nil); err == nil || err.Error() != "openai: EncodeChat: nil request" {
		t.Errorf("EncodeChat(nil) error = %v, want a nil-request error", err)
	}
	if _, _, err := EncodeResponses(nil); err == nil || err.Error() != "openai: EncodeResponses: nil request" {
		t.Errorf("EncodeResponses(nil) error = %v, want a nil-request error", err)
	}
}

// TestEncodeConcurrently encodes one decoded request from several
// goroutines (run with -race): encoding must not touch shared state.
func TestEncodeConcurrently(t *testing.T) {
	r, err := DecodeResponses(testBody(t, "responses/opaque_items"))
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := EncodeResponses(r)
	done := make(chan []byte)
	for range 4 {
		go func() {
			out, _, _ := EncodeResponses(r)
			done <- out
		}()
	}
	for range 4 {
		if got := <-done; string(got) != string(want) {
			t.Errorf("concurrent EncodeResponses = %s, want %s", got, want)
		}
	}
}

// TestWriteBackExactly checks that a decoded body encodes back to itself,
// compacted, whatever the llm form does not say about it: member order, a
// null or "" content, a one-part array, a detail given or not, escapes and
// invalid UTF-8, an item without a type, empty strings and nulls among the
// top-level fields.
func TestWriteBackExactly(t *testing.T) {
	tests := []struct{ name, dialect, body string }{
		{"members in their order", "chat", `{"messages":[{"content":"q","role":"user"},{"tool_calls":[{"function":{"arguments":"{}","name":"f"},"type":"function","id":"c1"}],"role":"assistant"},{"tool_call_id":"c1","content":"ok","role":"tool"}]}`},
		{"null content beside calls", "chat", `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`},
		{"empty strings", "chat", `{"messages":[{"role":"user","content":""},{"role":"assistant","content":""},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""}}]},{"role":"tool","tool_call_id":"c1","content":""}]}`},
		{"a one-part array stays an array", "chat", `{"messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"x"}]}]}`},
		{"image details as given", "chat", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"auto"}}]}]}`},
		{"escapes and invalid UTF-8", "chat", "{\"messages\":[{\"role\":\"user\",\"content\":\"\\u003cb\\u003e \\/ \xff\"},{\"role\":\"assistant\",\"content\":\"<b>&amp;</b>\"}]}"},
		{"null, empty and odd fields", "chat", `{"messages":[{"role":"user","content":"q","name":null}],"tools":null,"temperature":1.0,"max_tokens":1e3,"metadata":{}}`},
		{"tools as given", "chat", `{"messages":[{"role":"user","content":"q"}],"tools":[{"function":{"strict":false,"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string","default":"x"}}},"description":""},"type":"function"}]}`},
		{"the whole document set", "chat", `{"messages":[{"role":"user","content":[{"type":"text","text":"read"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjM=","filename":"a.pdf"}},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`},
		{"items without a type", "responses", `{"input":[{"content":"q","role":"user"},{"role":"assistant","content":[{"type":"output_text","text":"a","annotations":[]}]}],"instructions":""}`},
		{"items in their member order", "responses", `{"input":[{"role":"user","content":"q"},{"arguments":"{}","call_id":"c1","id":"fc_1","name":"f","namespace":"f","type":"function_call","status":"completed"},{"call_id":"c1","output":[{"detail":"auto","image_url":"https://x/y.png","type":"input_image"}],"type":"function_call_output"}]}`},
		{"a string input", "responses", `{"model":"gpt-4.1","input":"","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{}}}]}`},
		{"opaque items in place", "responses", `{"input":[{"role":"user","content":"q"},{"type":"tool_search_call","call_id":"s1","execution":"client","status":"completed","arguments":{"queries":["x"]}},{"type":"tool_search_output","call_id":"s1","execution":"client","status":"completed","tools":[]},{"type":"function_call_output","call_id":"s1","output":"found"}],"tools":[{"type":"tool_search"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := codecs[0]
			if tt.dialect == "responses" {
				c = codecs[1]
			}
			d, err := c.Decode([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(d.wire) > 0 {
				t.Fatalf("Decode(%s).Wire = %v, want none", tt.body, d.wire)
			}
			out, warns, err := d.encode()
			if err != nil || string(out) != tt.body || len(warns) > 0 {
				t.Errorf("Encode(Decode(%s)) =\n%s, %v, %v\nwant it unchanged", tt.body, out, warns, err)
			}
		})
	}
}

// TestChangedMessageKeepsItsMembers checks that a message a repair changed
// is written with the members of the message it came from, in their
// order, and with its other parts as they were.
func TestChangedMessageKeepsItsMembers(t *testing.T) {
	chat := `{"messages":[` +
		`{"role":"user","content":"q"},` +
		`{"tool_calls":[{"type":"function","id":"c1","function":{"arguments":"{\"a\": 1}","name":"f"}},{"type":"function","id":"c2","function":{"arguments":"{}","name":"f","x_extra":1}}],"role":"assistant","name":"bot","content":null},` +
		`{"name":"f","role":"tool","tool_call_id":"c1","content":"one"}]}`
	r, err := DecodeChat([]byte(chat))
	if err != nil {
		t.Fatal(err)
	}
	// Rename the tool (transcript.Repair's rename-tool), in the call and
	// in its result, and drop the second call.
	c1 := r.Messages[1].Parts[0].(llm.ToolCall)
	c1.Name = "g"
	r.Messages[1] = llm.Assistant(c1)
	res := r.Messages[2].Parts[0].(llm.ToolResult)
	res.Content = []llm.Part{llm.Text{Text: "one, again"}}
	r.Messages[2] = llm.Tool(res)
	got, _, err := EncodeChat(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[` +
		`{"role":"user","content":"q"},` +
		`{"tool_calls":[{"type":"function","id":"c1","function":{"arguments":"{\"a\": 1}","name":"g"}}],"role":"assistant","name":"bot","content":null},` +
		`{"name":"f","role":"tool","tool_call_id":"c1","content":"one, again"}]}`
	if string(got) != want {
		t.Errorf("EncodeChat(changed) =\n%s\nwant\n%s", got, want)
	}

	rs := `{"input":[{"role":"user","content":"q"},` +
		`{"arguments":"{}","call_id":"c1","id":"fc_1","name":"f","namespace":"ns","type":"function_call","status":"completed"},` +
		`{"call_id":"c1","output":"ok","type":"function_call_output"}]}`
	q, err := DecodeResponses([]byte(rs))
	if err != nil {
		t.Fatal(err)
	}
	// Clear the item id (transcript.Repair for OAI-RS-REASONING-PAIR).
	call := q.Messages[1].Parts[0].(llm.ToolCall)
	call.ItemID = ""
	q.Messages[1] = llm.Assistant(call)
	got, _, err = EncodeResponses(q)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"input":[{"role":"user","content":"q"},` +
		`{"arguments":"{}","call_id":"c1","name":"f","namespace":"ns","type":"function_call","status":"completed"},` +
		`{"call_id":"c1","output":"ok","type":"function_call_output"}]}`
	if string(got) != want {
		t.Errorf("EncodeResponses(changed) =\n%s\nwant\n%s", got, want)
	}
}

// TestEncodeDocuments checks that a document (an llm.Image whose MediaType
// is not an image type), as the Anthropic and Gemini codecs decode a PDF,
// is written as the dialect's file part, and left out with a warning where
// it cannot be: given by URL, or in a system message.
func TestEncodeDocuments(t *testing.T) {
	pdf := llm.Image{MediaType: "application/pdf", Data: []byte("%PDF-1.3")}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: "read"}, pdf, llm.Image{MediaType: "application/pdf", URL: "https://x/a.pdf"}}},
		llm.Assistant(llm.ToolCall{ID: "c1", Name: "fetch", Input: jsontext.Value(`{}`)}),
		llm.Tool(llm.ToolResult{CallID: "c1", Name: "fetch", Status: llm.StatusSuccess, Content: []llm.Part{pdf}}),
	}
	chat, warns, err := EncodeChat(&ChatRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	wantChat := `{"messages":[{"role":"user","content":[{"type":"text","text":"read"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjM=","filename":"document.pdf"}}]},` +
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"fetch","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"The result is an image; it follows in the next message."},` +
		`{"role":"user","content":[{"type":"text","text":"Image(s) returned by the call c1 (fetch):"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjM=","filename":"document.pdf"}}]}]}`
	if string(chat) != wantChat {
		t.Errorf("EncodeChat(documents) =\n%s\nwant\n%s", chat, wantChat)
	}
	wantWarn := `messages.0: a document of type "application/pdf" given by URL has no Chat Completions form (a file part takes inline data); it is left out`
	if len(warns) == 0 || warns[0].String() != wantWarn {
		t.Errorf("EncodeChat(documents) warnings = %v, want first %q", warns, wantWarn)
	}
	back, err := DecodeChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Messages[0].Parts[1]; !reflect.DeepEqual(got, pdf) {
		t.Errorf("DecodeChat(file part) = %#v, want %#v", got, pdf)
	}
	rs, _, err := EncodeResponses(&ResponsesRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	wantRs := `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"read"},{"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjM="}]},` +
		`{"type":"function_call","call_id":"c1","name":"fetch","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c1","output":[{"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjM="}]}]}`
	if string(rs) != wantRs {
		t.Errorf("EncodeResponses(documents) =\n%s\nwant\n%s", rs, wantRs)
	}
	q, err := DecodeResponses(rs)
	if err != nil {
		t.Fatal(err)
	}
	if got := q.Messages[2].Parts[0].(llm.ToolResult).Content[0]; !reflect.DeepEqual(got, pdf) {
		t.Errorf("DecodeResponses(input_file) = %#v, want %#v", got, pdf)
	}
}

// TestChatItemIDs: a Responses item id on a call, which a Chat body has no
// place for, is dropped with a warning, as the other dialects drop it.
func TestChatItemIDs(t *testing.T) {
	msgs := []llm.Message{llm.User("q"), llm.Assistant(
		llm.ToolCall{ID: "call_1", ItemID: "fc_1", Name: "f", Input: []byte(`{}`)},
		llm.ToolCall{ID: "call_2", Name: "f", Input: []byte(`{}`)}),
		llm.Tool(llm.ToolResult{CallID: "call_1", Name: "f"}, llm.ToolResult{CallID: "call_2", Name: "f"})}
	body, warns, err := EncodeChat(&ChatRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	want := "1 OpenAI Responses item id(s) (ToolCall.ItemID) have no Chat Completions equivalent and were dropped"
	if len(warns) != 1 || warns[0].Message != want || strings.Contains(string(body), "fc_1") {
		t.Fatalf("warnings %+v, body %s; want one: %s", warns, body, want)
	}
	msgs[1].Parts[0] = llm.ToolCall{ID: "call_1", Name: "f", Input: []byte(`{}`)}
	if _, warns, _ := EncodeChat(&ChatRequest{Messages: msgs}); len(warns) != 0 {
		t.Fatalf("without item ids: warnings %+v", warns)
	}
}
