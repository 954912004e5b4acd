package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/transcript"
)

// body is a decoded request body of some dialect: the codec's own request
// type, behind the few operations check and convert need.
type body interface {
	// request returns what transcript checks.
	request() transcript.Request
	// wire returns the violations the codec found while decoding.
	wire() []transcript.Violation
	// set replaces the messages, tools and thinking flag, keeping the
	// body's other fields.
	set(r transcript.Request)
	// encode writes the body back.
	encode() ([]byte, []transcript.Warning, error)
	// fixWire makes encode write what wire lists in a form the provider
	// accepts rather than as it was (the OpenAI codecs always do).
	fixWire()
	// extras names what the body holds beyond messages and tools: its other
	// top-level fields and the unmodeled parts a conversion loses.
	extras() (fields []string, lost []transcript.Warning)
	bare() bool
	// bodyPath translates a path computed from the decoded llm form (as
	// transcript computes them) into the path of the same value in the
	// body, which differ where the body holds what the llm form skips.
	bodyPath(path string) string
}

// conversation returns what a conversion carries over: the request, with
// Responses instructions as a leading system message.
func conversation(b body) transcript.Request {
	r := b.request()
	if rb, ok := b.(responsesBody); ok && rb.r.Instructions != "" {
		r.Messages = append([]llm.Message{llm.System(rb.r.Instructions)}, r.Messages...)
	}
	return r
}

// decodeBody decodes data as a request body of dialect d.
func decodeBody(data []byte, d transcript.Dialect) (body, error) {
	switch d {
	case transcript.OpenAIChat:
		r, err := openai.DecodeChat(data)
		if err != nil {
			return nil, err
		}
		return chatBody{r}, nil
	case transcript.OpenAIResponses:
		r, err := openai.DecodeResponses(data)
		if err != nil {
			return nil, err
		}
		return responsesBody{r}, nil
	case transcript.Anthropic:
		r, err := anthropic.Decode(data)
		if err != nil {
			return nil, err
		}
		return anthropicBody{r}, nil
	case transcript.Gemini:
		r, err := gemini.Decode(data)
		if err != nil {
			return nil, err
		}
		return geminiBody{r}, nil
	}
	return nil, fmt.Errorf("unknown dialect %q", d)
}

// newBody returns an empty body of dialect d holding r.
func newBody(d transcript.Dialect, r transcript.Request, bare bool) body {
	var b body
	switch d {
	case transcript.OpenAIChat:
		b = chatBody{&openai.ChatRequest{Bare: bare}}
	case transcript.OpenAIResponses:
		b = responsesBody{&openai.ResponsesRequest{Bare: bare}}
	case transcript.Anthropic:
		b = anthropicBody{&anthropic.Request{Bare: bare}}
	default:
		b = geminiBody{&gemini.Request{Bare: bare}}
	}
	b.set(r)
	return b
}

type chatBody struct{ r *openai.ChatRequest }

func (b chatBody) request() transcript.Request {
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools}
}
func (b chatBody) wire() []transcript.Violation { return b.r.Wire }
func (b chatBody) set(r transcript.Request)     { b.r.Messages, b.r.Tools = r.Messages, r.Tools }
func (b chatBody) encode() ([]byte, []transcript.Warning, error) {
	return openai.EncodeChat(b.r)
}
func (b chatBody) extras() ([]string, []transcript.Warning) {
	var keys []string
	for _, f := range b.r.Fields {
		keys = append(keys, f.Key)
	}
	return keys, b.r.Unmodeled
}
func (b chatBody) fixWire()                 {}
func (b chatBody) bare() bool               { return b.r.Bare }
func (b chatBody) bodyPath(p string) string { return b.r.BodyPath(p) }

type responsesBody struct{ r *openai.ResponsesRequest }

func (b responsesBody) request() transcript.Request {
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools, PreviousResponse: b.r.PreviousResponseID != ""}
}
func (b responsesBody) wire() []transcript.Violation { return b.r.Wire }
func (b responsesBody) set(r transcript.Request)     { b.r.Messages, b.r.Tools = r.Messages, r.Tools }
func (b responsesBody) encode() ([]byte, []transcript.Warning, error) {
	return openai.EncodeResponses(b.r)
}
func (b responsesBody) extras() ([]string, []transcript.Warning) {
	var keys []string
	for _, f := range b.r.Fields {
		keys = append(keys, f.Key)
	}
	if b.r.PreviousResponseID != "" {
		keys = append(keys, "previous_response_id")
	}
	return keys, b.r.Unmodeled
}
func (b responsesBody) fixWire()                 {}
func (b responsesBody) bare() bool               { return b.r.Bare }
func (b responsesBody) bodyPath(p string) string { return b.r.BodyPath(p) }

type anthropicBody struct{ r *anthropic.Request }

func (b anthropicBody) request() transcript.Request {
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools, Thinking: b.r.Thinking}
}
func (b anthropicBody) wire() []transcript.Violation { return b.r.Wire }
func (b anthropicBody) set(r transcript.Request) {
	b.r.Messages, b.r.Tools = r.Messages, r.Tools
	if b.r.Thinking && !r.Thinking {
		// Repair turned thinking off: drop the body's thinking field.
		fields := b.r.Fields[:0:0]
		for _, f := range b.r.Fields {
			if f.Key != "thinking" {
				fields = append(fields, f)
			}
		}
		b.r.Fields = fields
	}
	b.r.Thinking = r.Thinking
}
func (b anthropicBody) encode() ([]byte, []transcript.Warning, error) { return anthropic.Encode(b.r) }
func (b anthropicBody) extras() ([]string, []transcript.Warning) {
	var keys []string
	for _, f := range b.r.Fields {
		if f.Value != nil {
			keys = append(keys, f.Key)
		}
	}
	return keys, b.r.Unmodeled
}
func (b anthropicBody) fixWire()                 { b.r.FixWire = true }
func (b anthropicBody) bare() bool               { return b.r.Bare }
func (b anthropicBody) bodyPath(p string) string { return b.r.BodyPath(p) }

type geminiBody struct{ r *gemini.Request }

func (b geminiBody) request() transcript.Request {
	return transcript.Request{Messages: b.r.Messages, Tools: b.r.Tools}
}
func (b geminiBody) wire() []transcript.Violation                  { return b.r.Wire }
func (b geminiBody) set(r transcript.Request)                      { b.r.Messages, b.r.Tools = r.Messages, r.Tools }
func (b geminiBody) encode() ([]byte, []transcript.Warning, error) { return gemini.Encode(b.r) }
func (b geminiBody) extras() ([]string, []transcript.Warning) {
	var keys []string
	for _, f := range b.r.Fields {
		if f.Value != nil {
			keys = append(keys, f.Key)
		}
	}
	return keys, b.r.Unmodeled
}
func (b geminiBody) fixWire()   { b.r.FixWire = true }
func (b geminiBody) bare() bool { return b.r.Bare }

// bodyPath returns p: a Gemini body holds nothing the llm form skips, and
// its contents have no string form, so transcript's paths are the body's.
func (b geminiBody) bodyPath(p string) string { return p }

// dialectFlag parses a --dialect, --to or --from value; "auto" (when
// allowed) returns "".
func dialectFlag(flag, v string, auto bool) (transcript.Dialect, error) {
	if auto && v == "auto" {
		return "", nil
	}
	d, err := transcript.ParseDialect(v)
	if err != nil {
		want := "openai-chat, openai-responses, anthropic or gemini"
		if auto {
			want += " (or auto)"
		}
		return "", usageError("--%s %q: unknown dialect; want %s", flag, v, want)
	}
	return d, nil
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
