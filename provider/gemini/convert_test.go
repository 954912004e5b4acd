package gemini

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// fromAnthropic is a transcript as another dialect's codec decodes it:
// results without a name, thinking blocks, a result with an image, text
// results that are not JSON, an input that is not an object.
func fromAnthropic() *Request {
	return &Request{
		Messages: []llm.Message{
			llm.System("You are a helpful assistant."),
			llm.User("Weather in Paris, and a picture of it?"),
			llm.Assistant(
				llm.Reasoning{Provider: "anthropic", Text: "Two calls.", Signature: "EqQB"},
				llm.ToolCall{ID: "toolu_01", Name: "get_weather", Input: []byte(`{"city": "Paris"}`)},
				llm.ToolCall{ID: "call.2|x", Name: "photo", Input: []byte(`not json`), ItemID: "fc_9"},
			),
			llm.Tool(
				llm.ToolResult{CallID: "toolu_01", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}, llm.Text{Text: "sunny"}}},
				llm.ToolResult{CallID: "call.2|x", Status: llm.StatusError, Content: []llm.Part{
					llm.Text{Text: `{"code":503}`},
					llm.Image{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8}},
					llm.Image{URL: "https://example.com/paris.jpg"},
				}},
				llm.ToolResult{CallID: "nobody", Status: llm.StatusPartial},
			),
			llm.Assistant(llm.Reasoning{Provider: string(Dialect), Signature: "orphan"}),
			llm.System("Late system note."),
			llm.Assistant(llm.Text{Text: "It is 18C."}),
		},
		Tools: []llm.ToolSpec{
			{Name: "get_weather", Description: "Weather for a city.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`), Strict: true},
			{Name: "photo"},
		},
	}
}

// TestConvert checks what Encode changes in messages from another dialect,
// and that it says so.
func TestConvert(t *testing.T) {
	enc := codectest.Convert(t, tested, fromAnthropic(), filepath.Join("testdata", "convert_from_anthropic.txtar"))
	back, err := Decode(enc)
	if err != nil {
		t.Fatalf("Decode(Encode) error: %v", err)
	}
	res := back.Messages[3].ToolResults()
	if res[0].Name != "get_weather" || res[1].Name != "photo" || !res[1].IsError() {
		t.Errorf("Decode(Encode) results = %+v, want names get_weather, photo and the second an error", res)
	}
	again, _, _ := Encode(fromAnthropic())
	if !bytes.Equal(enc, again) {
		t.Errorf("Encode is not deterministic:\n%s\n%s", enc, again)
	}
}

// TestEncodeErrors checks the few Requests that cannot be written.
func TestEncodeErrors(t *testing.T) {
	codectest.EncodeErrors(t, tested, []struct {
		R    *Request
		Want string
	}{
		{nil, "gemini: encode: nil Request"},
		{&Request{Messages: []llm.Message{{Role: "robot"}}}, `gemini: encode: Messages[0]: unknown role "robot"`},
		{&Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{nil}}}}, "gemini: encode: Messages[0].Parts[0]: a nil part cannot be encoded"},
		{&Request{Fields: []Field{{Key: "generationConfig", Value: []byte(`{`)}}}, "gemini: encode: Fields[0] (generationConfig): value is not valid JSON"},
		{&Request{Fields: []Field{{Key: "tools"}, {Key: "tools"}}}, `gemini: encode: Fields[1]: field "tools" repeats`},
	})
}

// TestBare checks that what a bare array cannot hold is reported.
func TestBare(t *testing.T) {
	r := &Request{Bare: true, Messages: []llm.Message{llm.System("s"), llm.User("u")}, Tools: []llm.ToolSpec{{Name: "f"}}}
	enc, warns, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","parts":[{"text":"s"}]},{"role":"user","parts":[{"text":"u"}]}]`
	if string(enc) != want {
		t.Errorf("Encode(bare) = %s, want %s", enc, want)
	}
	if len(warns) != 2 {
		t.Errorf("Encode(bare) warnings = %v, want 2 (tools, system)", warns)
	}
}
