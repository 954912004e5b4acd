package codectest

import (
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// The transcripts here come from another dialect's codec. The codecs'
// conversion tests and the official-SDK oracle tests (the nested module
// provider/internal/sdkcompat) share them, so that both judge the same
// bodies.

// png is the start of a PNG file: enough for an image part.
var png = []byte("\x89PNG\r\n\x1a\n")

// FromAnthropic is a transcript as the Anthropic codec decodes it: text
// before and after calls, an is_error result with plain text, an image in a
// result, trailing text after the results, and thinking.
func FromAnthropic() []llm.Message {
	return []llm.Message{
		llm.System("Be careful."),
		llm.User("Weather in Paris, and chart it."),
		llm.Assistant(
			llm.Reasoning{Provider: "anthropic", Text: "Two tools.", Signature: "EqQBCkgIARAB"},
			llm.Text{Text: "Checking."},
			llm.ToolCall{ID: "toolu_01A", Name: "get_weather", Input: jsontext.Value(`{"city":"Paris"}`)},
			llm.ToolCall{ID: "toolu_01B", Name: "chart", Input: jsontext.Value(`{"series":"temp"}`)},
		),
		{Role: llm.RoleTool, Parts: []llm.Part{
			llm.ToolResult{CallID: "toolu_01A", Name: "get_weather", Status: llm.StatusError, Content: []llm.Part{llm.Text{Text: "station offline"}}},
			llm.ToolResult{CallID: "toolu_01B", Name: "chart", Status: llm.StatusSuccess, Content: []llm.Part{llm.Image{MediaType: "image/png", Data: png}}},
			llm.Text{Text: "Also, use Celsius."},
		}},
		llm.Assistant(llm.Text{Text: "The station is offline; "}, llm.ToolCall{ID: "toolu_01C", Name: "retry", Input: nil}, llm.Text{Text: "retrying."}),
		llm.Tool(toolresult.Failure(toolresult.Interrupted, "the run stopped before the result came back; the outcome is unknown").Result("toolu_01C", "retry")),
	}
}

// FromOpenAI is a transcript as an OpenAI codec decodes it, and its tools:
// ids with characters Anthropic rejects, an id-less call, arguments that
// are not a JSON object, foreign reasoning, a data URL and an audio clip.
func FromOpenAI() ([]llm.Message, []llm.ToolSpec) {
	msgs := []llm.Message{
		llm.System("You are a helpful assistant."),
		llm.System("Answer in French."),
		{Role: llm.RoleUser, Parts: []llm.Part{
			llm.Text{Text: "Weather in Paris, and what is in this picture?"},
			llm.Image{URL: "data:image/png;base64,iVBORw0KGgo="},
		}},
		llm.Assistant(
			llm.Reasoning{Provider: "openai-responses", Data: []byte(`{"type":"reasoning","id":"rs_1","summary":[]}`)},
			llm.Text{Text: "Checking."},
			llm.ToolCall{ID: "call.abc|1", Name: "get_weather", Input: []byte(`{"city": "Paris"}`), ItemID: "fc_1"},
			llm.ToolCall{ID: "call_2", Name: "describe", Input: []byte(`{"image": 0`)},
			llm.ToolCall{Name: "now", Input: nil},
		),
		llm.Tool(
			llm.ToolResult{CallID: "call.abc|1", Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}},
			llm.ToolResult{CallID: "call_2", Name: "describe", Status: llm.StatusError, Content: []llm.Part{llm.Text{Text: "bad arguments"}}},
			llm.ToolResult{Name: "now", Status: llm.StatusPartial, Content: []llm.Part{
				llm.Text{Text: "clock skew"},
				llm.Image{MediaType: "audio/wav", Data: []byte("RIFF")},
				llm.Image{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8}},
			}},
		),
		llm.Assistant(llm.Reasoning{Provider: "gemini", Signature: "c2ln"}, llm.Text{Text: "Il fait 18 °C."}),
	}
	tools := []llm.ToolSpec{
		{Name: "get_weather", Description: "Weather for a city.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`), Strict: true},
		{Name: "now"},
	}
	return msgs, tools
}

// A Named is a request body and the name a test reports it by.
type Named struct {
	Name, Body string
}

// GeminiWithoutIDs returns Gemini request bodies whose calls have no ids
// (functionCall.id is optional) or ids OpenAI refuses.
func GeminiWithoutIDs() []Named {
	return []Named{
		{
			Name: "parallel calls answered in order",
			Body: `{"contents":[{"role":"user","parts":[{"text":"Paris and Rome?"}]},` +
				`{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Paris"}}},{"functionCall":{"name":"weather","args":{"city":"Rome"}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"output":"18C"}}},{"functionResponse":{"name":"weather","response":{"output":"22C"}}}]},` +
				`{"role":"model","parts":[{"text":"18C and 22C."}]}]}`,
		},
		{
			Name: "answered out of order, split over two contents, next to a taken id",
			Body: `{"contents":[{"role":"user","parts":[{"text":"q"}]},` +
				`{"role":"model","parts":[{"functionCall":{"id":"call_1_1","name":"a","args":{}}},{"functionCall":{"name":"b","args":{}}},{"functionCall":{"name":"c","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"call_1_1","name":"a","response":{"output":"A"}}},{"functionResponse":{"name":"c","response":{"output":"C"}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"b","response":{"output":"B"}}}]}]}`,
		},
		{
			Name: "an id longer than Responses takes",
			Body: `{"contents":[{"role":"user","parts":[{"text":"q"}]},` +
				`{"role":"model","parts":[{"functionCall":{"id":"` + strings.Repeat("x", 70) + `","name":"a","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"` + strings.Repeat("x", 70) + `","name":"a","response":{"output":"A"}}}]}]}`,
		},
	}
}
