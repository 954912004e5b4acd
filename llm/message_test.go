package llm

import (
	"reflect"
	"testing"
)

func TestMessagePartsByType(t *testing.T) {
	c1 := ToolCall{ID: "c1", Name: "a", Input: []byte(`{}`)}
	c2 := ToolCall{ID: "c2", Name: "b", Input: []byte(`{}`)}
	m := Assistant(Text{Text: "x"}, c1, Reasoning{Text: "r"}, c2)
	if got := m.ToolCalls(); !reflect.DeepEqual(got, []ToolCall{c1, c2}) {
		t.Errorf("ToolCalls() = %v, want [c1 c2] in order", got)
	}
	if got := m.ToolResults(); got != nil {
		t.Errorf("ToolResults() of an assistant message = %v, want nil", got)
	}
	r1 := ToolResult{CallID: "c1", Name: "a", Status: StatusSuccess}
	r2 := ToolResult{CallID: "c2", Name: "b", Status: StatusError}
	if got := Tool(r1, r2).ToolResults(); !reflect.DeepEqual(got, []ToolResult{r1, r2}) {
		t.Errorf("ToolResults() = %v, want [r1 r2] in order", got)
	}
}

func TestToolResultText(t *testing.T) {
	r := ToolResult{Content: []Part{
		Text{Text: "chart: "},
		Image{MediaType: "image/png", Data: make([]byte, 5120)},
		Text{Text: " and "},
		Image{URL: "https://example.com/a.png"},
	}}
	want := "chart: [image image/png, 5120 bytes] and [image https://example.com/a.png]"
	if got := r.Text(); got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	if got := (ToolResult{}).Text(); got != "" {
		t.Errorf("Text() of an empty result = %q, want \"\"", got)
	}
}
