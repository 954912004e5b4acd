package wire

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

// TestCheckBodyRules covers the rules that read a body's fields beside its
// messages, and the values of a wrong JSON type the codecs read as
// violations: each body is judged as its dialect, with the rules (and
// warnings) it must break, and whether Fix repairs it.
func TestCheckBodyRules(t *testing.T) {
	tests := []struct {
		name string
		d    transcript.Dialect
		body string
		// want lists "RULE@path", "(warning)" after a warning, in order.
		want []string
		// fixable: Fix makes the body one the provider accepts; fixedHas is
		// a fragment the repaired body holds.
		fixable  bool
		fixedHas string
	}{
		{name: "Anthropic thinking with tool_choice any", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},"tool_choice":{"type":"any"},"tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"q"}]}`,
			want: []string{"ANT-THINKING-TOOLCHOICE@tool_choice"}},
		{name: "Anthropic thinking with a tool forced", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},"tool_choice":{"type":"tool","name":"a"},"tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"q"}]}`,
			want: []string{"ANT-THINKING-TOOLCHOICE@tool_choice"}},
		{name: "Anthropic thinking with tool_choice auto", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},"tool_choice":{"type":"auto","disable_parallel_tool_use":true},"messages":[{"role":"user","content":"q"}]}`},
		{name: "Anthropic tool_choice any without thinking", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":2048,"tool_choice":{"type":"any"},"tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"q"}]}`},
		{name: "Anthropic BMP image", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":99,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"Qk1GAAAA"}},{"type":"text","text":"what?"}]}]}`,
			want: []string{"ANT-IMAGE-MEDIA-TYPE@messages.0.content.0.source.media_type"}},
		{name: "Anthropic PNG labelled image/bmp", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":99,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"iVBORw0KGgoAAAANSUhEUg=="}},{"type":"text","text":"what?"}]}]}`,
			want: []string{"ANT-IMAGE-MEDIA-TYPE@messages.0.content.0.source.media_type"}, fixable: true},
		{name: "Gemini contents that start with a function response", d: gem,
			body: `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":"1"}}}]},{"role":"model","parts":[{"text":"done"}]}]}`,
			want: []string{"GEM-RESP-AFTER-CALL@contents.0"}, fixable: true},
		{name: "Gemini cached content, then a function response", d: gem,
			body: `{"cachedContent":"cachedContents/abc123","contents":[{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":"1"}}}]},{"role":"model","parts":[{"text":"done"}]}]}`,
			want: []string{"GEM-CACHED-PREFIX@contents.0 (warning)"}},
		{name: "Gemini cached content by its proto name, then a function call", d: gem,
			body: `{"cached_content":"cachedContents/abc123","contents":[{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":"1"}}}]}]}`,
			want: []string{"GEM-CACHED-PREFIX@contents.0 (warning)"}},
		{name: "Gemini 3 call without its thought signature", d: gem,
			body: `{"model":"gemini-3-pro-preview","contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":"1"}}}]}]}`,
			want: []string{"GEM-THOUGHT-SIG@contents.1.parts.0"}, fixable: true,
			fixedHas: `{"functionCall":{"name":"a","args":{}},"thoughtSignature":"skip_thought_signature_validator"}`},
		// A value of the wrong JSON type (or a role of another dialect) is
		// a rejection with a rule, not an unreadable body.
		{name: "Gemini role assistant", d: gem,
			body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"assistant","parts":[{"text":"hello"}]},{"role":"user","parts":[{"text":"q"}]}]}`,
			want: []string{"GEM-ROLE@contents.1.role"}, fixable: true, fixedHas: `{"role":"model","parts":[{"text":"hello"}]}`},
		{name: "Chat arguments as an object", d: chat,
			body: `{"model":"gpt-4o","messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"a","arguments":{"x":1}}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]}`,
			want: []string{"OAI-CC-JSON-TYPE@messages.1.tool_calls.0.function.arguments"}, fixable: true, fixedHas: `"arguments":"{\"x\":1}"`},
		{name: "Chat tool output as an object", d: chat,
			body: `{"model":"gpt-4o","messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":{"ok":true}}]}`,
			want: []string{"OAI-CC-JSON-TYPE@messages.2.content"}, fixable: true, fixedHas: `"content":"{\"ok\":true}"`},
		{name: "Responses arguments as an object", d: rs,
			body: `{"model":"gpt-4o","input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"call_1","name":"a","arguments":{"x":1}},{"type":"function_call_output","call_id":"call_1","output":"ok"}]}`,
			want: []string{"OAI-RS-JSON-TYPE@input.1.arguments"}, fixable: true, fixedHas: `"arguments":"{\"x\":1}"`},
		{name: "Responses tool output as an object", d: rs,
			body: `{"model":"gpt-4o","input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"call_1","name":"a","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":{"ok":true}}]}`,
			want: []string{"OAI-RS-JSON-TYPE@input.2.output"}, fixable: true, fixedHas: `"output":"{\"ok\":true}"`},
		{name: "Anthropic tool output as an object", d: ant,
			body: `{"model":"claude-sonnet-4-5","max_tokens":99,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"a","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":{"ok":true}}]}]}`,
			want: []string{"ANT-JSON-TYPE@messages.2.content.0.content"}, fixable: true, fixedHas: `"content":"{\"ok\":true}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, got := checked(t, tt.body, tt.d)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Check(%s) = %q, want %q", tt.body, got, tt.want)
			}
			if rep.Accepted() {
				return
			}
			if rep.Fixable() != tt.fixable {
				t.Errorf("Check(%s).Fixable() = %v, want %v (left %v, %v)", tt.body, rep.Fixable(), tt.fixable, rep.Left, rep.Unrepaired)
			}
			if tt.fixedHas == "" {
				return
			}
			f, err := Fix([]byte(tt.body), tt.d, nil)
			if err != nil || !strings.Contains(string(f.Body), tt.fixedHas) {
				t.Errorf("Fix(%s) = %s, %v; want a body with %s", tt.body, f.Body, err, tt.fixedHas)
			}
		})
	}
}

// checked returns Check's report on body as dialect d, and its violations
// as "RULE@path", with " (warning)" after a warning, in order. It fails
// the test when Check gives no report.
func checked(t *testing.T, body string, d transcript.Dialect) (*Report, []string) {
	t.Helper()
	rep, err := Check([]byte(body), d)
	if err != nil {
		t.Fatalf("Check(%s) error = %v, want a report", body, err)
	}
	var got []string
	for _, v := range rep.Violations {
		s := string(v.Rule) + "@" + v.Path
		if v.Warning {
			s += " (warning)"
		}
		got = append(got, s)
	}
	return rep, got
}
