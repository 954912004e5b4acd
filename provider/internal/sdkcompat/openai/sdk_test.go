package openai

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	tw "github.com/toolwire/toolwire/provider/openai"
)

// The official SDK checks that the shapes the codecs write are the SDK's
// request param types, field for field.

// testdata is provider/openai's test data.
var testdata = filepath.Join("..", "..", "..", "openai", "testdata")

// sdkRoundTrip unmarshals body into the SDK's request param type and
// marshals it back; the result must say the same as body.
func sdkRoundTrip(t *testing.T, dialect string, body []byte) {
	t.Helper()
	var back []byte
	var err error
	switch dialect {
	case "chat":
		var p openai.ChatCompletionNewParams
		if err = json.Unmarshal(body, &p); err == nil {
			back, err = json.Marshal(p)
		}
	case "responses":
		var p responses.ResponseNewParams
		if err = json.Unmarshal(body, &p); err == nil {
			back, err = json.Marshal(p)
		}
	}
	if err != nil {
		t.Fatalf("SDK %s round trip of %s: %v", dialect, body, err)
	}
	if got, want := sdkNormal(t, back), sdkNormal(t, body); !reflect.DeepEqual(got, want) {
		t.Errorf("SDK %s round trip changed the body\n ours: %s\n sdk:  %s", dialect, body, back)
	}
}

// sdkNormal parses JSON for a semantic comparison. Three normalizations: the
// SDK writes the required tool_call_id of a tool message as "" when a body
// (one that breaks OAI-CC-RESULT-ID-REQUIRED) has none; its
// ResponseInputItemParamOfMessage leaves out "type":"message", which the
// codec always writes (the SDK's own unmarshaller drops an input list with
// an untyped item); and it reads an assistant message item as an
// EasyInputMessageParam, which has no id, status or phase, and drops them
// (the API takes them: recorded traffic replays output messages with their
// ids, and the codec carries such an item as opaque data).
func sdkNormal(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("parse %s: %v", b, err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["role"] == "tool" && v["tool_call_id"] == "" {
				delete(v, "tool_call_id")
			}
			if _, typed := v["type"]; !typed && v["content"] != nil && (v["role"] == "user" || v["role"] == "assistant" || v["role"] == "system" || v["role"] == "developer") {
				v["type"] = "message"
			}
			if v["type"] == "message" && v["role"] == "assistant" {
				delete(v, "id")
				delete(v, "status")
				delete(v, "phase")
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return v
}

// canonical re-encodes a test body from its llm form alone, without the
// wire data kept from the body: the shapes the codec itself writes.
func canonical(t *testing.T, dialect string, body []byte) []byte {
	t.Helper()
	var out []byte
	var err error
	switch dialect {
	case "chat":
		r, derr := tw.DecodeChat(body)
		if derr != nil {
			t.Fatal(derr)
		}
		out, _, err = tw.EncodeChat(&tw.ChatRequest{Messages: r.Messages, Tools: r.Tools, Fields: r.Fields, SystemRole: r.SystemRole})
	case "responses":
		r, derr := tw.DecodeResponses(body)
		if derr != nil {
			t.Fatal(derr)
		}
		out, _, err = tw.EncodeResponses(&tw.ResponsesRequest{Messages: r.Messages, Tools: r.Tools, Fields: r.Fields, SystemRole: r.SystemRole,
			Instructions: r.Instructions, PreviousResponseID: r.PreviousResponseID})
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"model"`) {
		out = append([]byte(`{"model":"gpt-4o",`), out[1:]...)
	}
	return out
}

func TestSDKAcceptsOurBodies(t *testing.T) {
	for _, dialect := range []string{"chat", "responses"} {
		files, _ := filepath.Glob(filepath.Join(testdata, dialect, "*.txtar"))
		if len(files) == 0 {
			t.Fatalf("no %s test bodies in %s", dialect, testdata)
		}
		for _, file := range files {
			t.Run(dialect+"/"+filepath.Base(file), func(t *testing.T) {
				body := codectest.Input(t, file)
				sdkRoundTrip(t, dialect, canonical(t, dialect, body))
			})
		}
	}
	t.Run("conversions", func(t *testing.T) {
		chat, _, err := tw.EncodeChat(&tw.ChatRequest{Messages: codectest.FromAnthropic(), Fields: []tw.Field{{Key: "model", Value: []byte(`"gpt-4o"`)}}})
		if err != nil {
			t.Fatal(err)
		}
		sdkRoundTrip(t, "chat", chat)
		rs, _, err := tw.EncodeResponses(&tw.ResponsesRequest{Messages: codectest.FromAnthropic(), Fields: []tw.Field{{Key: "model", Value: []byte(`"gpt-5"`)}},
			Tools: []llm.ToolSpec{{Name: "chart", Description: "Charts a series.", Parameters: jsontext.Value(`{"type":"object","properties":{"series":{"type":"string"}}}`)}}})
		if err != nil {
			t.Fatal(err)
		}
		sdkRoundTrip(t, "responses", rs)
	})
	t.Run("conversions from gemini", func(t *testing.T) {
		for _, g := range codectest.GeminiWithoutIDs() {
			src, err := gemini.Decode([]byte(g.Body))
			if err != nil {
				t.Fatal(err)
			}
			chat, _, err := tw.EncodeChat(&tw.ChatRequest{Messages: src.Messages, Fields: []tw.Field{{Key: "model", Value: []byte(`"gpt-4o"`)}}})
			if err != nil {
				t.Fatal(err)
			}
			sdkRoundTrip(t, "chat", chat)
			rs, _, err := tw.EncodeResponses(&tw.ResponsesRequest{Messages: src.Messages, Fields: []tw.Field{{Key: "model", Value: []byte(`"gpt-5"`)}}})
			if err != nil {
				t.Fatal(err)
			}
			sdkRoundTrip(t, "responses", rs)
		}
	})
}

// TestDecodeSDKBodies builds requests with the SDK's constructors and checks
// that they decode to the expected llm form and encode back to the same
// JSON.
func TestDecodeSDKBodies(t *testing.T) {
	t.Run("chat", func(t *testing.T) {
		p := openai.ChatCompletionNewParams{
			Model: "gpt-4.1", // a plain string: the SDK marks its model constants deprecated as models retire
			Messages: []openai.ChatCompletionMessageParamUnion{
				openai.SystemMessage("Be brief."),
				openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
					openai.TextContentPart("What is this?"),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "https://example.com/x.png"}),
				}),
				{OfAssistant: &openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{
					{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: "call_1",
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "look", Arguments: `{"q":"x"}`}}},
					{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: "call_2",
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "look", Arguments: `{"q":"y"}`}}},
				}}},
				openai.ToolMessage("a cat", "call_2"),
				openai.ToolMessage("a dog", "call_1"),
				openai.AssistantMessage("A cat and a dog."),
			},
			Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
				Name: "look", Description: openai.String("Looks."), Strict: openai.Bool(true),
				Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}},
			})},
		}
		body, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := tw.DecodeChat(body)
		if err != nil {
			t.Fatalf("DecodeChat(SDK body %s) = %v", body, err)
		}
		want := []llm.Message{
			llm.System("Be brief."),
			{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: "What is this?"}, llm.Image{URL: "https://example.com/x.png"}}},
			llm.Assistant(llm.ToolCall{ID: "call_1", Name: "look", Input: jsontext.Value(`{"q":"x"}`)}, llm.ToolCall{ID: "call_2", Name: "look", Input: jsontext.Value(`{"q":"y"}`)}),
			llm.Tool(
				llm.ToolResult{CallID: "call_2", Name: "look", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "a cat"}}},
				llm.ToolResult{CallID: "call_1", Name: "look", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "a dog"}}}),
			llm.Assistant(llm.Text{Text: "A cat and a dog."}),
		}
		if !reflect.DeepEqual(r.Messages, want) {
			t.Errorf("DecodeChat(SDK body) messages =\n%#v\nwant\n%#v", r.Messages, want)
		}
		if len(r.Tools) != 1 || r.Tools[0].Name != "look" || !r.Tools[0].Strict {
			t.Errorf("DecodeChat(SDK body) tools = %#v, want look, strict", r.Tools)
		}
		out, _, err := tw.EncodeChat(r)
		if err != nil {
			t.Fatal(err)
		}
		if got, w := sdkNormal(t, out), sdkNormal(t, body); !reflect.DeepEqual(got, w) {
			t.Errorf("EncodeChat(DecodeChat(SDK body)) =\n%s\nwant (up to key order)\n%s", out, body)
		}
	})
	t.Run("responses", func(t *testing.T) {
		output := responses.ResponseInputItemParamOfFunctionCallOutput("18C")
		output.OfFunctionCallOutput.CallID = openai.String("call_w")
		call := responses.ResponseInputItemParamOfFunctionCall(`{"city":"Paris"}`, "call_w", "weather")
		call.OfFunctionCall.ID = openai.String("fc_1")
		p := responses.ResponseNewParams{
			Model:        shared.ResponsesModel("gpt-5"),
			Instructions: openai.String("Be brief."),
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
				responses.ResponseInputItemParamOfMessage("Weather in Paris?", responses.EasyInputMessageRoleUser),
				call,
				output,
			}},
			Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("weather",
				map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}, "additionalProperties": false}, true)},
		}
		body, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := tw.DecodeResponses(body)
		if err != nil {
			t.Fatalf("DecodeResponses(SDK body %s) = %v", body, err)
		}
		want := []llm.Message{
			llm.User("Weather in Paris?"),
			llm.Assistant(llm.ToolCall{ID: "call_w", Name: "weather", Input: jsontext.Value(`{"city":"Paris"}`), ItemID: "fc_1"}),
			llm.Tool(llm.ToolResult{CallID: "call_w", Name: "weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}}),
		}
		if !reflect.DeepEqual(r.Messages, want) {
			t.Errorf("DecodeResponses(SDK body) messages =\n%#v\nwant\n%#v", r.Messages, want)
		}
		if r.Instructions != "Be brief." || len(r.Tools) != 1 || !r.Tools[0].Strict {
			t.Errorf("DecodeResponses(SDK body) instructions, tools = %q, %#v", r.Instructions, r.Tools)
		}
		out, _, err := tw.EncodeResponses(r)
		if err != nil {
			t.Fatal(err)
		}
		if got, w := sdkNormal(t, out), sdkNormal(t, body); !reflect.DeepEqual(got, w) {
			t.Errorf("EncodeResponses(DecodeResponses(SDK body)) =\n%s\nwant (up to key order)\n%s", out, body)
		}
	})
}
