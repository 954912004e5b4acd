package llm_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolwire/toolwire/llm"
)

// Fragments of two parallel tool calls arrive interleaved, the way OpenAI
// streams them: routed by index, id and name only on the first fragment.
func ExampleAccumulator() {
	var acc llm.Accumulator
	for _, ev := range []llm.Event{
		llm.TextDelta{Text: "Let me check."},
		llm.ToolCallDelta{Index: 0, ID: "call_1", Name: "get_weather"},
		llm.ToolCallDelta{Index: 1, ID: "call_2", Name: "get_time"},
		llm.ToolCallDelta{Index: 0, Arguments: `{"city":`},
		llm.ToolCallDelta{Index: 1, Arguments: `{"tz":"Europe/Paris"}`},
		llm.ToolCallDelta{Index: 0, Arguments: `"Paris"}`},
		llm.Finish{Reason: llm.FinishToolCalls},
	} {
		acc.Add(ev)
	}
	msg, err := acc.Message()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.Text())
	for _, c := range msg.ToolCalls() {
		fmt.Printf("%s %s %s\n", c.ID, c.Name, c.Input)
	}
	// Output:
	// Let me check.
	// call_1 get_weather {"city":"Paris"}
	// call_2 get_time {"tz":"Europe/Paris"}
}

// A stream cut off by the token limit leaves a call whose arguments end
// mid-JSON: it is reported, not passed on as if it were whole.
func ExampleAccumulator_incomplete() {
	var acc llm.Accumulator
	acc.Add(llm.ToolCallDelta{Index: 0, ID: "call_1", Name: "write_file", Arguments: `{"path":"a.txt","text":"Hel`})
	acc.Add(llm.Finish{Reason: llm.FinishLength})
	_, err := acc.Message()
	var ie *llm.IncompleteError
	if errors.As(err, &ie) {
		fmt.Println(ie.Calls[0].ID, ie.Calls[0].Problem)
	}
	// Output:
	// call_1 arguments end mid-JSON
}

func ExampleConversation() {
	conv := llm.Conversation{Messages: []llm.Message{
		llm.User("Weather in Paris?"),
		llm.Assistant(llm.ToolCall{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}),
		llm.Tool(llm.ToolResult{CallID: "call_1", Name: "get_weather", Status: llm.StatusSuccess,
			Content: []llm.Part{llm.Text{Text: "18°C, sunny"}}}),
	}}
	b, _ := json.Marshal(conv)
	fmt.Println(string(b))

	var back llm.Conversation
	err := json.Unmarshal([]byte(`{"version":1,"messages":[{"role":"tool","parts":[{"type":"tool_result","name":"get_weather","status":"success"}]}]}`), &back)
	fmt.Println(err)
	// Output:
	// {"version":1,"messages":[{"role":"user","parts":[{"type":"text","text":"Weather in Paris?"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","input":{"city":"Paris"}}]},{"role":"tool","parts":[{"type":"tool_result","call_id":"call_1","name":"get_weather","status":"success","content":[{"type":"text","text":"18°C, sunny"}]}]}]}
	// llm: decode conversation: messages[0].parts[0].call_id: missing: a tool result must name the call it answers
}
