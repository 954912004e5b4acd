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

// TestWireLen checks that wireLen, which Check uses to count the body's
// messages without a Layout, agrees with Layout on generated transcripts.
func TestWireLen(t *testing.T) {
	state := uint32(3)
	for k := 0; k < 2000; k++ {
		data := make([]byte, 48)
		for i := range data {
			state = state*1664525 + 1013904223
			data[i] = byte(state >> 24)
		}
		msgs := genTranscript(data)
		if k%3 == 0 { // tool messages with nothing a dialect can express
			msgs = append(msgs, llm.Message{Role: llm.RoleTool}, llm.Message{Role: llm.RoleTool, Parts: []llm.Part{think("gemini", "")}})
		}
		for _, d := range Dialects() {
			if got, want := wireLen(msgs, d), Layout(msgs, d).Len(); got != want {
				t.Fatalf("wireLen(%s) = %d, want %d (Layout.Len)\n%s", d, got, want, render(msgs))
			}
			if got, want := anyEntry(msgs, d), Layout(msgs, d).Len() > 0; got != want {
				t.Fatalf("anyEntry(%s) = %v, want %v\n%s", d, got, want, render(msgs))
			}
		}
	}
	for _, d := range Dialects() {
		if got := wireLen(nil, d); got != 0 {
			t.Errorf("wireLen(nil, %s) = %d, want 0", d, got)
		}
		if anyEntry([]llm.Message{{Role: llm.RoleTool}}, d) && (d == OpenAIChat || d == OpenAIResponses) {
			t.Errorf("anyEntry(an empty tool message, %s) = true, want false", d)
		}
	}
}

// TestLazyMap checks that the lazyMap Check and Repair use places every
// message and part where Layout does, on generated transcripts (with
// leading system messages and messages of more than 8 parts).
func TestLazyMap(t *testing.T) {
	state := uint32(9)
	for k := 0; k < 2000; k++ {
		data := make([]byte, 48)
		for i := range data {
			state = state*1664525 + 1013904223
			data[i] = byte(state >> 24)
		}
		msgs := genTranscript(data)
		switch k % 3 {
		case 0:
			msgs = append([]llm.Message{sys("a"), sys("b")}, msgs...)
		case 1:
			many := asst(txt("a"), call("c1", "x"), rsItem("rs_1"), think("anthropic", "s"), gsig("g"), call("c2", "y"), txt("b"), call("c3", "z"), txt("c"))
			msgs = append(msgs, many, tool(res("c1", "x", "1"), res("c2", "y", "2"), res("c3", "z", "3"), txt("t"), img(), txt("u"), txt("v"), txt("w"), txt("x")))
		}
		for _, d := range Dialects() {
			eager, lazy := Layout(msgs, d), newLazyMap(msgs, d)
			for i, m := range msgs {
				if got, want := lazy.path(lazy.msgLoc(i)), eager.Message(i).Path; got != want || lazy.msgLoc(i) != eager.msgs[i] {
					t.Fatalf("lazyMap(%s).msgLoc(%d) = %v %q, want %v %q\n%s", d, i, lazy.msgLoc(i), got, eager.msgs[i], want, render(msgs))
				}
				for j := range m.Parts {
					if got, want := lazy.partLoc(i, j), eager.part(i, j); got != want {
						t.Fatalf("lazyMap(%s).partLoc(%d, %d) = %v, want %v\n%s", d, i, j, got, want, render(msgs))
					}
				}
			}
		}
	}
}
