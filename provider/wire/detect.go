package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/transcript"
)

// A Detection is the dialect [Detect] found and why.
type Detection struct {
	Dialect transcript.Dialect
	// Reason names the shape that decided, as in
	// `"messages" with tool_use content blocks`.
	Reason string
}

// Detect guesses the dialect of a request body (or a bare message array)
// from its shape. An error says why data is not a body of any dialect.
func Detect(data []byte) (Detection, error) {
	d, why, err := sniff(data)
	return Detection{Dialect: d, Reason: why}, err
}

// sniff guesses the dialect of a request body from its shape and says why.
func sniff(data []byte) (transcript.Dialect, string, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "", "", fmt.Errorf("empty input: want a provider request body (a JSON object) or a bare message array")
	}
	switch data[0] {
	case '[':
		var items []map[string]json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return "", "", fmt.Errorf("not a JSON array of objects: %v", err)
		}
		return sniffItems(items, "a bare array")
	case '{':
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return "", "", fmt.Errorf("not valid JSON: %v", err)
		}
		switch {
		case top["contents"] != nil || top["systemInstruction"] != nil || top["system_instruction"] != nil:
			return transcript.Gemini, `a "contents" field`, nil
		case top["input"] != nil || top["instructions"] != nil || top["previous_response_id"] != nil:
			return transcript.OpenAIResponses, `an "input" field`, nil
		case top["messages"] != nil:
			if top["system"] != nil {
				return transcript.Anthropic, `"messages" with a top-level "system" field`, nil
			}
			if top["thinking"] != nil {
				return transcript.Anthropic, `"messages" with a top-level "thinking" field`, nil
			}
			var items []map[string]json.RawMessage
			if json.Unmarshal(top["messages"], &items) != nil {
				return transcript.OpenAIChat, `a "messages" field`, nil
			}
			d, why, err := sniffItems(items, `"messages"`)
			if err == nil && strings.Contains(why, "ambiguous") {
				var model string
				_ = json.Unmarshal(top["model"], &model)
				switch {
				case bytes.Contains(top["tools"], []byte(`"input_schema"`)):
					return transcript.Anthropic, `tools with "input_schema"`, nil
				case strings.HasPrefix(model, "claude"):
					return transcript.Anthropic, fmt.Sprintf("model %q", model), nil
				}
			}
			return d, why, err
		}
		return "", "", fmt.Errorf(`a JSON object without "messages", "input" or "contents": not a request body toolwire knows; give --dialect`)
	}
	return "", "", fmt.Errorf("not a JSON object or array (starts with %q)", data[0])
}

// sniffItems guesses the dialect of a message or item array.
func sniffItems(items []map[string]json.RawMessage, what string) (transcript.Dialect, string, error) {
	for i, it := range items {
		if i >= 200 {
			break
		}
		var role, typ string
		_ = json.Unmarshal(it["role"], &role)
		_ = json.Unmarshal(it["type"], &typ)
		switch {
		case typ == "function_call" || typ == "function_call_output" || typ == "reasoning" || typ == "message" || typ == "item_reference":
			return transcript.OpenAIResponses, fmt.Sprintf("%s with %q items", what, typ), nil
		case it["parts"] != nil || role == "model":
			return transcript.Gemini, fmt.Sprintf("%s of contents with \"parts\"", what), nil
		case role == "tool" || it["tool_calls"] != nil || role == "developer" || role == "function":
			return transcript.OpenAIChat, fmt.Sprintf("%s with OpenAI tool messages or tool_calls", what), nil
		}
		if c := it["content"]; len(c) > 0 && c[0] == '[' {
			for _, t := range []string{"tool_use", "tool_result", "thinking", "redacted_thinking"} {
				if bytes.Contains(c, []byte(`"type":"`+t+`"`)) || bytes.Contains(c, []byte(`"type": "`+t+`"`)) {
					return transcript.Anthropic, fmt.Sprintf("%s with %s content blocks", what, t), nil
				}
			}
			for _, t := range []string{"input_text", "output_text", "input_image"} {
				if bytes.Contains(c, []byte(`"`+t+`"`)) {
					return transcript.OpenAIResponses, fmt.Sprintf("%s with %s content", what, t), nil
				}
			}
			if bytes.Contains(c, []byte(`"image_url"`)) {
				return transcript.OpenAIChat, fmt.Sprintf("%s with image_url parts", what), nil
			}
		}
	}
	return transcript.OpenAIChat, fmt.Sprintf("%s of plain user/assistant messages (ambiguous: give --dialect if this is not Chat Completions)", what), nil
}
