package transcript

import (
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/llm"
)

func TestLayout(t *testing.T) {
	msgs := []llm.Message{
		sys("s"),
		usr("q"),
		asst(txt("a"), txt("b"), think("openai-responses", ""), rsItem("rs_1"), call("c1", "x"), gsig("g"), call("c2", "y")),
		tool(res("c1", "x", "1"), res("c2", "y", "2"), txt("after"), img()),
		asst(think("anthropic", "sig"), txt("done")),
	}
	tests := []struct {
		d     Dialect
		paths [][]string // per message: message path, then part paths
	}{
		{OpenAIChat, [][]string{
			{"messages.0", "messages.0.content"},
			{"messages.1", "messages.1.content"},
			{"messages.2", "messages.2.content.0", "messages.2.content.1", "", "", "messages.2.tool_calls.0", "", "messages.2.tool_calls.1"},
			{"messages.3", "messages.3", "messages.4", "messages.5.content.0", "messages.5.content.1"},
			{"messages.6", "", "messages.6.content"},
		}},
		{OpenAIResponses, [][]string{
			{"input.0", "input.0.content.0"},
			{"input.1", "input.1.content.0"},
			{"input.2", "input.2.content.0", "input.2.content.1", "input.3", "input.4", "input.5", "", "input.6"},
			{"input.7", "input.7", "input.8", "input.9.content.0", "input.9.content.1"},
			{"input.10", "", "input.10.content.0"},
		}},
		{Anthropic, [][]string{
			{"system", "system"},
			{"messages.0", "messages.0.content.0"},
			{"messages.1", "messages.1.content.0", "messages.1.content.1", "", "", "messages.1.content.2", "", "messages.1.content.3"},
			{"messages.2", "messages.2.content.0", "messages.2.content.1", "messages.2.content.2", "messages.2.content.3"},
			{"messages.3", "messages.3.content.0", "messages.3.content.1"},
		}},
		{Gemini, [][]string{
			{"systemInstruction", "systemInstruction.parts.0"},
			{"contents.0", "contents.0.parts.0"},
			{"contents.1", "contents.1.parts.0", "contents.1.parts.1", "", "", "contents.1.parts.2", "contents.1.parts.3", "contents.1.parts.3"},
			{"contents.2", "contents.2.parts.0", "contents.2.parts.1", "contents.2.parts.2", "contents.2.parts.3"},
			{"contents.3", "", "contents.3.parts.0"},
		}},
	}
	for _, tt := range tests {
		m := Layout(msgs, tt.d)
		var got [][]string
		for i, msg := range msgs {
			row := []string{m.Message(i).Path}
			for j := range msg.Parts {
				row = append(row, m.Part(i, j).Path)
			}
			got = append(got, row)
		}
		if !reflect.DeepEqual(got, tt.paths) {
			t.Errorf("Layout(%s) =\n%q\nwant\n%q", tt.d, got, tt.paths)
		}
	}
	if n := Layout(msgs, OpenAIChat).Len(); n != 7 {
		t.Errorf("Layout(openai-chat).Len() = %d, want 7", n)
	}
}
