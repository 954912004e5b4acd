package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
)

type checkCase struct {
	name     string
	d        Dialect
	req      Request
	want     []string // "RULE path", in order; warnings end in " (warning)"
	accepted bool
	// repairErr lists the rules Repair cannot fix in this case.
	repairErr []string
}

func msgs(m ...llm.Message) Request { return Request{Messages: m} }

var strictBad = jsontext.Value(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`)

func checkCases() []checkCase {
	long41 := strings.Repeat("x", 41)
	long65 := strings.Repeat("y", 65)
	return append([]checkCase{
		// ---- OpenAI Chat Completions ----
		{name: "chat/accepted", d: OpenAIChat, accepted: true,
			req: msgs(sys("be brief"), usr("weather?"), asst(call("c1", "get_weather")), tool(res("c1", "get_weather", "18C")), asst(txt("18C")))},
		{name: "chat/parallel out of order, separate tool messages", d: OpenAIChat, accepted: true,
			req: msgs(usr("q"), asst(call("c1", "a"), call("c2", "b")), tool(res("c2", "b", "2")), tool(res("c1", "a", "1")))},
		{name: "chat/parallel out of order, one tool message", d: OpenAIChat, accepted: true,
			req: msgs(usr("q"), asst(call("c1", "a"), call("c2", "b")), tool(res("c2", "b", "2"), res("c1", "a", "1")))},
		{name: "chat/orphan call before a new user turn", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "get_weather")), usr("never mind")),
			want: []string{"OAI-CC-ANSWER-ALL messages.1"}},
		{name: "chat/user message between call and result", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a")), usr("wait"), tool(res("c1", "a", "1"))),
			want: []string{"OAI-CC-ANSWER-ALL messages.1", "OAI-CC-NO-ORPHAN-RESULT messages.3"}},
		{name: "chat/results split by a user message", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a"), call("c2", "b")), tool(res("c1", "a", "1")), usr("hurry"), tool(res("c2", "b", "2"))),
			want: []string{"OAI-CC-ANSWER-ALL messages.1", "OAI-CC-NO-ORPHAN-RESULT messages.4"}},
		{name: "chat/duplicate result", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "1")), tool(res("c1", "a", "1"))),
			want: []string{"OAI-CC-DUP-RESULT messages.3.tool_call_id"}},
		{name: "chat/conflicting duplicate result", d: OpenAIChat,
			req:       msgs(usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "1")), tool(res("c1", "a", "2"))),
			want:      []string{"OAI-CC-DUP-RESULT messages.3.tool_call_id"},
			repairErr: []string{"OAI-CC-DUP-RESULT"}},
		{name: "chat/orphan result", d: OpenAIChat,
			req:  msgs(usr("q"), tool(res("cX", "a", "1"))),
			want: []string{"OAI-CC-NO-ORPHAN-RESULT messages.1"}},
		{name: "chat/result without call id", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a")), tool(res("", "a", "1"))),
			want: []string{"OAI-CC-ANSWER-ALL messages.1", "OAI-CC-RESULT-ID-REQUIRED messages.2.tool_call_id"}},
		{name: "chat/image in tool result", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "shot")), tool(llm.ToolResult{CallID: "c1", Name: "shot", Status: llm.StatusSuccess, Content: []llm.Part{txt("here"), img()}})),
			want: []string{"OAI-CC-TOOL-IMAGE messages.2"}},
		{name: "chat/call name with a dot", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "get.weather")), tool(res("c1", "get.weather", "1"))),
			want: []string{"OAI-CC-TOOLNAME-PATTERN messages.1.tool_calls.0.function.name"}},
		{name: "chat/41-character id is a warning", d: OpenAIChat, accepted: true,
			req:  msgs(usr("q"), asst(call(long41, "a")), tool(res(long41, "a", "1"))),
			want: []string{"OAI-CC-ID-LEN messages.1.tool_calls.0.id (warning)"}},
		{name: "chat/empty assistant message", d: OpenAIChat,
			req:  msgs(usr("q"), asst(), usr("q2")),
			want: []string{"OAI-CC-NULL-CONTENT messages.1.content"}},
		{name: "chat/no messages", d: OpenAIChat,
			req:       msgs(),
			want:      []string{"OAI-CC-EMPTY-MESSAGES messages"},
			repairErr: []string{"OAI-CC-EMPTY-MESSAGES"}},
		{name: "chat/system message between call and result", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a")), sys("note"), tool(res("c1", "a", "1"))),
			want: []string{"OAI-CC-ANSWER-ALL messages.1", "OAI-CC-NO-ORPHAN-RESULT messages.3"}},
		{name: "chat/trailing text splits the tool run", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a"), call("c2", "b")), tool(res("c1", "a", "1"), txt("and then")), tool(res("c2", "b", "2"))),
			want: []string{"OAI-CC-ANSWER-ALL messages.1", "OAI-CC-NO-ORPHAN-RESULT messages.4"}},
		{name: "chat/tool definitions", d: OpenAIChat,
			req: Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "get weather"}, {Name: "ok", Strict: true, Parameters: strictBad}, {Name: strings.Repeat("n", 65)}}},
			want: []string{"OAI-CC-TOOLNAME-PATTERN tools.0.function.name", "OAI-STRICT-ADDL tools.1.function.parameters",
				"OAI-CC-TOOLNAME-LEN tools.2.function.name"}},
		{name: "chat/call id reused in a later turn", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "1")), asst(call("c1", "a")), tool(res("c1", "a", "2"))),
			want: []string{"OAI-CC-DUP-RESULT messages.4.tool_call_id"}},
		{name: "chat/tool message without results", d: OpenAIChat,
			req:  msgs(usr("q"), tool(txt("hello"))),
			want: []string{"TW-PART-PLACEMENT messages.1"}},
		{name: "chat/result inside a user message", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a")), llm.Message{Role: llm.RoleUser, Parts: []llm.Part{res("c1", "a", "1")}}),
			want: []string{"OAI-CC-ANSWER-ALL messages.1", "TW-PART-PLACEMENT messages.2.content.0"}},
		{name: "chat/is_error with several content parts", d: OpenAIChat, accepted: true,
			req: msgs(usr("q"), asst(call("c1", "a")), tool(errRes("c1", "a", txt("failed:"), txt("timeout"))))},
		{name: "chat/empty tool result", d: OpenAIChat, accepted: true,
			req: msgs(usr("q"), asst(call("c1", "a")), tool(llm.ToolResult{CallID: "c1", Name: "a", Status: llm.StatusSuccess}))},
		{name: "chat/tool result after the end of the run", d: OpenAIChat,
			req:  msgs(usr("q"), asst(call("c1", "a")), asst(txt("thinking aloud")), tool(res("c1", "a", "1"))),
			want: []string{"OAI-CC-ANSWER-ALL messages.1", "OAI-CC-NO-ORPHAN-RESULT messages.3"}},

		{name: "chat/opaque parts are content", d: OpenAIChat, accepted: true,
			req: msgs(usr("q"), asst(opq("openai-chat", "function_call", "")), usr("go on"), asst(opq("openai-chat", "audio", "")), msg(llm.RoleUser, opq("openai-chat", "input_audio", "")))},
		{name: "chat/a part without a type", d: OpenAIChat,
			req:       msgs(msg(llm.RoleUser, txt("q"), opq("openai-chat", "", ""))),
			want:      []string{"OAI-CC-PART-TYPE messages.0.content.1.type"},
			repairErr: []string{"OAI-CC-PART-TYPE"}},
		{name: "chat/a part without a type in a result", d: OpenAIChat,
			req:       msgs(usr("q"), asst(call("c1", "a")), tool(llm.ToolResult{CallID: "c1", Name: "a", Status: llm.StatusSuccess, Content: []llm.Part{opq("openai-chat", "", "")}})),
			want:      []string{"OAI-CC-PART-TYPE messages.2.content.0.type"},
			repairErr: []string{"OAI-CC-PART-TYPE"}},
		{name: "chat/two tools with one name", d: OpenAIChat, accepted: true,
			req:  Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a"}, {Name: "b"}, {Name: "a", Description: "again"}}},
			want: []string{"OAI-CC-DUP-TOOL tools.2.function.name (warning)"}},
		// ---- OpenAI Responses ----
		{name: "responses/accepted with reasoning and parallel calls", d: OpenAIResponses, accepted: true,
			req: msgs(usr("q"), asst(rsItem("rs_1"), llm.ToolCall{ID: "c1", Name: "a", ItemID: "fc_1"}, llm.ToolCall{ID: "c2", Name: "b", ItemID: "fc_2"}), tool(res("c2", "b", "2"), res("c1", "a", "1")))},
		{name: "responses/unanswered call", d: OpenAIResponses,
			req:  msgs(usr("q"), asst(call("c1", "a")), usr("next")),
			want: []string{"OAI-RS-ANSWER-ALL input.1"}},
		{name: "responses/orphan output", d: OpenAIResponses,
			req:  msgs(usr("q"), tool(res("cX", "a", "1"))),
			want: []string{"OAI-RS-NO-ORPHAN-OUTPUT input.1"}},
		{name: "responses/message between call and output is accepted", d: OpenAIResponses, accepted: true,
			req: msgs(usr("q"), asst(call("c1", "a")), usr("wait"), tool(res("c1", "a", "1")))},
		{name: "responses/duplicate output", d: OpenAIResponses,
			req:  msgs(usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "1")), tool(res("c1", "a", "1"))),
			want: []string{"OAI-RS-DUP-CALLID input.3"}},
		{name: "responses/reasoning item with nothing after it", d: OpenAIResponses,
			req:  msgs(usr("q"), asst(txt("hi"), rsItem("rs_9"))),
			want: []string{"OAI-RS-REASONING-FOLLOW input.2"}},
		{name: "responses/call_id too long", d: OpenAIResponses,
			req:  msgs(usr("q"), asst(call(long65, "a")), tool(res(long65, "a", "1"))),
			want: []string{"OAI-RS-CALLID-LEN input.1.call_id", "OAI-RS-CALLID-LEN input.2.call_id"}},
		{name: "responses/duplicate item id", d: OpenAIResponses,
			req:  msgs(usr("q"), asst(llm.ToolCall{ID: "c1", Name: "a", ItemID: "fc_1"}, llm.ToolCall{ID: "c2", Name: "a", ItemID: "fc_1"}), tool(res("c1", "a", "1"), res("c2", "a", "2"))),
			want: []string{"OAI-RS-REASONING-PAIR input.1 (warning)", "OAI-RS-REASONING-PAIR input.2 (warning)", "OAI-RS-DUP-ITEM input.2.id"}},
		{name: "responses/previous_response_id outputs", d: OpenAIResponses, accepted: true,
			req: Request{Messages: []llm.Message{tool(res("c_stored", "a", "1"))}, PreviousResponse: true}},
		{name: "responses/tools default to strict", d: OpenAIResponses,
			req:  Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a", Strict: true, Parameters: strictBad}, {Name: "b:c"}}},
			want: []string{"OAI-STRICT-ADDL tools.0.parameters", "OAI-RS-TOOLNAME-PATTERN tools.1.name"}},
		{name: "responses/call without reasoning among reasoning turns", d: OpenAIResponses, accepted: true,
			req: msgs(usr("q"), asst(rsItem("rs_1"), llm.ToolCall{ID: "c1", Name: "a", ItemID: "fc_1"}), tool(res("c1", "a", "1")),
				asst(llm.ToolCall{ID: "c2", Name: "a", ItemID: "fc_2"}), tool(res("c2", "a", "2"))),
			want: []string{"OAI-RS-REASONING-PAIR input.4 (warning)"}},
		{name: "responses/empty call ids", d: OpenAIResponses,
			req:  msgs(usr("q"), asst(call("", "a")), tool(res("", "a", "1"))),
			want: []string{"OAI-RS-CALLID-LEN input.1.call_id", "OAI-RS-CALLID-LEN input.2.call_id"}},
		{name: "responses/output before its call", d: OpenAIResponses,
			req:  msgs(usr("q"), tool(res("c1", "a", "1")), asst(call("c1", "a"))),
			want: []string{"OAI-RS-NO-ORPHAN-OUTPUT input.1", "OAI-RS-ANSWER-ALL input.2"}},

		{name: "responses/an output answers an opaque call", d: OpenAIResponses, accepted: true,
			req: msgs(usr("q"), asst(opq("openai-responses", "tool_search_call", "s1")), tool(res("s1", "", "found")))},
		// OAI-RS-REASONING-PAIR: the server knows whether a call came with a
		// reasoning item, the body does not. A call a model without
		// reasoning made earlier, replayed with its fc_ id under a model
		// that reasons, was answered 200: a warning.
		{name: "responses/a reasoning model's call without its reasoning item", d: OpenAIResponses, accepted: true,
			req:  Request{Model: "gpt-5-mini", Messages: []llm.Message{usr("q"), asst(llm.ToolCall{ID: "c1", Name: "a", Input: jsontext.Value(`{}`), ItemID: "fc_1"}), tool(res("c1", "a", "1"))}},
			want: []string{"OAI-RS-REASONING-PAIR input.1 (warning)"}},
		{name: "responses/gpt-5.1 and later reason only when asked", d: OpenAIResponses, accepted: true,
			req: Request{Model: "gpt-5.2", Messages: []llm.Message{usr("q"), asst(llm.ToolCall{ID: "c1", Name: "a", Input: jsontext.Value(`{}`), ItemID: "fc_1"}), tool(res("c1", "a", "1"))}}},
		{name: "responses/gpt-5.1 and later asked to reason", d: OpenAIResponses, accepted: true,
			req:  Request{Model: "gpt-5.4", ReasoningEffort: "low", Messages: []llm.Message{usr("q"), asst(llm.ToolCall{ID: "c1", Name: "a", Input: jsontext.Value(`{}`), ItemID: "fc_1"}), tool(res("c1", "a", "1"))}},
			want: []string{"OAI-RS-REASONING-PAIR input.1 (warning)"}},
		{name: "responses/a reasoning model's call without its reasoning item, beside another error", d: OpenAIResponses,
			req: Request{Model: "gpt-5", Messages: []llm.Message{usr("q"), asst(llm.ToolCall{ID: "c1", Name: "a", Input: jsontext.Value(`{}`), ItemID: "fc_1"}), tool(res("c1", "a", "1")),
				asst(call("c2", "b")), usr("next")}},
			want: []string{"OAI-RS-REASONING-PAIR input.1 (warning)", "OAI-RS-ANSWER-ALL input.3"}},
		{name: "responses/a model that does not reason", d: OpenAIResponses, accepted: true,
			req: Request{Model: "gpt-4o", Messages: []llm.Message{usr("q"), asst(llm.ToolCall{ID: "c1", Name: "a", Input: jsontext.Value(`{}`), ItemID: "fc_1"}), tool(res("c1", "a", "1"))}}},
		{name: "responses/a model the table does not know", d: OpenAIResponses, accepted: true,
			req:  Request{Model: "acme-1", Messages: []llm.Message{usr("q"), asst(llm.ToolCall{ID: "c1", Name: "a", Input: jsontext.Value(`{}`), ItemID: "fc_1"}), tool(res("c1", "a", "1"))}},
			want: []string{"OAI-RS-REASONING-PAIR input.1 (warning)"}},
		{name: "responses/a reasoning model continuing a stored conversation", d: OpenAIResponses, accepted: true,
			req: Request{Model: "o3", PreviousResponse: true, Messages: []llm.Message{asst(llm.ToolCall{ID: "c1", Name: "a", Input: jsontext.Value(`{}`), ItemID: "fc_1"}), tool(res("c1", "a", "1"))}}},
		{name: "responses/a reasoning model's call sent without its item id", d: OpenAIResponses, accepted: true,
			req: Request{Model: "gpt-5", Messages: []llm.Message{usr("q"), asst(call("c1", "a")), tool(res("c1", "a", "1"))}}},
		{name: "responses/two tools with one name", d: OpenAIResponses, accepted: true,
			req:  Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a"}, {Name: "a"}}},
			want: []string{"OAI-RS-DUP-TOOL tools.1.name (warning)"}},
		// ---- Anthropic ----
		{name: "anthropic/parallel results out of order", d: Anthropic, accepted: true,
			req: msgs(sys("s"), usr("q"), asst(txt("checking"), call("toolu_1", "a"), call("toolu_2", "b")), tool(res("toolu_2", "b", "2"), res("toolu_1", "a", "1")))},
		{name: "anthropic/results split over two user messages", d: Anthropic, accepted: true,
			req: msgs(usr("q"), asst(call("toolu_1", "a"), call("toolu_2", "b")), tool(res("toolu_1", "a", "1")), tool(res("toolu_2", "b", "2")))},
		{name: "anthropic/resumed interrupt: human message before the result", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), usr("are you done?"), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-RESULT-FIRST messages.3.content.0"}},
		{name: "anthropic/orphan call before a new user turn", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), usr("new question")),
			want: []string{"ANT-RESULT-NEXT messages.1"}},
		{name: "anthropic/orphan result", d: Anthropic,
			req:  msgs(usr("q"), asst(txt("hi")), tool(res("toolu_x", "a", "1"))),
			want: []string{"ANT-NO-ORPHAN-RESULT messages.2.content.0"}},
		{name: "anthropic/result two turns late", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), usr("hm"), asst(txt("waiting")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-RESULT-NEXT messages.1", "ANT-NO-ORPHAN-RESULT messages.4.content.0"}},
		{name: "anthropic/duplicate results", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1"), res("toolu_1", "a", "1"))),
			want: []string{"ANT-SINGLE-RESULT messages.2.content.1"}},
		// ANT-UNIQUE-TOOLUSE-ID: the recorded 400s point at duplicates in
		// one assistant message; an id a later message reuses, each use
		// answered, was answered 200.
		{name: "anthropic/tool_use id reused in a later assistant message", d: Anthropic, accepted: true,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1")), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "2"))),
			want: []string{"ANT-UNIQUE-TOOLUSE-ID messages.3.content.0.id (warning)"}},
		{name: "anthropic/duplicate tool_use ids in one assistant message", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a"), call("toolu_1", "b")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-RESULT-NEXT messages.1", "ANT-UNIQUE-TOOLUSE-ID messages.1.content.1.id"}},
		{name: "anthropic/duplicate tool_use ids in one merged assistant turn", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), asst(call("toolu_1", "b")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-RESULT-NEXT messages.2", "ANT-UNIQUE-TOOLUSE-ID messages.2.content.0.id"}},
		{name: "anthropic/a reused id rewritten only where it repeats in its turn", d: Anthropic,
			req: msgs(usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1")),
				asst(call("toolu_1", "a"), call("toolu_1", "b")), tool(res("toolu_1", "a", "2"))),
			want: []string{"ANT-RESULT-NEXT messages.3", "ANT-UNIQUE-TOOLUSE-ID messages.3.content.0.id (warning)", "ANT-UNIQUE-TOOLUSE-ID messages.3.content.1.id"}},
		{name: "anthropic/id from another provider", d: Anthropic,
			req:  msgs(usr("q"), asst(call("call.1|x", "a")), tool(res("call.1|x", "a", "1"))),
			want: []string{"ANT-ID-PATTERN messages.1.content.0.id"}},
		{name: "anthropic/empty text block before tool_use", d: Anthropic,
			req:  msgs(usr("q"), asst(txt(""), call("toolu_1", "a")), tool(res("toolu_1", "a", "1"))),
			want: []string{"ANT-TEXT-NONEMPTY messages.1.content.0"}},
		{name: "anthropic/whitespace-only user message", d: Anthropic,
			req:  msgs(usr("  \n")),
			want: []string{"ANT-TEXT-WHITESPACE messages.0.content.0"}},
		{name: "anthropic/whitespace text with tool_use is accepted", d: Anthropic, accepted: true,
			req: msgs(usr("q"), asst(txt("\n\n"), call("toolu_1", "a")), tool(res("toolu_1", "a", "1")))},
		{name: "anthropic/empty user message", d: Anthropic,
			req:  msgs(llm.Message{Role: llm.RoleUser}, asst(txt("hi"))),
			want: []string{"ANT-USER-NONEMPTY messages.0"}},
		{name: "anthropic/system message mid-conversation", d: Anthropic,
			// A model from before mid-conversation system messages (ANT-SYSTEM-ROLE is keyed on the model).
			req:  Request{Model: "claude-3-5-sonnet-20241022", Messages: []llm.Message{sys("s"), usr("q"), asst(txt("a")), sys("be terse"), usr("q2")}},
			want: []string{"ANT-SYSTEM-ROLE messages.2"}},
		{name: "anthropic/thinking on, last tool_use without thinking", d: Anthropic,
			req:  Request{Messages: []llm.Message{usr("q"), asst(call("toolu_1", "a")), tool(res("toolu_1", "a", "1"))}, Thinking: true},
			want: []string{"ANT-THINKING-FIRST messages.1.content.0"}},
		{name: "anthropic/thinking on, thinking first", d: Anthropic, accepted: true,
			req: Request{Messages: []llm.Message{usr("q"), asst(think("anthropic", "sig"), call("toolu_1", "a")), tool(res("toolu_1", "a", "1"))}, Thinking: true}},
		{name: "anthropic/first message from the assistant", d: Anthropic, accepted: true,
			req:  msgs(asst(txt("hello")), usr("hi")),
			want: []string{"ANT-FIRST-USER messages.0 (warning)"}},
		{name: "anthropic/empty result and is_error with blocks", d: Anthropic, accepted: true,
			req: msgs(usr("q"), asst(call("toolu_1", "a"), call("toolu_2", "b")),
				tool(llm.ToolResult{CallID: "toolu_1", Name: "a", Status: llm.StatusSuccess}, errRes("toolu_2", "b", txt("failed"), img())))},
		{name: "anthropic/tool names", d: Anthropic,
			req:  Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a.b"}, {Name: strings.Repeat("n", 100)}}},
			want: []string{"ANT-TOOLNAME tools.0.name", "ANT-TOOLNAME tools.1.name (warning)"}},
		{name: "anthropic/text before results in a tool message", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a")), tool(txt("here you go"), res("toolu_1", "a", "1"))),
			want: []string{"ANT-RESULT-FIRST messages.2.content.1"}},
		{name: "anthropic/calls in two consecutive assistant messages", d: Anthropic, accepted: true,
			req: msgs(usr("q"), asst(call("toolu_1", "a")), asst(call("toolu_2", "b")), tool(res("toolu_1", "a", "1"), res("toolu_2", "b", "2")))},
		{name: "anthropic/transcript ends with a tool_use", d: Anthropic,
			req:  msgs(usr("q"), asst(call("toolu_1", "a"))),
			want: []string{"ANT-RESULT-NEXT messages.1"}},
		{name: "anthropic/only a system prompt", d: Anthropic,
			req:       msgs(sys("s")),
			want:      []string{"ANT-EMPTY-MESSAGES messages"},
			repairErr: []string{"ANT-EMPTY-MESSAGES"}},

		{name: "anthropic/a tool defined twice", d: Anthropic,
			req:  Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a"}, {Name: "b"}, {Name: "a"}}},
			want: []string{"ANT-DUP-TOOL tools.2.name"}},
		{name: "anthropic/two tools with one name", d: Anthropic,
			req:       Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a"}, {Name: "a", Description: "another"}}},
			want:      []string{"ANT-DUP-TOOL tools.1.name"},
			repairErr: []string{"ANT-DUP-TOOL"}},
		// ---- Gemini ----
		{name: "gemini/accepted", d: Gemini, accepted: true,
			req: msgs(sys("s"), usr("q"), asst(call("", "get_weather")), tool(res("", "get_weather", "18C")), asst(txt("18C")))},
		// The Gemini API joins consecutive contents of one role into one
		// turn before it pairs calls and responses; Vertex AI rejects
		// responses split over several contents (a warning: a body does not
		// say its endpoint).
		{name: "gemini/responses split over two contents", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(call("f1", "a"), call("f2", "b")), tool(res("f1", "a", "1")), tool(res("f2", "b", "2"))),
			want: []string{"GEM-SAME-ROLE contents.3 (warning)"}},
		{name: "gemini/responses split over three contents, then text", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(call("", "a"), call("", "b"), call("", "c")), tool(res("", "a", "1")), tool(res("", "b", "2")), tool(res("", "c", "3")), usr("go on")),
			want: []string{"GEM-SAME-ROLE contents.3 (warning)", "GEM-SAME-ROLE contents.4 (warning)", "GEM-SAME-ROLE contents.5 (warning)"}},
		{name: "gemini/parallel calls split over two model contents", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(call("f1", "a")), asst(call("f2", "b")), tool(res("f1", "a", "1"), res("f2", "b", "2"))),
			want: []string{"GEM-SAME-ROLE contents.2 (warning)"}},
		{name: "gemini/user text joins the responses after it", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(call("f1", "a")), usr("wait"), tool(res("f1", "a", "1"))),
			want: []string{"GEM-SAME-ROLE contents.3 (warning)"}},
		{name: "gemini/responses split by a model turn", d: Gemini,
			req:  msgs(usr("q"), asst(call("f1", "a"), call("f2", "b")), tool(res("f1", "a", "1")), asst(txt("waiting")), tool(res("f2", "b", "2"))),
			want: []string{"GEM-RESP-COUNT contents.2", "GEM-RESP-AFTER-CALL contents.4"}},
		{name: "gemini/split responses one short", d: Gemini,
			req:  msgs(usr("q"), asst(call("f1", "a"), call("f2", "b")), tool(res("f1", "a", "1")), usr("hurry")),
			want: []string{"GEM-RESP-COUNT contents.2", "GEM-SAME-ROLE contents.3 (warning)"}},
		{name: "gemini/history starts with a function call", d: Gemini,
			req:  msgs(asst(call("", "a")), tool(res("", "a", "1")), asst(txt("done"))),
			want: []string{"GEM-CALL-AFTER-USER contents.0"}},
		{name: "gemini/history starts with model text, then a function call", d: Gemini,
			req:  msgs(asst(txt("hello")), asst(call("", "a")), tool(res("", "a", "1"))),
			want: []string{"GEM-SAME-ROLE contents.1 (warning)", "GEM-CALL-AFTER-USER contents.1"}},
		{name: "gemini/model text turn before the call turn", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(txt("let me see")), asst(call("", "a")), tool(res("", "a", "1"))),
			want: []string{"GEM-SAME-ROLE contents.2 (warning)"}},
		// One content mixing calls and responses (GEM-NO-MIX): Repair
		// splits it by author.
		{name: "gemini/a model content holds a call and its response", d: Gemini,
			req:  msgs(usr("q"), asst(call("f1", "a"), res("f1", "a", "1")), asst(txt("done"))),
			want: []string{"GEM-NO-MIX contents.1"}},
		{name: "gemini/a user content holds text, a call and its response", d: Gemini,
			req:  msgs(tool(txt("weather in Boston?"), call("", "get_weather"), res("", "get_weather", "18C"))),
			want: []string{"GEM-NO-MIX contents.0"}},
		{name: "gemini/a mixed model content ends with the model's answer", d: Gemini,
			req:  msgs(usr("q"), asst(gsig("s"), call("", "a"), res("", "a", "1"), txt("it is 1")), usr("thanks")),
			want: []string{"GEM-NO-MIX contents.1"}},
		{name: "gemini/a mixed content answers a call of the turn before", d: Gemini,
			req:  msgs(usr("q"), asst(call("f1", "a")), tool(res("f1", "a", "1"), call("f2", "b"), res("f2", "b", "2"))),
			want: []string{"GEM-NO-MIX contents.2"}},
		// Parts the llm form does not model are content.
		{name: "gemini/opaque parts are content", d: Gemini, accepted: true,
			req: msgs(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{gopaque("videoMetadata")}},
				asst(gopaque("toolCall"), gopaque("toolResponse"), txt("found it")))},
		{name: "gemini/responses out of call order", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(call("", "a"), call("", "b")), tool(res("", "b", "2"), res("", "a", "1"))),
			want: []string{"GEM-ORDER contents.2 (warning)"}},
		{name: "gemini/response names another function", d: Gemini,
			req:  msgs(usr("q"), asst(call("f1", "a")), tool(res("f1", "b", "1"))),
			want: []string{"GEM-RESP-MATCH contents.2.parts.0.functionResponse.name"}},
		{name: "gemini/duplicate response", d: Gemini,
			req:  msgs(usr("q"), asst(call("f1", "a")), tool(res("f1", "a", "1"), res("f1", "a", "1"))),
			want: []string{"GEM-RESP-COUNT contents.2", "GEM-RESP-MATCH contents.2.parts.1"}},
		// GEM-THOUGHT-SIG: Gemini 3 wants the signature on the first call
		// of every step since the last user content that is not function
		// responses; Gemini 2.5 does not, and a body does not name its model.
		// Repair gives such a call Google's placeholder signature
		// (GEM-THOUGHT-SIG-PLACEHOLDER).
		{name: "gemini/missing thought signature in the current turn", d: Gemini,
			req:  Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(call("", "b")), tool(res("", "b", "2"))}},
			want: []string{"GEM-THOUGHT-SIG contents.3.parts.0"}},
		{name: "gemini/an earlier step of the current turn lacks its signature", d: Gemini,
			req:  Request{Model: "models/gemini-3-flash-preview", Messages: []llm.Message{usr("q"), asst(txt("first a"), call("", "a")), tool(res("", "a", "1")), asst(gsig("s2"), call("", "b")), tool(res("", "b", "2"))}},
			want: []string{"GEM-THOUGHT-SIG contents.1.parts.1"}},
		{name: "gemini/Gemini 3 without any signature", d: Gemini,
			req:  Request{Model: "gemini-3.1-pro", Messages: []llm.Message{usr("q"), asst(call("", "a")), tool(res("", "a", "1"))}},
			want: []string{"GEM-THOUGHT-SIG contents.1.parts.0"}},
		{name: "gemini/missing thought signature, model unknown", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(call("", "b")), tool(res("", "b", "2"))),
			want: []string{"GEM-THOUGHT-SIG contents.3.parts.0 (warning)"}},
		{name: "gemini/missing thought signature on Gemini 2.5", d: Gemini, accepted: true,
			req: Request{Model: "gemini-2.5-flash", Messages: []llm.Message{usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(call("", "b")), tool(res("", "b", "2"))}}},
		{name: "gemini/responses with text do not start a turn", d: Gemini,
			req:  Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{usr("q"), asst(call("", "a")), tool(res("", "a", "1"), txt("also b")), asst(gsig("s"), call("", "b")), tool(res("", "b", "2"))}},
			want: []string{"GEM-THOUGHT-SIG contents.1.parts.0"}},
		{name: "gemini/one signature signs a step split over two contents", d: Gemini, accepted: true,
			req:  Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{usr("q"), asst(gsig("s"), call("", "a")), asst(call("", "b")), tool(res("", "a", "1"), res("", "b", "2"))}},
			want: []string{"GEM-SAME-ROLE contents.2 (warning)"}},
		{name: "gemini/thought signatures present", d: Gemini, accepted: true,
			req: msgs(usr("q"), asst(gsig("s1"), call("", "a")), tool(res("", "a", "1")), asst(gsig("s2"), call("", "b")), tool(res("", "b", "2")))},
		{name: "gemini/unsigned call in an earlier turn", d: Gemini, accepted: true,
			req: msgs(usr("q"), asst(call("", "a")), tool(res("", "a", "1")), asst(txt("ok")), usr("again"), asst(gsig("s"), call("", "a")), tool(res("", "a", "2")))},
		{name: "gemini/empty model content", d: Gemini,
			req:  msgs(usr("q"), asst(), usr("q2")),
			want: []string{"GEM-PARTS-NONEMPTY contents.1.parts"}},
		{name: "gemini/system message mid-conversation", d: Gemini,
			req:  msgs(sys("s"), usr("q"), sys("later"), usr("q2")),
			want: []string{"GEM-SYSTEM-PLACEMENT contents.1", "GEM-SAME-ROLE contents.2 (warning)"}},
		{name: "gemini/function name", d: Gemini,
			req:  Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "1tool"}, {Name: "ns.tool:v1"}}},
			want: []string{"GEM-NAME tools.0.functionDeclarations.0.name"}},
		{name: "gemini/image in a function response", d: Gemini, accepted: true,
			req:  msgs(usr("q"), asst(call("", "shot")), tool(llm.ToolResult{Name: "shot", Status: llm.StatusSuccess, Content: []llm.Part{img()}})),
			want: []string{"GEM-MULTIMODAL-RESP contents.2.parts.0 (warning)"}},
		{name: "gemini/image in a function response on Gemini 3", d: Gemini, accepted: true,
			req: Request{Model: "gemini-3-flash-preview", Messages: []llm.Message{usr("q"), asst(gsig("s"), call("", "shot")), tool(llm.ToolResult{Name: "shot", Status: llm.StatusSuccess, Content: []llm.Part{img()}})}}},
		{name: "gemini/image in a function response on Gemini 2.5", d: Gemini,
			req:       Request{Model: "gemini-2.5-pro", Messages: []llm.Message{usr("q"), asst(call("", "shot")), tool(llm.ToolResult{Name: "shot", Status: llm.StatusSuccess, Content: []llm.Part{img()}})}},
			want:      []string{"GEM-MULTIMODAL-RESP contents.2.parts.0"},
			repairErr: []string{"GEM-MULTIMODAL-RESP"}},
		// A model content whose text comes before a response: the response
		// opens a user turn inside the first content (Check used to panic).
		{name: "gemini/a model content with text, then a response", d: Gemini,
			req:  msgs(asst(txt("hi"), res("c1", "a", "1"))),
			want: []string{"GEM-RESP-AFTER-CALL contents.0", "TW-PART-PLACEMENT contents.0.parts.1"}},
		// GEM-CACHED-PREFIX: with cachedContent, the contents continue the
		// cached ones, which may hold the call a leading response answers.
		{name: "gemini/contents start with a function response", d: Gemini,
			req:  msgs(tool(res("", "a", "1")), asst(txt("done"))),
			want: []string{"GEM-RESP-AFTER-CALL contents.0"}},
		{name: "gemini/cached content: contents start with a function response", d: Gemini, accepted: true,
			req:  Request{CachedContent: true, Messages: []llm.Message{tool(res("", "a", "1")), asst(txt("done")), usr("thanks")}},
			want: []string{"GEM-CACHED-PREFIX contents.0 (warning)"}},
		{name: "gemini/cached content: contents start with a function call", d: Gemini, accepted: true,
			req:  Request{CachedContent: true, Messages: []llm.Message{asst(call("", "a")), tool(res("", "a", "1"))}},
			want: []string{"GEM-CACHED-PREFIX contents.0 (warning)"}},
		{name: "gemini/cached content: a leading response stays when Repair runs", d: Gemini,
			req:  Request{CachedContent: true, Messages: []llm.Message{tool(res("", "a", "1")), asst(txt("done")), usr("next"), asst(call("", "b")), usr("never mind")}},
			want: []string{"GEM-CACHED-PREFIX contents.0 (warning)", "GEM-RESP-COUNT contents.3"}},
		{name: "gemini/cached content: no user turn is inserted before a leading call when Repair runs", d: Gemini,
			req:  Request{CachedContent: true, Messages: []llm.Message{asst(call("", "a")), tool(res("", "a", "1")), usr("q"), asst(call("", "b")), usr("x")}},
			want: []string{"GEM-CACHED-PREFIX contents.0 (warning)", "GEM-SAME-ROLE contents.2 (warning)", "GEM-RESP-COUNT contents.3"}},
		{name: "gemini/cached content: a response after a model turn without calls is no prefix", d: Gemini,
			req:  Request{CachedContent: true, Messages: []llm.Message{asst(txt("hi")), tool(res("", "a", "1"))}},
			want: []string{"GEM-RESP-AFTER-CALL contents.1"}},
		{name: "gemini/orphan response", d: Gemini,
			req:  msgs(usr("q"), tool(res("", "a", "1"))),
			want: []string{"GEM-RESP-AFTER-CALL contents.1"}},
		{name: "gemini/unanswered call at the end", d: Gemini,
			req:  msgs(usr("q"), asst(call("", "a"))),
			want: []string{"GEM-RESP-COUNT contents.1"}},
		{name: "gemini/a function declared twice", d: Gemini,
			req:  Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a"}, {Name: "a"}}},
			want: []string{"GEM-DUP-TOOL tools.0.functionDeclarations.1.name"}},
		{name: "gemini/two functions with one name", d: Gemini,
			req:       Request{Messages: []llm.Message{usr("q")}, Tools: []llm.ToolSpec{{Name: "a"}, {Name: "a", Description: "another"}}},
			want:      []string{"GEM-DUP-TOOL tools.0.functionDeclarations.1.name"},
			repairErr: []string{"GEM-DUP-TOOL"}},
	}, anthropicCases()...)
}

func ruleList(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		s := string(v.Rule) + " " + v.Path
		if v.Warning {
			s += " (warning)"
		}
		out = append(out, s)
	}
	return out
}

func TestCheck(t *testing.T) {
	for _, tt := range checkCases() {
		t.Run(tt.name, func(t *testing.T) {
			vs := CheckRequest(tt.req, tt.d)
			if got := ruleList(vs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CheckRequest(%s) = %q, want %q\ntranscript:\n%s\n%s", tt.d, got, tt.want, render(tt.req.Messages), renderViolations(vs))
			}
			if got := Accepted(vs); got != tt.accepted {
				t.Errorf("Accepted(CheckRequest(%s)) = %v, want %v", tt.d, got, tt.accepted)
			}
			for _, v := range vs {
				if v.Message == "" || v.Path == "" {
					t.Errorf("violation %v has an empty message or path", v)
				}
			}
		})
	}
}

// TestRepairCases repairs every table case: the result passes Check, and
// an accepted transcript comes back unchanged.
func TestRepairCases(t *testing.T) {
	for _, tt := range checkCases() {
		t.Run(tt.name, func(t *testing.T) {
			out, changes, err := RepairRequest(tt.req, tt.d, nil)
			if tt.accepted {
				if err != nil || len(changes) != 0 || !reflect.DeepEqual(out, tt.req) {
					t.Errorf("RepairRequest(accepted) = %d changes, err %v; want no change", len(changes), err)
				}
				return
			}
			if len(tt.repairErr) > 0 {
				var re *RepairError
				if !errors.As(err, &re) {
					t.Fatalf("RepairRequest() error = %v, want a *RepairError with %v", err, tt.repairErr)
				}
				for _, want := range tt.repairErr {
					found := false
					for _, p := range re.Problems {
						found = found || p.Rule == RuleID(want)
					}
					if !found {
						t.Errorf("RepairRequest() problems = %v, want one with rule %s", re.Problems, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("RepairRequest() error = %v\ntranscript:\n%s", err, render(tt.req.Messages))
			}
			if len(changes) == 0 {
				t.Errorf("RepairRequest() made no change to a rejected transcript")
			}
			if vs := CheckRequest(out, tt.d); !Accepted(vs) {
				t.Errorf("CheckRequest(RepairRequest()) = %q, want accepted\nrepaired:\n%s", ruleList(vs), render(out.Messages))
			}
			again, more, err := RepairRequest(out, tt.d, nil)
			if err != nil || len(more) != 0 || !reflect.DeepEqual(again, out) {
				t.Errorf("RepairRequest(RepairRequest()) made %d more changes (err %v), want none", len(more), err)
			}
		})
	}
}

// TestDialectRulesReported checks that every rule a dialect's value names
// for Check to report is one that Check reports, on a table case of that
// dialect: a rule ID in the value that no transcript can trigger is a
// mistake in the value.
func TestDialectRulesReported(t *testing.T) {
	reported := map[Dialect]map[RuleID]bool{}
	for _, tt := range checkCases() {
		if reported[tt.d] == nil {
			reported[tt.d] = map[RuleID]bool{}
		}
		for _, v := range CheckRequest(tt.req, tt.d) {
			reported[tt.d][v.Rule] = true
		}
	}
	for _, d := range dialects {
		rules := map[string]RuleID{
			"unanswered": d.unanswered, "orphan": d.orphan, "duplicate": d.duplicate,
			"late": d.late, "foreign": d.foreign, "resultFirst": d.resultFirst,
			"noMix": d.noMix, "firstUser": d.firstUser, "ids.invalid": d.ids.invalid,
			"ids.missing": d.ids.missing, "ids.tooLong": d.ids.tooLong, "ids.reused": d.ids.reused,
			"nameRule": d.nameRule, "emptyRule": d.emptyRule, "resultImages": d.resultImages,
			"lateSystem": d.lateSystem, "dupTool": d.dupTool.rule, "thinking": d.thinking,
		}
		for field, rule := range rules {
			if rule != "" && !reported[d.name][rule] {
				t.Errorf("%s: %s is %s, which no %s case reports", d.name, field, rule, d.name)
			}
		}
	}
}

// TestGolden holds each table case against its file under
// testdata/cases: one txtar archive per case, with the request ("input"),
// CheckRequest's violations with their messages and provider errors
// ("check"), and for a rejected case the repaired messages ("repaired"),
// RepairRequest's changes ("changes") and its error ("error", when it
// fails). Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	seen := map[string]string{}
	for _, tt := range checkCases() {
		path := filepath.Join("testdata", "cases", caseFile(tt.name))
		if other, ok := seen[path]; ok {
			t.Fatalf("cases %q and %q share the file %s", other, tt.name, path)
		}
		seen[path] = tt.name
		t.Run(tt.name, func(t *testing.T) {
			if golden.Updating() {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(path); err != nil {
					if err := os.WriteFile(path, []byte(tt.name+" ("+string(tt.d)+")\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			golden.CheckFile(t, path, "input", []byte(renderRequest(tt.req)))
			golden.CheckFile(t, path, "check", []byte(renderViolations(CheckRequest(tt.req, tt.d))))
			if tt.accepted {
				return
			}
			out, changes, err := RepairRequest(tt.req, tt.d, nil)
			golden.CheckFile(t, path, "repaired", []byte(renderRequest(out)))
			golden.CheckFile(t, path, "changes", []byte(renderChanges(changes)))
			if err != nil {
				golden.CheckFile(t, path, "error", []byte(err.Error()+"\n"))
			}
		})
	}
}

// TestQuietCheck holds the check Repair runs first, which writes no
// explanations, to the full one: the same rules at the same paths, with
// the same warnings.
func TestQuietCheck(t *testing.T) {
	type found struct {
		rule    RuleID
		path    string
		warning bool
	}
	what := func(vs []Violation) []found {
		out := make([]found, len(vs))
		for k, v := range vs {
			out[k] = found{v.Rule, v.Path, v.Warning}
		}
		return out
	}
	for _, tt := range checkCases() {
		got, want := what(check(tt.req, rulesOf(tt.d), true).out), what(CheckRequest(tt.req, tt.d))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: quiet check = %v, want %v", tt.name, got, want)
		}
	}
}

// caseFile names the golden file of the case called name:
// "chat/orphan result" is chat/orphan-result.txtar.
func caseFile(name string) string {
	dir, rest, _ := strings.Cut(name, "/")
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(rest) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return filepath.Join(dir, strings.TrimSuffix(b.String(), "-")+".txtar")
}

// renderRequest writes r's messages as render does, after the settings
// and tools that change the rules.
func renderRequest(r Request) string {
	var b strings.Builder
	if r.Model != "" {
		b.WriteString("model " + r.Model + "\n")
	}
	if r.ReasoningEffort != "" {
		b.WriteString("reasoning effort " + r.ReasoningEffort + "\n")
	}
	if r.Thinking {
		b.WriteString("thinking on\n")
	}
	if tc := r.ToolChoice; tc != (llm.ToolChoice{}) {
		fmt.Fprintf(&b, "tool choice %q %q\n", tc.Mode, tc.Name)
	}
	if r.PreviousResponse {
		b.WriteString("continues a stored response\n")
	}
	if r.CachedContent {
		b.WriteString("continues cached content\n")
	}
	for k, tl := range r.Tools {
		fmt.Fprintf(&b, "tool %d %q strict=%v %s\n", k, tl.Name, tl.Strict, string(tl.Parameters))
	}
	b.WriteString(render(r.Messages))
	return b.String()
}

func TestCheckUnknownDialect(t *testing.T) {
	vs := Check([]llm.Message{usr("q")}, "cohere")
	if len(vs) != 1 || vs[0].Rule != "TW-DIALECT" {
		t.Errorf("Check(cohere) = %v, want one TW-DIALECT violation", vs)
	}
	if _, _, err := Repair([]llm.Message{usr("q")}, "cohere", nil); err == nil {
		t.Errorf("Repair(cohere) error = nil, want an error")
	}
}

func TestProviderErrorFilled(t *testing.T) {
	vs := Check([]llm.Message{usr("q"), asst(call("call_a", "x"), call("call_b", "y")), tool(res("call_a", "x", "1"))}, OpenAIChat)
	want := "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b"
	if len(vs) != 1 || vs[0].ProviderError != want {
		t.Errorf("Check() provider error = %q, want %q", ruleList(vs), want)
	}
	vs = Check([]llm.Message{usr("q"), asst(call("toolu_a", "x"), call("toolu_b", "y")), usr("stop")}, Anthropic)
	want = "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_b. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	if len(vs) != 1 || vs[0].ProviderError != want {
		t.Errorf("Check() provider error = %v, want %q", vs, want)
	}
}

// TestComparePaths holds the wire order of paths: top-level fields by
// rank, numeric segments as numbers and before names, a path before the
// paths inside it.
func TestComparePaths(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int // the sign
	}{
		{"messages.2", "messages.2", 0},
		{"messages.2", "messages.10", -1},
		{"messages.10", "messages.2", 1},
		{"messages.2", "messages.2.content", -1},
		{"messages.2.content.1", "messages.2", 1},
		{"messages.2.0", "messages.2.content", -1},
		{"messages.2.content", "messages.2.tool_calls", -1},
		{"system", "messages.0", -1},
		{"systemInstruction.parts.0", "contents.0", -1},
		{"tools.0.name", "messages.9", 1},
		{"input.3.id", "input.3.call_id", 1},
		{"", "messages.0", 1},
	} {
		got := comparePaths(tt.a, tt.b)
		if got > 0 {
			got = 1
		} else if got < 0 {
			got = -1
		}
		if got != tt.want {
			t.Errorf("comparePaths(%q, %q) = %d, want the sign %d", tt.a, tt.b, got, tt.want)
		}
	}
}
