package transcript_test

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// An agent was interrupted after the model called two tools in parallel:
// only one result was recorded, and the user spoke next.
func interrupted() []llm.Message {
	args := jsontext.Value(`{"city":"Paris"}`)
	return []llm.Message{
		llm.User("Weather in Paris and Berlin?"),
		llm.Assistant(
			llm.ToolCall{ID: "call_paris", Name: "get_weather", Input: args},
			llm.ToolCall{ID: "call_berlin", Name: "get_weather", Input: args},
		),
		llm.Tool(llm.ToolResult{CallID: "call_paris", Name: "get_weather", Status: llm.StatusSuccess,
			Content: []llm.Part{llm.Text{Text: "18C"}}}),
		llm.User("Are you still there?"),
	}
}

func ExampleCheck() {
	for _, v := range transcript.Check(interrupted(), transcript.OpenAIChat) {
		fmt.Println(v.Path, v.Rule)
		fmt.Println(v.ProviderError)
	}
	for _, v := range transcript.Check(interrupted(), transcript.Anthropic) {
		fmt.Println(v.Path, v.Rule)
	}
	// Output:
	// messages.1 OAI-CC-ANSWER-ALL
	// An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_berlin
	// messages.1 ANT-RESULT-NEXT
}

func ExampleRepair() {
	fixed, changes, err := transcript.Repair(interrupted(), transcript.Anthropic, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range changes {
		fmt.Println(c.Path, c.Rule, c.Action)
	}
	added := fixed[2].ToolResults()[1]
	fmt.Println(added.CallID, added.Status)
	fmt.Println(transcript.Accepted(transcript.Check(fixed, transcript.Anthropic)))
	// Output:
	// messages.1.content.1 ANT-RESULT-NEXT answer
	// call_berlin error
	// true
}

func ExampleRepair_strip() {
	fixed, changes, _ := transcript.Repair(interrupted(), transcript.OpenAIChat, &transcript.Policy{Unanswered: transcript.StripCall})
	fmt.Println(changes[0].Action, len(fixed[1].ToolCalls()))
	// Output:
	// strip-call 1
}

func ExampleLayout() {
	msgs := []llm.Message{
		llm.System("Be brief."),
		llm.User("Weather?"),
		llm.Assistant(llm.Text{Text: "Checking."}, llm.ToolCall{ID: "c1", Name: "get_weather"}),
		llm.Tool(llm.ToolResult{CallID: "c1", Name: "get_weather", Status: llm.StatusSuccess}),
	}
	for _, d := range transcript.Dialects() {
		m := transcript.Layout(msgs, d)
		fmt.Printf("%s: system %s, call %s, result %s\n", d, m.Message(0).Path, m.Part(2, 1).Path, m.Part(3, 0).Path)
	}
	// Output:
	// openai-chat: system messages.0, call messages.2.tool_calls.0, result messages.3
	// openai-responses: system input.0, call input.3, result input.4
	// anthropic: system system, call messages.1.content.1, result messages.2.content.0
	// gemini: system systemInstruction, call contents.1.parts.1, result contents.2.parts.0
}

func ExampleCheckStrictSchema() {
	schema := jsontext.Value(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`)
	for _, v := range transcript.CheckStrictSchema("forecast", schema, "tools.0.function.parameters") {
		fmt.Println(v.Rule, v.Path)
	}
	// Output:
	// OAI-STRICT-ADDL tools.0.function.parameters
	// OAI-STRICT-REQUIRED tools.0.function.parameters
}
