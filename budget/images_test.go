package budget_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

// TestShapedImagesPerDialect shapes a screenshot for each dialect and
// checks that it is sent the way that dialect accepts: an image part
// where tool results take images, a description (never base64 or a path
// in text) where they do not, and a body the provider accepts.
func TestShapedImagesPerDialect(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 32, 24))); err != nil {
		t.Fatal(err)
	}
	shot := buf.Bytes()
	tab := budget.DefaultTable()
	tests := []struct {
		d        transcript.Dialect
		model    string
		policy   toolresult.ImagePolicy
		inWire   string // what the encoded body holds for the image
		notWire  string
		warnings []string // Check warnings expected
	}{
		{transcript.OpenAIChat, "gpt-4o", toolresult.DescribeImages, `an image that is not shown here: image/png`, `image_url`, nil},
		{transcript.OpenAIResponses, "gpt-5", toolresult.InlineImages, `"type":"input_image"`, "", nil},
		{transcript.Anthropic, "claude-sonnet-4-5", toolresult.InlineImages, `"type":"image","source":{"type":"base64","media_type":"image/png"`, "", nil},
		{transcript.Gemini, "gemini-3-pro", toolresult.InlineImages, `"inlineData":{"mimeType":"image/png"`, "", []string{"GEM-MULTIMODAL-RESP"}},
		{transcript.Gemini, "gemini-2.5-flash", toolresult.DescribeImages, `an image that is not shown here`, `inlineData`, nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.d)+"/"+tt.model, func(t *testing.T) {
			l, ok := tab.Lookup(tt.model)
			if !ok {
				t.Fatalf("no limits for %s", tt.model)
			}
			policy := budget.ImagePolicy(tt.d, l)
			if policy != tt.policy {
				t.Fatalf("ImagePolicy(%s, %s) = %s, want %s", tt.d, tt.model, policy, tt.policy)
			}
			sh, _ := toolresult.NewShaper(budget.Estimator{}, toolresult.NewMemoryStore(0), nil)
			out, err := sh.Shape(context.Background(), toolresult.Success("screenshot(url=https://example.com)", toolresult.Raw(shot)), toolresult.Request{Tool: "screenshot", Images: policy})
			if err != nil {
				t.Fatal(err)
			}
			res := out.Result("call_1", "screenshot")
			msgs := []llm.Message{
				llm.User("Take a screenshot of example.com."),
				llm.Assistant(llm.ToolCall{ID: "call_1", Name: "screenshot", Input: []byte(`{"url":"https://example.com"}`)}),
				llm.Tool(res),
			}
			vs := transcript.Check(msgs, tt.d)
			var warnings []string
			for _, v := range vs {
				if !v.Warning {
					t.Errorf("Check(%s) rejects the shaped image: %s %s", tt.d, v.Rule, v.Message)
				}
				warnings = append(warnings, string(v.Rule))
			}
			if strings.Join(warnings, ",") != strings.Join(tt.warnings, ",") {
				t.Errorf("Check(%s) warnings = %v, want %v", tt.d, warnings, tt.warnings)
			}
			text := res.Content[0].(llm.Text).Text
			if strings.Contains(text, "iVBOR") || strings.Contains(text, "/tmp") {
				t.Errorf("the envelope holds image bytes or a path: %s", text)
			}
			var body []byte
			switch tt.d {
			case transcript.OpenAIChat:
				body, _, err = openai.EncodeChat(&openai.ChatRequest{Messages: msgs})
			case transcript.OpenAIResponses:
				body, _, err = openai.EncodeResponses(&openai.ResponsesRequest{Messages: msgs})
			case transcript.Anthropic:
				body, _, err = anthropic.Encode(&anthropic.Request{Messages: msgs})
			case transcript.Gemini:
				body, _, err = gemini.Encode(&gemini.Request{Messages: msgs})
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(body), tt.inWire) {
				t.Errorf("%s body does not hold %s:\n%s", tt.d, tt.inWire, body)
			}
			if tt.notWire != "" && strings.Contains(string(body), tt.notWire) {
				t.Errorf("%s body holds %s:\n%s", tt.d, tt.notWire, body)
			}
		})
	}
}
