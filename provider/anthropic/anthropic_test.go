package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// tested is this package's codec, for the shared checks of codectest.
var tested = codectest.Codec[*Request]{Decode: Decode, Encode: Encode}

// render prints a decoded request and its encoding for a golden file.
func render(t *testing.T, r *Request, enc []byte, warns []provider.Warning) []byte {
	t.Helper()
	a := codectest.Account{Messages: r.Messages, Flags: fmt.Sprintf("thinking=%v bare=%v", r.Thinking, r.Bare),
		Wire: r.Wire, Unmodeled: r.Unmodeled, Encoded: enc, Warnings: warns}
	for _, s := range r.Tools {
		a.Tools = append(a.Tools, fmt.Sprintf("%s strict=%v %q %s", s.Name, s.Strict, s.Description, s.Parameters))
	}
	for _, f := range r.Fields {
		a.Fields = append(a.Fields, fmt.Sprintf("%s: %s", f.Key, string(f.Value)))
	}
	return codectest.Render(t, a)
}

// TestRoundTrip decodes realistic bodies, checks the llm form against
// golden files, and checks that encoding gives the body back, compacted.
func TestRoundTrip(t *testing.T) {
	codectest.RoundTrip(t, tested, "testdata/roundtrip/*.txtar", render)
}

// TestEditedRoundTrip changes decoded messages the way transcript.Repair
// does and checks that what the llm form does not hold (cache_control,
// citations, key order, string content) stays with its part.
func TestEditedRoundTrip(t *testing.T) {
	in := codectest.Input(t, "testdata/roundtrip/system_blocks_server_tools.txtar")
	r, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	// Insert a note before the last message, and a synthetic result next
	// to the real one, the way a repair would.
	last := len(r.Messages) - 1
	tool := r.Messages[last]
	synthetic := toolresult.Failure(toolresult.Interrupted, "The call was interrupted; its outcome is unknown.").Result("toolu_x", "download")
	tool.Parts = append([]llm.Part{synthetic}, tool.Parts...)
	msgs := append([]llm.Message{}, r.Messages[:last]...)
	msgs = append(msgs, llm.User("(note)"), tool)
	r.Messages = msgs
	codectest.Edited(t, tested, r,
		`"system":[{"type":"text","text":"You are a research assistant.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Cite your sources."}]`,
		`{"role":"user","content":[{"type":"text","text":"(note)"}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"{\"status\":\"error\"`,
		`{"type":"tool_result","tool_use_id":"toolu_dl","content":"saved to /tmp/go1.26.tar.gz","cache_control":{"type":"ephemeral"}}]}`,
		`"citations":[{"type":"web_search_result_location"`,
		`"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":3},{"name":"download"`,
	)
	// A tool_result whose content changed keeps its extra fields.
	r2, _ := Decode(in)
	res := r2.Messages[len(r2.Messages)-1].Parts[0].(llm.ToolResult)
	res.Content = []llm.Part{llm.Text{Text: "saved elsewhere"}}
	r2.Messages[len(r2.Messages)-1].Parts[0] = res
	enc, _, err := Encode(r2)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"tool_result","tool_use_id":"toolu_dl","content":"saved elsewhere","cache_control":{"type":"ephemeral"}}`
	if !bytes.Contains(enc, []byte(want)) {
		t.Errorf("Encode(changed result) = %s\nwant it to contain %s", enc, want)
	}
}

// TestStable checks encode(decode(x)) is a fixed point after one cycle for
// bodies that are not in the codec's own form.
func TestStable(t *testing.T) {
	codectest.StableBodies(t, tested,
		`{"messages":[{"content":"hi","role":"user"}],"model":"m"}`,
		"{ \"messages\" : [ { \"role\" : \"user\" , \"content\" : [ { \"text\" : \"a\\u003cb\\u00e9\" , \"type\" : \"text\" } ] } ] }",
		`{"system":"","messages":[]}`,
		`[{"role":"system","content":"sys"},{"role":"user","content":"hi"}]`,
		`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{ "x" : [1, 2] }}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hello"}}]}]}]}`,
	)
}

// TestDecodeErrors checks that bad bodies get a specific error naming the
// exact path.
func TestDecodeErrors(t *testing.T) {
	codectest.DecodeErrors[*Request, *llm.DecodeError](t, tested, []struct{ Body, Want string }{
		{``, `anthropic: invalid JSON at line 1, column 1: empty input (at byte 0)`},
		{`{"messages":[{"role":"user","content":"hi"}`, `anthropic: messages: invalid JSON at line 1, column 44: the input ends before the document does (at byte 43)`},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"a}]}]}`, `anthropic: messages.0.content.0.text: invalid JSON at line 1, column 69: the input ends before the document does (at byte 68)`},
		{`"hello"`, `anthropic: want a request body (an object) or a messages array, got a string`},
		{`{"model":"x"}`, `anthropic: messages: missing (a Messages API request body has a "messages" array)`},
		{`{"messages":{}}`, `anthropic: messages: want an array of messages, got an object`},
		{`{"messages":[1]}`, `anthropic: messages.0: want a message object, got a number`},
		{`{"messages":[{"role":"user"}]}`, `anthropic: messages.0.content: missing (a string or an array of content blocks)`},
		{`{"messages":[{"role":"tool","content":"x"}]}`, `anthropic: messages.0.role: unknown role "tool" (want "user" or "assistant")`},
		{`{"messages":[{"role":"user","content":"x","name":"bob"}]}`, `anthropic: messages.0.name: unknown field (a message has role and content)`},
		{`{"messages":[{"role":"user","content":"x","role":"user"}]}`, `anthropic: messages.0.role: invalid JSON at line 1, column 43: duplicate member name "role" (at byte 42)`},
		{`{"messages":[{"role":"user","content":null}]}`, `anthropic: messages.0.content: want a string or an array of content blocks, got null`},
		{`{"messages":[{"role":"user","content":[{"text":"a"}]}]}`, `anthropic: messages.0.content.0.type: missing ("text", "image", "tool_use", "tool_result", ...)`},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":1}]}]}`, `anthropic: messages.0.content.0.text: want a string, got a number`},
		{`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":7}]}]}`, `anthropic: messages.2.content.1.tool_use_id: want a string, got a number`},
		{`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":"{}"}]}]}`, `anthropic: messages.0.content.0.input: want an object, got a string`},
		{`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","input":{}}]}]}`, `anthropic: messages.0.content.0.name: missing (the tool's name, a string)`},
		{`{"messages":[{"role":"user","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}]}`, `anthropic: messages.0.content.0: a tool_use block belongs in a assistant message, not a user message`},
		{`{"messages":[{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"a"}]}]}`, `anthropic: messages.0.content.0: a tool_result block belongs in a user message, not a assistant message`},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","is_error":"yes"}]}]}`, `anthropic: messages.0.content.0.is_error: want a boolean, got a string`},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"!!"}}]}]}`, `anthropic: messages.0.content.0.source.data: invalid base64: illegal base64 data at input byte 0`},
		{`{"system":[{"type":"image","source":{}}],"messages":[]}`, `anthropic: system.0.type: a system prompt holds text blocks only, not "image"`},
		{`{"system":5,"messages":[]}`, `anthropic: system: want a string or an array of text blocks, got a number`},
		{`{"messages":[],"tools":[{"description":"d"}]}`, `anthropic: tools.0.name: missing (the tool's name, a string)`},
		{`{"messages":[],"tools":[{"name":"f","input_schema":[]}]}`, `anthropic: tools.0.input_schema: want a JSON Schema object, got an array`},
		{`{"messages":[],"thinking":true}`, `anthropic: thinking: want an object, got a boolean`},
		// Messages are read as they come, the other fields after them; what
		// is reported first does not hang on the order of the fields: a
		// thinking that is not an object, then no messages, then system,
		// messages and tools, in that order.
		{`{"messages":[{"role":"user","content":7}],"tools":7,"system":[{"type":"image"}]}`, `anthropic: system.0.type: a system prompt holds text blocks only, not "image"`},
		{`{"tools":7,"messages":[{"role":"user","content":7}]}`, `anthropic: messages.0.content: want a string or an array of content blocks, got a number`},
		{`{"messages":[{"role":"user","content":7}],"thinking":true}`, `anthropic: thinking: want an object, got a boolean`},
		{`{"system":7,"tools":7}`, `anthropic: messages: missing (a Messages API request body has a "messages" array)`},
		// A syntax error is worded as reading each field whole words it,
		// though messages are read block by block.
		{`{"messages":[{"role":"user","content":7},{r":1}]}`, `anthropic: messages.1: invalid JSON at line 1, column 43: invalid character 'r' at start of string (expecting '"') (at byte 42)`},
		{"{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}", `anthropic: messages.0.content: invalid JSON at line 1, column 40: invalid UTF-8 (at byte 39)`},
		{`{"messages":[]} x`, `anthropic: invalid JSON at line 1, column 17: unexpected data after the top-level value: 'x' (at byte 16)`},
		{strings.Repeat("[", 10001), `anthropic: messages.0.0.0.….0.0.0.0 (10001 levels deep): invalid JSON at line 1, column 10001: nested deeper than 10000 levels (at byte 10000)`},
		// A bare array's paths are those of a full body.
		{`[{"role":"user","content":"q"},{"role":"tool","content":"x"}]`, `anthropic: messages.1.role: unknown role "tool" (want "user" or "assistant")`},
		{`[{"role":"user","content":"q"`, `anthropic: messages.0: invalid JSON at line 1, column 30: the input ends before the document does (at byte 29)`},
		{`[{"role":"user"}]`, `anthropic: messages.0.content: missing (a string or an array of content blocks)`},
	})
}

// TestResultStatus checks is_error and envelope statuses.
func TestResultStatus(t *testing.T) {
	partial, _ := toolresult.Partial("2 of 3 pages", nil).MarshalJSON()
	failure, _ := toolresult.Failure(toolresult.Timeout, "timed out").MarshalJSON()
	for _, tc := range []struct {
		block string
		want  llm.Status
	}{
		{`{"type":"tool_result","tool_use_id":"a","content":"ok"}`, llm.StatusSuccess},
		{`{"type":"tool_result","tool_use_id":"a"}`, llm.StatusSuccess},
		{`{"type":"tool_result","tool_use_id":"a","is_error":true}`, llm.StatusError},
		{`{"type":"tool_result","tool_use_id":"a","is_error":true,"content":[{"type":"text","text":"x"}]}`, llm.StatusError},
		{`{"type":"tool_result","tool_use_id":"a","is_error":false,"content":"ok"}`, llm.StatusSuccess},
		{`{"type":"tool_result","tool_use_id":"a","content":` + jsonString(string(partial)) + `}`, llm.StatusPartial},
		{`{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":` + jsonString(string(failure)) + `}]}`, llm.StatusError},
		{`{"type":"tool_result","tool_use_id":"a","content":"{\"status\":\"weird\",\"summary\":\"x\"}"}`, llm.StatusSuccess},
	} {
		body := `{"messages":[{"role":"user","content":[` + tc.block + `]}]}`
		r, err := Decode([]byte(body))
		if err != nil {
			t.Errorf("Decode(%s) error: %v", body, err)
			continue
		}
		got := r.Messages[0].Parts[0].(llm.ToolResult).Status
		if got != tc.want {
			t.Errorf("Decode(%s) status = %v, want %v", tc.block, got, tc.want)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestNameRecovery checks that a result's Name comes from the matching
// tool_use earlier in the transcript, and is empty for an orphan.
func TestNameRecovery(t *testing.T) {
	body := `[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"search","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"},{"type":"tool_result","tool_use_id":"zz"}]}]`
	r, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	rs := r.Messages[1].ToolResults()
	if rs[0].Name != "search" || rs[1].Name != "" {
		t.Errorf("Decode(%s) names = %q, %q, want %q, %q", body, rs[0].Name, rs[1].Name, "search", "")
	}
	if r.Messages[1].Role != llm.RoleTool {
		t.Errorf("Decode(%s) role = %v, want %v", body, r.Messages[1].Role, llm.RoleTool)
	}
}

// TestWire checks violations that only the wire form shows.
func TestWire(t *testing.T) {
	body := `{"max_tokens":9,"system":"top","messages":[{"role":"system","content":[{"type":"text","text":"more"}]},{"role":"user","content":"hi"},{"role":"system","content":[{"type":"text","text":"mid"}]}]}`
	r, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Wire) != 1 || r.Wire[0].Rule != "ANT-SYSTEM-ROLE" || r.Wire[0].Path != "messages.0" {
		t.Errorf("Decode(%s).Wire = %v, want one ANT-SYSTEM-ROLE at messages.0", body, r.Wire)
	}
	enc, _, err := Encode(r)
	if err != nil || string(enc) != body {
		t.Errorf("Encode(Decode(%s)) = %s, %v, want the body back", body, enc, err)
	}
	// In a bare array too, the path is that of a full body.
	bare := `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"a","citations":[]}]}]`
	if r, err = Decode([]byte(bare)); err != nil {
		t.Fatal(err)
	}
	if len(r.Unmodeled) != 1 || r.Unmodeled[0].Path != "messages.1.content.0.citations" {
		t.Errorf("Decode(%s).Unmodeled = %v, want one note at messages.1.content.0.citations", bare, r.Unmodeled)
	}
}

// TestFieldOrder checks that a body whose system follows its messages
// decodes to the same llm form as one in the usual order, and encodes back
// in its own order.
func TestFieldOrder(t *testing.T) {
	codectest.FieldOrder(t, tested,
		`{"system":[{"type":"text","text":"Be brief.","x":1}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","y":2}]},{"role":"assistant","content":"yes"}],"max_tokens":9}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"hi","y":2}]},{"role":"assistant","content":"yes"}],"max_tokens":9,"system":[{"type":"text","text":"Be brief.","x":1}]}`,
		func(r *Request) string { return fmt.Sprint(r.Messages, r.Unmodeled) },
		func(r *Request) { r.Messages[1].Parts = append(r.Messages[1].Parts, llm.Text{Text: "there"}) },
		`{"messages":[{"role":"user","content":[{"type":"text","text":"hi","y":2},{"type":"text","text":"there"}]},{"role":"assistant","content":"yes"}],"max_tokens":9,"system":[{"type":"text","text":"Be brief.","x":1}]}`)
}

// TestBodyPath checks that the paths transcript computes from the llm form
// are translated into paths of the body, which differ after role "system"
// messages at the start of the messages array (ANT-SYSTEM-ROLE).
func TestBodyPath(t *testing.T) {
	const (
		both  = `{"system":"top","messages":[{"role":"system","content":"more"},{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"system","content":"mid"}]}`
		bare  = `[{"role":"system","content":"s"},{"role":"system","content":"s2"},{"role":"user","content":"q"}]`
		plain = `{"system":"s","messages":[{"role":"user","content":"q"}]}`
	)
	tests := []struct {
		body, in, want string
	}{
		{both, "messages.0", "messages.1"},
		{both, "messages.1.content.1", "messages.2.content.1"},
		{both, "messages.2", "messages.3"},
		{both, "messages.2.content.0", "messages.3.content"}, // a string content
		{both, "messages.1.content.0", "messages.2.content.0"},
		{both, "system", "system"},
		{both, "tools.0.name", "tools.0.name"},
		{both, "messages.x", "messages.x"},
		{bare, "system", "messages.0"},
		{bare, "messages.0", "messages.2"},
		{plain, "messages.0", "messages.0"},
		{plain, "messages.0.content.0", "messages.0.content"},
		{plain, "messages.0.content.1", "messages.0.content.1"},
		{plain, "system", "system"},
	}
	for _, tt := range tests {
		r, err := Decode([]byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.BodyPath(tt.in); got != tt.want {
			t.Errorf("Decode(%s).BodyPath(%q) = %q, want %q", tt.body, tt.in, got, tt.want)
		}
	}
	if got := (&Request{}).BodyPath("messages.1"); got != "messages.1" {
		t.Errorf("(&Request{}).BodyPath(%q) = %q, want it unchanged", "messages.1", got)
	}

	// Every part that transcript.Layout places in the messages array lands
	// on the block it was decoded from.
	r, err := Decode([]byte(both))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal([]byte(both), &doc); err != nil {
		t.Fatal(err)
	}
	lay := transcript.Layout(r.Messages, transcript.Anthropic)
	checked := 0
	for i, m := range r.Messages {
		for j, p := range m.Parts {
			path := lay.Part(i, j).Path
			if !strings.HasPrefix(path, "messages.") {
				continue
			}
			got := lookup(doc, r.BodyPath(path))
			var want any
			switch p := p.(type) {
			case llm.Text:
				want = p.Text
				if blk, ok := got.(map[string]any); ok { // else a string content
					got = blk["text"]
				}
			case llm.ToolCall:
				want = p.ID
				if blk, ok := got.(map[string]any); ok {
					got = blk["id"]
				}
			}
			if got != want {
				t.Errorf("Decode(%s): part %d.%d at %s (in the body %s) = %v, want %v", both, i, j, path, r.BodyPath(path), got, want)
			}
			checked++
		}
	}
	if checked != 4 {
		t.Errorf("Decode(%s): checked %d parts in the messages array, want 4", both, checked)
	}
}

// lookup returns the value at a dotted path in a decoded JSON document.
func lookup(doc any, path string) any {
	v := doc
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			k, err := strconv.Atoi(seg)
			if err != nil || k >= len(x) {
				return nil
			}
			v = x[k]
		default:
			return nil
		}
	}
	return v
}

// TestStringFormKept checks that a new text written in place of a
// message's string content keeps the string form, and that a block
// content stays blocks.
func TestStringFormKept(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"max_tokens":9,"messages":[{"role":"user","content":""}]}`, `{"max_tokens":9,"messages":[{"role":"user","content":"(empty)"}]}`},
		{`{"max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`, `{"max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"(empty)"}]}]}`},
		{`{"max_tokens":9,"messages":[{"role":"assistant","content":"a"},{"role":"user","content":""}]}`, `{"max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"(empty)"}]}]}`},
	} {
		r, err := Decode([]byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		r.Messages = []llm.Message{llm.User("(empty)")}
		if got, _, err := Encode(r); err != nil || string(got) != tt.want {
			t.Errorf("Encode(%s with a new user text) = %s, %v; want %s", tt.body, got, err, tt.want)
		}
	}
}
