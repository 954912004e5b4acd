package transcript

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// Table cases for the Anthropic rules of issue 7, each written from the
// rule: what the Messages API accepts and rejects. checkCases holds them,
// so TestCheck, TestRepairCases and the golden files run them too.

// antOpaque is an Anthropic block the llm form does not model.
func antOpaque(kind string) llm.Opaque {
	return llm.Opaque{Provider: "anthropic", Kind: kind, Data: jsontext.Value(`{"type":"` + kind + `"}`)}
}

func thinkingOn(m ...llm.Message) Request { return Request{Messages: m, Thinking: true} }

// The first bytes of image files, which is what a sniffer reads.
var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegBytes = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
)

// bmp is a BMP image, which Anthropic does not take.
func bmp() llm.Image { return llm.Image{MediaType: "image/bmp", Data: []byte("BM\x46\x00\x00\x00")} }

func anthropicCases() []checkCase {
	return []checkCase{
		// ANT-THINKING-FIRST: a tool loop is one assistant turn; only its
		// first assistant message starts with thinking.
		{name: "anthropic/thinking: a two-step tool loop thinks once, at its start", d: Anthropic, accepted: true,
			req: thinkingOn(usr("q"), asst(think("anthropic", "s1"), call("toolu_1", "a")), tool(res("toolu_1", "a", "1")),
				asst(call("toolu_2", "b")), tool(res("toolu_2", "b", "2")))},
		{name: "anthropic/thinking: the loop's first step lacks it, a later step has it", d: Anthropic,
			req: thinkingOn(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1")),
				asst(think("anthropic", "s2"), call("toolu_2", "b")), tool(res("toolu_2", "b", "2"))),
			want: []string{"ANT-THINKING-FIRST messages.1.content.0"}},
		{name: "anthropic/thinking: a user question ends the turn, the next one must think", d: Anthropic,
			req: thinkingOn(usr("q"), asst(think("anthropic", "s1"), call("toolu_1", "a")), tool(res("toolu_1", "a", "1")),
				asst(txt("done")), usr("and now?"), asst(call("toolu_2", "b")), tool(res("toolu_2", "b", "2"))),
			want: []string{"ANT-THINKING-FIRST messages.5.content.0"}},
		{name: "anthropic/thinking: results with text end the turn", d: Anthropic, accepted: true,
			req: thinkingOn(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1"), txt("also, be brief")))},
		{name: "anthropic/thinking: results then a user message in one merged turn end it", d: Anthropic, accepted: true,
			req: thinkingOn(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1")), usr("be brief"))},
		{name: "anthropic/thinking: consecutive assistant messages merge, thinking in the first", d: Anthropic, accepted: true,
			req: thinkingOn(usr("q"), asst(think("anthropic", "s1")), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1")))},
		{name: "anthropic/thinking: a redacted thinking block counts", d: Anthropic, accepted: true,
			req: thinkingOn(usr("q"), asst(llm.Reasoning{Provider: "anthropic", Data: jsontext.Value(`"enc"`)}, call("toolu_1", "a")), tool(res("toolu_1", "a", "1")))},
		{name: "anthropic/thinking: a system message inside the loop does not end it", d: Anthropic, accepted: true,
			req: Request{Model: "claude-opus-4-8", Thinking: true, Messages: []llm.Message{usr("q"), asst(think("anthropic", "s1"), call("toolu_1", "a")),
				tool(res("toolu_1", "a", "1")), sys("be brief"), asst(call("toolu_2", "b")), tool(res("toolu_2", "b", "2"))}}},
		{name: "anthropic/thinking: a server tool block first is not thinking", d: Anthropic,
			req:  thinkingOn(usr("q"), asst(antOpaque("server_tool_use"), call("toolu_1", "a")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-THINKING-FIRST messages.1.content.0"}},
		{name: "anthropic/thinking: reasoning from another provider is not thinking", d: Anthropic,
			req:  thinkingOn(usr("q"), asst(think("gemini", "g"), call("toolu_1", "a")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-THINKING-FIRST messages.1.content.0"}},
		{name: "anthropic/thinking: a loop from the very first message", d: Anthropic, accepted: true,
			req:  thinkingOn(asst(think("anthropic", "s1"), call("toolu_1", "a")), tool(res("toolu_1", "a", "1")), asst(call("toolu_2", "b")), tool(res("toolu_2", "b", "2"))),
			want: []string{"ANT-FIRST-USER messages.0 (warning)"}},

		// ANT-SYSTEM-ROLE: keyed on the model (antFamilies, in anthropic.go).
		{name: "anthropic/system role: a model from before the feature rejects it", d: Anthropic,
			req:  Request{Model: "claude-sonnet-4-20250514", Messages: []llm.Message{usr("q"), sys("be brief"), asst(txt("a"))}},
			want: []string{"ANT-SYSTEM-ROLE messages.1"}},
		{name: "anthropic/system role: Claude 3 rejects it", d: Anthropic,
			req:  Request{Model: "claude-3-7-sonnet-latest", Messages: []llm.Message{usr("q"), asst(txt("a")), usr("q2"), sys("be brief")}},
			want: []string{"ANT-SYSTEM-ROLE messages.3"}},
		{name: "anthropic/system role: Opus 4.8 accepts it after a user message", d: Anthropic, accepted: true,
			req: Request{Model: "claude-opus-4-8", Messages: []llm.Message{usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1")), sys("be brief")}}},
		{name: "anthropic/system role: Fable 5 accepts it before an assistant message", d: Anthropic, accepted: true,
			req: Request{Model: "claude-fable-5-1", Messages: []llm.Message{usr("q"), sys("be brief"), asst(txt("a"))}}},
		{name: "anthropic/system role: Opus 4.8 with it after an assistant message is a warning", d: Anthropic, accepted: true,
			req:  Request{Model: "claude-opus-4-8-20260528", Messages: []llm.Message{usr("q"), asst(txt("a")), sys("be brief"), usr("q2")}},
			want: []string{"ANT-SYSTEM-ROLE messages.2 (warning)"}},
		{name: "anthropic/system role: Opus 5 takes it after a server tool use", d: Anthropic, accepted: true,
			req: Request{Model: "claude-opus-5", Messages: []llm.Message{usr("q"), asst(antOpaque("server_tool_use")), sys("be brief"), asst(txt("a"))}}},
		{name: "anthropic/system role: no model named is a warning", d: Anthropic, accepted: true,
			req:  msgs(usr("q"), asst(txt("a")), usr("q2"), sys("be brief")),
			want: []string{"ANT-SYSTEM-ROLE messages.3 (warning)"}},
		{name: "anthropic/system role: a model without evidence is a warning", d: Anthropic, accepted: true,
			req:  Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{usr("q"), sys("be brief"), asst(txt("a"))}},
			want: []string{"ANT-SYSTEM-ROLE messages.1 (warning)"}},
		{name: "anthropic/system role: a tool_addition entry on Opus 4.8", d: Anthropic, accepted: true,
			req: Request{Model: "claude-opus-4-8", Messages: []llm.Message{usr("q"), asst(txt("a")), usr("."), {Role: llm.RoleSystem, Parts: []llm.Part{antOpaque("tool_addition")}}}}},

		// ANT-RESULT-NEXT: an assistant turn's tool_use blocks come last.
		{name: "anthropic/text after tool_use in one assistant message", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a"), txt("I will check.")), tool(res("toolu_1", "a", "1")), usr("go on")),
			want: []string{"ANT-RESULT-NEXT messages.1.content.1"}},
		{name: "anthropic/text before tool_use, the turn split over two messages, is accepted", d: Anthropic, accepted: true,
			req:  msgs(asst(txt("I will check.")), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1")), usr("go on")),
			want: []string{"ANT-FIRST-USER messages.0 (warning)"}},
		{name: "anthropic/text in a later assistant message of the turn, answered", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), asst(txt("waiting")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-RESULT-NEXT messages.2.content.0"}},
		{name: "anthropic/text in a later assistant message of the turn, unanswered", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), asst(txt("it is 18C")), usr("thanks")),
			want: []string{"ANT-RESULT-NEXT messages.1", "ANT-RESULT-NEXT messages.2.content.0"}},
		{name: "anthropic/text between two tool_use blocks", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a"), txt("and"), call("toolu_2", "b")), tool(res("toolu_1", "a", "1"), res("toolu_2", "b", "2"))),
			want: []string{"ANT-RESULT-NEXT messages.1.content.1"}},
		{name: "anthropic/an empty text after tool_use is only an empty block", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a"), txt("")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-TEXT-NONEMPTY messages.1.content.1"}},
		{name: "anthropic/text after tool_use with thinking on", d: Anthropic,
			req:  thinkingOn(usr("q"), asst(think("anthropic", "s"), call("toolu_1", "a"), txt("checking")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-RESULT-NEXT messages.1.content.2"}},

		// ANT-THINKING-TOOLCHOICE: with extended thinking on, tool_choice
		// may only be auto or none.
		{name: "anthropic/thinking with tool_choice any", d: Anthropic,
			req:       Request{Thinking: true, ToolChoice: llm.ToolChoice{Mode: llm.ToolRequired}, Messages: []llm.Message{usr("q")}},
			want:      []string{"ANT-THINKING-TOOLCHOICE tool_choice"},
			repairErr: []string{"ANT-THINKING-TOOLCHOICE"}},
		{name: "anthropic/thinking with a named tool forced", d: Anthropic,
			req:       Request{Thinking: true, ToolChoice: llm.ToolChoice{Name: "a"}, Tools: []llm.ToolSpec{{Name: "a"}}, Messages: []llm.Message{usr("q")}},
			want:      []string{"ANT-THINKING-TOOLCHOICE tool_choice"},
			repairErr: []string{"ANT-THINKING-TOOLCHOICE"}},
		{name: "anthropic/thinking with tool_choice none", d: Anthropic, accepted: true,
			req: Request{Thinking: true, ToolChoice: llm.ToolChoice{Mode: llm.ToolNone}, Messages: []llm.Message{usr("q")}}},
		{name: "anthropic/tool_choice any without thinking", d: Anthropic, accepted: true,
			req: Request{ToolChoice: llm.ToolChoice{Mode: llm.ToolRequired}, Messages: []llm.Message{usr("q")}}},

		// ANT-IMAGE-MEDIA-TYPE: base64 images are jpeg, png, gif or webp.
		// Repair relabels an image whose bytes are one of them, and does
		// not convert one that is not.
		{name: "anthropic/a BMP image", d: Anthropic,
			req:       msgs(msg(llm.RoleUser, txt("what is this?"), bmp())),
			want:      []string{"ANT-IMAGE-MEDIA-TYPE messages.0.content.1.source.media_type"},
			repairErr: []string{"ANT-IMAGE-MEDIA-TYPE"}},
		{name: "anthropic/a PNG labelled image/bmp", d: Anthropic,
			req:  msgs(msg(llm.RoleUser, llm.Image{MediaType: "image/bmp", Data: pngBytes}, txt("what is this?"))),
			want: []string{"ANT-IMAGE-MEDIA-TYPE messages.0.content.0.source.media_type"}},
		{name: "anthropic/a JPEG labelled image/jpg in a tool result", d: Anthropic,
			req: msgs(usr("q"), asst(call("toolu_1", "shot")),
				tool(llm.ToolResult{CallID: "toolu_1", Name: "shot", Status: llm.StatusSuccess, Content: []llm.Part{txt("here"), llm.Image{MediaType: "image/jpg", Data: jpegBytes}}})),
			want: []string{"ANT-IMAGE-MEDIA-TYPE messages.2.content.0.content.1.source.media_type"}},
		{name: "anthropic/the four image types and an image by URL", d: Anthropic, accepted: true,
			req: msgs(msg(llm.RoleUser, llm.Image{MediaType: "image/jpeg", Data: jpegBytes}, llm.Image{MediaType: "image/png", Data: pngBytes},
				llm.Image{MediaType: "image/gif", Data: []byte("GIF89a")}, llm.Image{MediaType: "image/webp", Data: []byte("RIFF\x00\x00\x00\x00WEBPVP8 ")},
				llm.Image{MediaType: "image/bmp", URL: "https://example.com/a.bmp"}, llm.Image{MediaType: "application/pdf", Data: []byte("%PDF-1.4")}))},
		{name: "anthropic/a BMP data URL", d: Anthropic,
			req:       msgs(msg(llm.RoleUser, llm.Image{URL: "data:image/bmp;base64,Qk0="})),
			want:      []string{"ANT-IMAGE-MEDIA-TYPE messages.0.content.0.source.media_type"},
			repairErr: []string{"ANT-IMAGE-MEDIA-TYPE"}},

		// ANT-PREFILL-TRAILING-WS: a request that ends with an assistant
		// message (a prefill) may not end its text in white space.
		{name: "anthropic/a prefill ending in a space", d: Anthropic,
			req:  msgs(usr("q"), asst(txt("The answer is "))),
			want: []string{"ANT-PREFILL-TRAILING-WS messages.1.content.0"}},
		{name: "anthropic/a prefill ending in a newline, after thinking", d: Anthropic,
			req:  msgs(usr("q"), asst(think("anthropic", "s"), txt("{\n"))),
			want: []string{"ANT-PREFILL-TRAILING-WS messages.1.content.1"}},
		{name: "anthropic/a prefill split over two assistant messages", d: Anthropic,
			req:  msgs(usr("q"), asst(txt("Sure.")), asst(txt("Here: \t"))),
			want: []string{"ANT-PREFILL-TRAILING-WS messages.2.content.0"}},
		{name: "anthropic/a prefill whose last text is white space only", d: Anthropic,
			req:  msgs(usr("q"), asst(txt("Sure."), txt("\n\n"))),
			want: []string{"ANT-PREFILL-TRAILING-WS messages.1.content.1"}},
		{name: "anthropic/a prefill without trailing white space", d: Anthropic, accepted: true,
			req: msgs(usr("q"), asst(txt("  The answer is")))},
		{name: "anthropic/white space that ends an earlier assistant message", d: Anthropic, accepted: true,
			req: msgs(usr("q"), asst(txt("hello \n")), usr("q2"))},
		{name: "anthropic/a whitespace-only prefill is one violation", d: Anthropic,
			req:  msgs(usr("q"), asst(txt(" "))),
			want: []string{"ANT-TEXT-WHITESPACE messages.1.content.0"}},

		// ANT-NONEMPTY: a user message whose only text is empty is empty.
		{name: "anthropic/a user message with empty string content", d: Anthropic,
			req:  msgs(usr("")),
			want: []string{"ANT-NONEMPTY messages.0"}},
		{name: "anthropic/a user message of empty text blocks", d: Anthropic,
			req:  msgs(usr("q"), asst(txt("a")), llm.Message{Role: llm.RoleUser, Parts: []llm.Part{txt(""), txt("")}}),
			want: []string{"ANT-NONEMPTY messages.2"}},
		{name: "anthropic/an empty text block beside an image is only an empty block", d: Anthropic,
			req:  msgs(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{txt(""), img()}}),
			want: []string{"ANT-TEXT-NONEMPTY messages.0.content.0"}},
		{name: "anthropic/an opaque block is content", d: Anthropic, accepted: true,
			req: msgs(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{antOpaque("container_upload")}})},
	}
}

// TestRepairThinkingOnlyFix checks that Repair turns extended thinking off
// only when, once the messages are repaired, the turn the request continues
// still lacks its thinking block, and says so.
func TestRepairThinkingOnlyFix(t *testing.T) {
	tests := []struct {
		name     string
		req      Request
		thinking bool   // Thinking after repair
		changes  string // "path rule action", one a line
	}{
		{
			name: "nothing but thinking can fix it",
			req:  thinkingOn(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1"))),
			changes: `messages.1.content.0 ANT-THINKING-FIRST disable-thinking
`,
		},
		{
			name: "an orphan result becomes a note, which ends the turn: thinking stays on",
			req:  thinkingOn(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1"), res("toolu_zz", "b", "2"))),
			// The note turns the last user turn into more than results.
			thinking: true,
			changes: `messages.2.content.1 ANT-NO-ORPHAN-RESULT note
`,
		},
		{
			name: "a repair that makes the request continue a turn without thinking",
			req:  thinkingOn(usr("q"), asst(call("toolu_1", "a"))),
			changes: `messages.1.content.0 ANT-RESULT-NEXT answer
thinking ANT-THINKING-FIRST disable-thinking
`,
		},
		{
			name:     "a repair elsewhere leaves a well-formed thinking loop alone",
			req:      thinkingOn(usr("q"), asst(think("anthropic", "s"), txt(""), call("toolu_1", "a")), tool(res("toolu_1", "a", "1")), asst(call("toolu_2", "b")), tool(res("toolu_2", "b", "2"))),
			thinking: true,
			changes: `messages.1.content.1 ANT-TEXT-NONEMPTY drop
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changes, err := RepairRequest(tt.req, Anthropic, nil)
			if err != nil {
				t.Fatalf("RepairRequest() error = %v", err)
			}
			if out.Thinking != tt.thinking {
				t.Errorf("RepairRequest().Thinking = %v, want %v", out.Thinking, tt.thinking)
			}
			for _, c := range changes {
				if c.Action == ActionDisableThinking && !strings.Contains(c.Reason, "the only fix") {
					t.Errorf("change %v does not say that turning thinking off is the only fix", c)
				}
			}
			if got := changeLines(changes); got != tt.changes {
				t.Errorf("RepairRequest(%q) changes =\n%s\nwant\n%s", render(tt.req.Messages), got, tt.changes)
			}
			if vs := CheckRequest(out, Anthropic); !Accepted(vs) {
				t.Errorf("CheckRequest(RepairRequest()) = %q, want accepted", ruleList(vs))
			}
		})
	}
}

// TestRepairSystemRoleByModel checks that Repair moves a system message
// after the conversation started into the top-level system field unless
// the model takes it where it is, also when Repair runs for another rule.
func TestRepairSystemRoleByModel(t *testing.T) {
	conv := []llm.Message{usr("q"), asst(txt(""), txt("a")), usr("q2"), sys("be brief")}
	for _, tt := range []struct {
		model   string
		changes string
	}{
		{"claude-opus-4-8", "messages.1.content.0 ANT-TEXT-NONEMPTY drop\n"},
		{"claude-3-5-haiku-latest", "messages.3 ANT-SYSTEM-ROLE move\nmessages.1.content.0 ANT-TEXT-NONEMPTY drop\n"},
		// No evidence either way: the top-level field is safe with every model.
		{"", "messages.3 ANT-SYSTEM-ROLE move\nmessages.1.content.0 ANT-TEXT-NONEMPTY drop\n"},
	} {
		out, changes, err := RepairRequest(Request{Model: tt.model, Messages: conv}, Anthropic, nil)
		if err != nil {
			t.Fatalf("RepairRequest(%q) error = %v", tt.model, err)
		}
		if got := changeLines(changes); got != tt.changes {
			t.Errorf("RepairRequest(model %q) changes =\n%s\nwant\n%s", tt.model, got, tt.changes)
		}
		if vs := CheckRequest(out, Anthropic); !Accepted(vs) {
			t.Errorf("CheckRequest(RepairRequest(model %q)) = %q, want accepted", tt.model, ruleList(vs))
		}
	}
}

// TestParseAntModel checks that model names of the API and of the
// platforms that serve Claude are read into their family and version.
func TestParseAntModel(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  antModel
		ok    bool
	}{
		{"claude-sonnet-4-5-20250929", antModel{"sonnet", 4, 5}, true},
		{"claude-sonnet-4-20250514", antModel{"sonnet", 4, 0}, true},
		{"claude-sonnet-4-0", antModel{"sonnet", 4, 0}, true},
		{"claude-opus-4-8", antModel{"opus", 4, 8}, true},
		{"claude-opus-5", antModel{"opus", 5, 0}, true},
		{"claude-3-5-sonnet-latest", antModel{"", 3, 5}, true},
		{"claude-3-opus-20240229", antModel{"", 3, 0}, true},
		{"claude-2.1", antModel{"", 2, 1}, true},
		{"claude-instant-1.2", antModel{"", 1, 2}, true},
		{"anthropic.claude-haiku-4-5-20251001-v1:0", antModel{"haiku", 4, 5}, true},
		{"claude-sonnet-4@20250514", antModel{"sonnet", 4, 0}, true},
		{"anthropic/claude-opus-4.8", antModel{"opus", 4, 8}, true},
		{"Claude-Opus-4-8", antModel{"opus", 4, 8}, true},
		{"claude-4-sonnet-thinking", antModel{}, false},
		{"claude-x", antModel{}, false},
		{"gpt-5", antModel{}, false},
		{"", antModel{}, false},
	} {
		got, ok := parseAntModel(tt.model)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseAntModel(%q) = %+v, %v, want %+v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
	for _, tt := range []struct {
		model string
		want  antVerdict
	}{
		{"claude-opus-4-8-20260528", antAccepts},
		{"claude-opus-4-9", antUnknown},
		{"claude-opus-5-5", antAccepts},
		{"claude-mythos-5", antAccepts},
		{"claude-opus-4-1-20250805", antUnknown},
		{"claude-opus-4-20250514", antRejects},
		{"claude-sonnet-5", antUnknown},
		{"claude-haiku-4-5", antUnknown},
		{"claude-3-haiku-20240307", antRejects},
		{"m", antUnknown},
	} {
		if got := antMidSystem(tt.model); got != tt.want {
			t.Errorf("antMidSystem(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
}

// TestRepairTextAfterCall checks where Repair moves text that follows a
// tool_use in the same assistant turn: before the turn's first tool_use
// when it was written before the results (in the call's message, or in a
// later message when the next message answers the calls), and it stays
// after, with the results put before it, when nothing answers them.
func TestRepairTextAfterCall(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		want    string
		changes string
	}{
		{
			name: "in the call's message",
			req:  msgs(asst(call("toolu_1", "get_weather"), txt("I will check the weather.")), tool(res("toolu_1", "get_weather", "72F")), usr("Use that result.")),
			want: `0 assistant: text "I will check the weather."; call toolu_1 get_weather {};
1 tool: result toolu_1 get_weather success [text "72F"];
2 user: text "Use that result.";
`,
			changes: "messages.0.content.1 ANT-RESULT-NEXT move\n",
		},
		{
			name: "after thinking, the text goes after the thinking block",
			req:  thinkingOn(usr("q"), asst(think("anthropic", "s"), call("toolu_1", "a"), txt("checking")), tool(res("toolu_1", "a", "1"))),
			want: `0 user: text "q";
1 assistant: reasoning anthropic sig="s" data=; text "checking"; call toolu_1 a {};
2 tool: result toolu_1 a success [text "1"];
`,
			changes: "messages.1.content.2 ANT-RESULT-NEXT move\n",
		},
		{
			name: "in a later message, answered: before the calls, the emptied message goes",
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), asst(txt("waiting")), tool(res("toolu_1", "a", "1"))),
			want: `0 user: text "q";
1 assistant: text "waiting"; call toolu_1 a {};
2 tool: result toolu_1 a success [text "1"];
`,
			changes: "messages.2.content.0 ANT-RESULT-NEXT move\n",
		},
		{
			name: "in a later message, unanswered: it stays after the results",
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), asst(txt("it is 18C")), usr("thanks")),
			want: `0 user: text "q";
1 assistant: call toolu_1 a {};
2 tool: result toolu_1 a error [text "{\"status\":\"error\",\"summary\":\"a was called, but no result was recorded: the run stopped before the outcome was known. Whether it took effect is unknown.\",\"error\":{\"type\":\"interrupted\",\"message\":\"a was called, but no result was recorded: the run stopped before the outcome was known. Whether it took effect is unknown.\",\"retryable\":false},\"suggestion\":\"You could check whether it took effect before calling it again or ask the user how to proceed.\",\"meta\":{\"source\":\"toolwire transcript repair\"}}"];
3 assistant: text "it is 18C";
4 user: text "thanks";
`,
			changes: "messages.1.content.0 ANT-RESULT-NEXT answer\n",
		},
		{
			name: "between calls of two later messages, answered",
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), asst(txt("and"), call("toolu_2", "b")), tool(res("toolu_1", "a", "1"), res("toolu_2", "b", "2"))),
			want: `0 user: text "q";
1 assistant: text "and"; call toolu_1 a {};
2 assistant: call toolu_2 b {};
3 tool: result toolu_1 a success [text "1"]; result toolu_2 b success [text "2"];
`,
			changes: "messages.2.content.0 ANT-RESULT-NEXT move\n",
		},
		{
			// The messages after an emptied one move up once, so what
			// follows is still repaired, and at its original paths.
			name: "several turns, each with a message left empty",
			req: msgs(usr("q"), asst(call("toolu_1", "a")), asst(txt("I will check.")), tool(res("toolu_1", "a", "1")),
				asst(call("toolu_2", "b"), txt("more")), asst(txt("and more")), tool(res("toolu_2", "b", "2")),
				asst(call("toolu_3", "c")), asst(txt("unanswered text")), usr("next")),
			want: `0 user: text "q";
1 assistant: text "I will check."; call toolu_1 a {};
2 tool: result toolu_1 a success [text "1"];
3 assistant: text "more"; text "and more"; call toolu_2 b {};
4 tool: result toolu_2 b success [text "2"];
5 assistant: call toolu_3 c {};
6 tool: result toolu_3 c error [text "{\"status\":\"error\",\"summary\":\"c was called, but no result was recorded: the run stopped before the outcome was known. Whether it took effect is unknown.\",\"error\":{\"type\":\"interrupted\",\"message\":\"c was called, but no result was recorded: the run stopped before the outcome was known. Whether it took effect is unknown.\",\"retryable\":false},\"suggestion\":\"You could check whether it took effect before calling it again or ask the user how to proceed.\",\"meta\":{\"source\":\"toolwire transcript repair\"}}"];
7 assistant: text "unanswered text";
8 user: text "next";
`,
			changes: "messages.2.content.0 ANT-RESULT-NEXT move\nmessages.4.content.1 ANT-RESULT-NEXT move\nmessages.5.content.0 ANT-RESULT-NEXT move\nmessages.7.content.0 ANT-RESULT-NEXT answer\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changes, err := RepairRequest(tt.req, Anthropic, nil)
			if err != nil {
				t.Fatalf("RepairRequest() error = %v", err)
			}
			if got := render(out.Messages); got != tt.want {
				t.Errorf("RepairRequest(%q) =\n%s\nwant\n%s", render(tt.req.Messages), got, tt.want)
			}
			if got := changeLines(changes); got != tt.changes {
				t.Errorf("RepairRequest(%q) changes =\n%s\nwant\n%s", render(tt.req.Messages), got, tt.changes)
			}
			if vs := CheckRequest(out, Anthropic); !Accepted(vs) {
				t.Errorf("CheckRequest(RepairRequest()) = %q, want accepted", ruleList(vs))
			}
		})
	}
	// The provider error is the one the Messages API gave for this shape,
	// naming the message that holds the results.
	vs := CheckRequest(msgs(asst(call("call_1", "get_weather"), txt("I will check the weather.")), tool(res("call_1", "get_weather", "72F")), usr("Use that result.")), Anthropic)
	want := "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	if len(vs) != 2 || vs[1].Rule != ruleAntResultNext || vs[1].ProviderError != want {
		t.Errorf("Check(text after tool_use) = %v, want ANT-RESULT-NEXT with %q", vs, want)
	}
}

// TestRepairEmptyUser checks that a user message whose content is the
// empty string gets the placeholder text, as one ANT-NONEMPTY change.
func TestRepairEmptyUser(t *testing.T) {
	out, changes, err := RepairRequest(msgs(usr("")), Anthropic, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := render(out.Messages), "0 user: text \"(empty)\";\n"; got != want {
		t.Errorf("RepairRequest(user \"\") = %q, want %q", got, want)
	}
	if len(changes) != 1 || changes[0].Rule != ruleAntNonEmpty || changes[0].Path != "messages.0" || changes[0].Action != ActionReplaceText {
		t.Errorf("RepairRequest(user \"\") changes = %v, want one ANT-NONEMPTY replace-text at messages.0", changes)
	}
	vs := CheckRequest(msgs(usr("")), Anthropic)
	want := "messages.0: all messages must have non-empty content except for the optional final assistant message"
	if len(vs) != 1 || vs[0].ProviderError != want {
		t.Errorf("CheckRequest(user \"\") = %v, want the provider error %q", vs, want)
	}
}

// changeLines writes changes one "path rule action" a line.
func changeLines(changes []Change) string {
	var b strings.Builder
	for _, c := range changes {
		b.WriteString(c.Path + " " + string(c.Rule) + " " + string(c.Action) + "\n")
	}
	return b.String()
}
