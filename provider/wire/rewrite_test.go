package wire

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// TestRewrite checks that Rewrite writes the new messages and tools and
// keeps the body's other fields, and the bytes of what it left alone.
func TestRewrite(t *testing.T) {
	in := `{"model": "claude-sonnet-4-5",  "max_tokens": 512, "thinking": {"type": "enabled", "budget_tokens": 1024},
  "messages": [{"role": "user",   "content": "hi"}], "metadata": {"user_id": "u1"}}`
	b, err := Decode([]byte(in), transcript.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	r := b.Request()
	r.Messages = append(r.Messages, llm.Assistant(llm.Text{Text: "hello"}), llm.User("bye"))
	r.Tools = append(r.Tools, llm.ToolSpec{Name: "read_result", Description: "Reads more.", Parameters: []byte(`{"type":"object"}`)})
	out, err := b.Rewrite(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"model": "claude-sonnet-4-5"`, `"max_tokens": 512`, `{"type": "enabled", "budget_tokens": 1024}`, `{"role": "user",   "content": "hi"}`, `"metadata": {"user_id": "u1"}`, `"hello"`, `"bye"`, `"read_result"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("Rewrite = %s\nlacks %s", out, want)
		}
	}
	again, err := Decode(out, transcript.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Request(); len(got.Messages) != 3 || len(got.Tools) != 1 || !got.Thinking {
		t.Errorf("read back: %d messages, %d tools, thinking %v; want 3, 1, true", len(got.Messages), len(got.Tools), got.Thinking)
	}
}
