package anthropic

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// The JSON shapes of the Messages API's answers: a message, or the events
// of its stream. Unknown fields are ignored.

type wireMessage struct {
	ID         string           `json:"id"`
	Model      string           `json:"model"`
	Content    []jsontext.Value `json:"content"`
	StopReason string           `json:"stop_reason"`
	Usage      *wireUsage       `json:"usage"`
}

type wireBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	Thinking  string         `json:"thinking"`
	Signature string         `json:"signature"`
	Data      string         `json:"data"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
}

type wireUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type wireEvent struct {
	Type         string         `json:"type"`
	Index        int            `json:"index"`
	Message      *wireMessage   `json:"message"`
	ContentBlock jsontext.Value `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *wireUsage     `json:"usage"`
	Error jsontext.Value `json:"error"`
}

// messageReader reads one Messages answer, streamed or whole, into llm
// events; content blocks are routed by their index.
type messageReader struct {
	blocks map[int]*openBlock
	usage  llm.Usage
	stop   string
	calls  int
	model  string // the model that answered, as the API says
}

// openBlock is a content block being streamed.
type openBlock struct {
	kind  string
	start jsontext.Value // an opaque block's content_block
	input jsontext.Value // a tool_use's input when no delta came
	json  []byte         // input_json_delta fragments
}

func newMessageReader() *messageReader { return &messageReader{blocks: make(map[int]*openBlock)} }

func (d *messageReader) decode(resp *http.Response, emit func(llm.Event) bool) error {
	return client.Read(resp,
		func(data []byte) error { return d.whole(data, emit) },
		func(data []byte) (bool, error) { return d.event(data, emit) },
		func() error { return errors.New("the stream ended before the answer did (no message_stop)") })
}

func (d *messageReader) whole(data []byte, emit func(llm.Event) bool) error {
	var m wireMessage
	if err := client.Unmarshal(data, &m); err != nil {
		return client.NotAnswer("a Messages API response", data, err)
	}
	for i, raw := range m.Content {
		var b wireBlock
		if err := client.Unmarshal(raw, &b); err != nil {
			return fmt.Errorf("content block %d: %w", i, err)
		}
		if b.Type == "tool_use" && i == len(m.Content)-1 && m.StopReason == "max_tokens" {
			// The limit cut this call off: a whole body carries what
			// was parsed of its input (often {}), which must not be
			// run as if it were the call. It is left out, as Gemini's
			// cut calls are.
			continue
		}
		if ev := blockEvent(i, &b, raw); ev != nil && !emit(ev) {
			return client.ErrStopped
		}
		if b.Type == "tool_use" {
			d.calls++
		}
	}
	if m.Usage != nil {
		d.addUsage(m.Usage)
	}
	d.stop, d.model = m.StopReason, m.Model
	return d.end(emit)
}

// blockEvent returns the event of a whole content block, nil for one that
// says nothing.
func blockEvent(i int, b *wireBlock, raw jsontext.Value) llm.Event {
	switch b.Type {
	case "text":
		if b.Text == "" {
			return nil
		}
		return llm.TextDelta{Index: i, Text: b.Text}
	case "thinking":
		return llm.ReasoningDelta{Index: i, Provider: string(Dialect), Text: b.Thinking, Signature: b.Signature}
	case "redacted_thinking":
		data := codec.AppendString(nil, b.Data)
		return llm.ReasoningDelta{Index: i, Provider: string(Dialect), Data: data}
	case "tool_use":
		args := ""
		if in := b.Input; in.Kind() == '{' {
			c := in.Clone()
			if c.Compact() == nil {
				args = string(c)
			}
		}
		return llm.ToolCallDelta{Index: i, ID: b.ID, Name: b.Name, Arguments: args}
	}
	// server_tool_use, web_search_tool_result, ...: replayed verbatim.
	c := raw.Clone()
	if c.Compact() != nil {
		return nil
	}
	return llm.ReasoningDelta{Index: i, Provider: string(Dialect), Data: []byte(c)}
}

// event reads one stream event; done reports message_stop.
func (d *messageReader) event(data []byte, emit func(llm.Event) bool) (done bool, err error) {
	var e wireEvent
	if err := client.Unmarshal(data, &e); err != nil {
		return false, client.NotAnswer("a Messages API stream event", data, err)
	}
	ok := true
	switch e.Type {
	case "message_start":
		if e.Message != nil && e.Message.Usage != nil {
			d.addUsage(e.Message.Usage)
		}
		if e.Message != nil {
			d.model = e.Message.Model
		}
	case "content_block_start":
		var b wireBlock
		if err := client.Unmarshal(e.ContentBlock, &b); err != nil {
			return false, fmt.Errorf("content block %d: %w", e.Index, err)
		}
		ob := &openBlock{kind: b.Type}
		d.blocks[e.Index] = ob
		switch b.Type {
		case "text", "thinking", "redacted_thinking":
			if ev := blockEvent(e.Index, &b, e.ContentBlock); ev != nil && (b.Type == "redacted_thinking" || b.Text != "" || b.Thinking != "") {
				ok = emit(ev)
			}
		case "tool_use":
			d.calls++
			if b.Input.Kind() == '{' && len(b.Input) > 2 {
				ob.input = b.Input.Clone() // a whole input in the start block
			}
			ok = emit(llm.ToolCallDelta{Index: e.Index, ID: b.ID, Name: b.Name})
		default:
			ob.start = e.ContentBlock.Clone()
		}
	case "content_block_delta":
		ob := d.blocks[e.Index]
		switch e.Delta.Type {
		case "text_delta":
			if e.Delta.Text != "" {
				ok = emit(llm.TextDelta{Index: e.Index, Text: e.Delta.Text})
			}
		case "thinking_delta":
			ok = emit(llm.ReasoningDelta{Index: e.Index, Provider: string(Dialect), Text: e.Delta.Thinking})
		case "signature_delta":
			ok = emit(llm.ReasoningDelta{Index: e.Index, Provider: string(Dialect), Signature: e.Delta.Signature})
		case "input_json_delta":
			switch {
			case ob == nil:
				return false, fmt.Errorf("an input_json_delta for content block %d, which did not start", e.Index)
			case ob.kind == "tool_use":
				ob.json = append(ob.json, e.Delta.PartialJSON...)
				if e.Delta.PartialJSON != "" {
					ok = emit(llm.ToolCallDelta{Index: e.Index, Arguments: e.Delta.PartialJSON})
				}
			default:
				ob.json = append(ob.json, e.Delta.PartialJSON...)
			}
		}
	case "content_block_stop":
		ob := d.blocks[e.Index]
		switch {
		case ob == nil:
		case ob.kind == "tool_use" && len(ob.json) == 0 && ob.input != nil:
			c := ob.input
			if c.Compact() == nil {
				ok = emit(llm.ToolCallDelta{Index: e.Index, Arguments: string(c)})
			}
		case ob.start != nil:
			ok = d.opaque(e.Index, ob, emit)
		}
	case "message_delta":
		if e.Delta.StopReason != "" {
			d.stop = e.Delta.StopReason
		}
		if e.Usage != nil {
			d.addUsage(e.Usage)
		}
	case "message_stop":
		return true, d.end(emit)
	case "error":
		body := append(append([]byte(`{"type":"error","error":`), e.Error...), '}')
		return false, anthropicErrors.InStream(0, body)
	}
	if !ok {
		return false, client.ErrStopped
	}
	return false, nil
}

// opaque emits a block the llm form does not model, with the input its
// deltas streamed (server_tool_use).
func (d *messageReader) opaque(i int, ob *openBlock, emit func(llm.Event) bool) bool {
	block := ob.start
	if len(ob.json) > 0 && jsontext.Value(ob.json).IsValid() {
		if ms, err := members(block); err == nil {
			for j := range ms {
				if ms[j].key == "input" {
					ms[j].val = jsontext.Value(ob.json)
				}
			}
			block = object(ms)
		}
	}
	c := jsontext.Value(block).Clone()
	if c.Compact() != nil {
		return true
	}
	return emit(llm.ReasoningDelta{Index: i, Provider: string(Dialect), Data: []byte(c)})
}

// addUsage folds counts in: Anthropic counts cached input apart, llm
// counts it in InputTokens.
func (d *messageReader) addUsage(u *wireUsage) {
	if u.InputTokens != 0 || u.CacheReadInputTokens != 0 || u.CacheCreationInputTokens != 0 {
		d.usage.InputTokens = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
		d.usage.CacheReadTokens = u.CacheReadInputTokens
		d.usage.CacheWriteTokens = u.CacheCreationInputTokens
	}
	if u.OutputTokens != 0 {
		d.usage.OutputTokens = u.OutputTokens
	}
}

// finishes are the Messages API's stop reasons; end_turn and
// stop_sequence are stops.
var finishes = client.Finishes{
	"tool_use":                      llm.FinishToolCalls,
	"max_tokens":                    llm.FinishLength,
	"model_context_window_exceeded": llm.FinishLength,
	"refusal":                       llm.FinishContentFilter,
}

func (d *messageReader) end(emit func(llm.Event) bool) error {
	f := finishes.Of(d.stop, d.calls > 0)
	f.Model = d.model
	if !emit(d.usage) || !emit(f) {
		return client.ErrStopped
	}
	return nil
}
