package wire

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		body string
		want transcript.Dialect
	}{
		{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, transcript.OpenAIChat},
		{`{"model":"m","system":"s","messages":[{"role":"user","content":"hi"}]}`, transcript.Anthropic},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}`, transcript.Anthropic},
		{`{"model":"m","input":"hi"}`, transcript.OpenAIResponses},
		{`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, transcript.Gemini},
		{`[{"role":"model","parts":[{"text":"hi"}]}]`, transcript.Gemini},
		{`[{"type":"function_call_output","call_id":"c","output":"x"}]`, transcript.OpenAIResponses},
		{`[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"a","input":{}}]}]`, transcript.Anthropic},
		{`[{"role":"tool","tool_call_id":"c","content":"x"}]`, transcript.OpenAIChat},
		{`[{"role":"user","content":"hi"}]`, transcript.OpenAIChat},
		{`{"model":"claude-opus-4","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, transcript.Anthropic},
		{`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a","input_schema":{"type":"object"}}]}`, transcript.Anthropic},
	}
	for _, tt := range tests {
		det, err := Detect([]byte(tt.body))
		got, why := det.Dialect, det.Reason
		if err != nil || got != tt.want || why == "" {
			t.Errorf("Detect(%q) = %q, %q, %v; want %q", tt.body, got, why, err, tt.want)
		}
	}
}

func TestBodyText(t *testing.T) {
	// A body with one skipped message before messages.1.
	shift := func(p string) string {
		if p == "messages.1" {
			return "messages.2"
		}
		if strings.HasPrefix(p, "messages.1.") {
			return "messages.2." + strings.TrimPrefix(p, "messages.1.")
		}
		return p
	}
	tests := []struct{ in, want string }{
		{"the assistant message messages.1 calls f", "the assistant message messages.2 calls f"},
		{"messages.1.content.3: unexpected `tool_use_id`", "messages.2.content.3: unexpected `tool_use_id`"},
		{"Duplicate value for 'tool_call_id' of 'x', in messages[0] and messages[1].", "Duplicate value for 'tool_call_id' of 'x', in messages[0] and messages[2]."},
		{"Invalid 'messages[1].tool_calls[0].id': string too long", "Invalid 'messages[2].tool_calls[0].id': string too long"},
		{"mymessages.1 and messages.10 stay", "mymessages.1 and messages.10 stay"},
		{"no paths here", "no paths here"},
	}
	for _, tt := range tests {
		if got := bodyText(tt.in, shift); got != tt.want {
			t.Errorf("bodyText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
