package anthropic

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// fromOpenAI is codectest.FromOpenAI as an Anthropic request.
func fromOpenAI() *Request {
	msgs, tools := codectest.FromOpenAI()
	return &Request{Messages: msgs, Tools: tools}
}

// TestConvert checks what Encode changes in messages from another dialect,
// and that it says so.
func TestConvert(t *testing.T) {
	r := fromOpenAI()
	enc := codectest.Convert(t, tested, r, filepath.Join("testdata", "convert_from_openai.txtar"))

	// Every id is valid, and every result answers the call before it.
	back, err := Decode(enc)
	if err != nil {
		t.Fatalf("Decode(Encode) error: %v", err)
	}
	pattern := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	for _, m := range back.Messages {
		for _, c := range m.ToolCalls() {
			if !pattern.MatchString(c.ID) {
				t.Errorf("Encode wrote tool_use id %q, want it to match %s", c.ID, pattern)
			}
		}
		for _, res := range m.ToolResults() {
			if res.Name == "" {
				t.Errorf("Encode wrote tool_result %q with no tool_use before it", res.CallID)
			}
		}
	}
	again, _, _ := Encode(fromOpenAI())
	if !bytes.Equal(enc, again) {
		t.Errorf("Encode is not deterministic:\n%s\n%s", enc, again)
	}
}

// TestRewriteIDsCollisionFree checks that rewritten ids never collide with
// ids already in the transcript or with each other.
func TestRewriteIDsCollisionFree(t *testing.T) {
	ids := []string{"a.b", "a:b", "a/b", "a_b", "a b", "toolu_0_0"}
	var calls []llm.Part
	var results []llm.ToolResult
	for _, id := range ids {
		calls = append(calls, llm.ToolCall{ID: id, Name: "f", Input: []byte(`{}`)})
		results = append(results, llm.ToolResult{CallID: id, Name: "f", Status: llm.StatusSuccess})
	}
	calls = append(calls, llm.ToolCall{Name: "f", Input: []byte(`{}`)})
	results = append(results, llm.ToolResult{Name: "f", Status: llm.StatusSuccess})
	r := &Request{Messages: []llm.Message{llm.User("go"), llm.Assistant(calls...), llm.Tool(results...)}}
	enc, _, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	got := back.Messages[1].ToolCalls()
	res := back.Messages[2].ToolResults()
	for k, c := range got {
		if seen[c.ID] {
			t.Errorf("Encode(%q) wrote id %q twice", ids, c.ID)
		}
		seen[c.ID] = true
		if res[k].CallID != c.ID {
			t.Errorf("Encode: result %d answers %q, want %q", k, res[k].CallID, c.ID)
		}
	}
	if got[3].ID != "a_b" {
		t.Errorf("Encode rewrote valid id %q to %q", "a_b", got[3].ID)
	}
}

// TestBareWarnings checks that what a bare array cannot hold is reported.
func TestBareWarnings(t *testing.T) {
	r := &Request{Bare: true, Messages: []llm.Message{llm.System("s"), llm.User("u")}, Tools: []llm.ToolSpec{{Name: "f"}},
		Fields: []Field{{Key: "model", Value: []byte(`"m"`)}}}
	enc, warns, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"system","content":[{"type":"text","text":"s"}]},{"role":"user","content":[{"type":"text","text":"u"}]}]`
	if string(enc) != want {
		t.Errorf("Encode(bare) = %s, want %s", enc, want)
	}
	if len(warns) != 3 {
		t.Errorf("Encode(bare) warnings = %v, want 3 (tools, model, system)", warns)
	}
}

// TestEncodeErrors checks the few Requests that cannot be written.
func TestEncodeErrors(t *testing.T) {
	codectest.EncodeErrors(t, tested, []struct {
		R    *Request
		Want string
	}{
		{nil, "anthropic: encode: nil Request"},
		{&Request{Messages: []llm.Message{{Role: "robot"}}}, `anthropic: encode: Messages[0]: unknown role "robot"`},
		{&Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{nil}}}}, "anthropic: encode: Messages[0].Parts[0]: a nil part cannot be encoded"},
		{&Request{Fields: []Field{{Key: "model", Value: []byte(`{`)}}}, "anthropic: encode: Fields[0] (model): value is not valid JSON"},
		{&Request{Fields: []Field{{Key: "model", Value: []byte(`1`)}, {Key: "model", Value: []byte(`2`)}}}, `anthropic: encode: Fields[1]: field "model" repeats`},
	})
}

// TestThinkingWarning checks that Thinking without a budget is reported.
func TestThinkingWarning(t *testing.T) {
	// (max_tokens is set: without it Encode writes one, and says so.)
	_, warns, err := Encode(&Request{Thinking: true, Messages: []llm.Message{llm.User("hi")}, Fields: []Field{{Key: "max_tokens", Value: []byte("1024")}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0].Path != "thinking" {
		t.Errorf("Encode(Thinking without field) warnings = %v, want one at thinking", warns)
	}
	var _ provider.Warning = warns[0]
}
