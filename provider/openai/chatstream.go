package openai

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/transcript"
)

// chatReader reads one Chat Completions answer, streamed or whole, into
// llm events. It routes tool-call fragments to calls itself, so that the
// misbehaviours of compatible servers reach the Accumulator as well-formed
// calls, each with its own id and position.
type chatReader struct {
	ids     *client.IDs
	calls   []*chatReaderCall
	atIndex map[int]*chatReaderCall // the latest call at each wire index
	finish  string                  // the finish reason, once one arrived
	model   string                  // the model that answered, as the server says
}

type chatReaderCall struct {
	pos    int    // position among the answer's calls
	wireID string // the id the server sent, "" for none
	id     string // the id given to the call
	name   string
	args   []byte
}

func newChatReader(history []llm.Message) *chatReader {
	return &chatReader{ids: client.NewIDs("call_", history), atIndex: make(map[int]*chatReaderCall)}
}

// decode reads the answer: server-sent events up to [DONE], or one JSON
// response when the server answers with JSON (Config.NoStream, or a
// server that ignores "stream").
func (d *chatReader) decode(resp *http.Response, emit func(llm.Event) bool) error {
	return client.Read(resp,
		func(data []byte) error { return d.whole(data, emit) },
		func(data []byte) (bool, error) {
			if string(bytes.TrimSpace(data)) == "[DONE]" {
				return true, d.end(emit)
			}
			return false, d.chunk(data, emit)
		},
		func() error {
			if d.finish == "" {
				return errors.New("the stream ended before the answer did (no finish_reason and no [DONE])")
			}
			return d.end(emit)
		})
}

// whole reads a non-streamed response.
func (d *chatReader) whole(data []byte, emit func(llm.Event) bool) error {
	var a chatAnswer
	if err := client.Unmarshal(data, &a); err != nil {
		return client.NotAnswer("a Chat Completions response", data, err)
	}
	if a.Error.Kind() != 0 && a.Error.Kind() != 'n' {
		return streamError(a.Error)
	}
	if len(a.Choices) == 0 {
		return errors.New("the response has no choices")
	}
	d.model = a.Model
	ch := a.Choices[0]
	m := &ch.Message
	if err := d.content(m, emit); err != nil {
		return err
	}
	for i := range m.ToolCalls {
		i := i
		m.ToolCalls[i].Index = &i // a whole response lists each call once
		if err := d.toolCall(&m.ToolCalls[i], emit); err != nil {
			return err
		}
	}
	if a.Usage != nil && !emit(a.Usage.event()) {
		return client.ErrStopped
	}
	d.finish = ch.FinishReason
	return d.end(emit)
}

// chunk reads one stream chunk.
func (d *chatReader) chunk(data []byte, emit func(llm.Event) bool) error {
	var a chatAnswer
	if err := client.Unmarshal(data, &a); err != nil {
		return client.NotAnswer("a Chat Completions chunk", data, err)
	}
	if a.Error.Kind() != 0 && a.Error.Kind() != 'n' {
		return streamError(a.Error)
	}
	if a.Model != "" {
		d.model = a.Model
	}
	for i := range a.Choices {
		ch := &a.Choices[i]
		if ch.Index != 0 {
			continue // only the first choice is read
		}
		if err := d.content(&ch.Delta, emit); err != nil {
			return err
		}
		for j := range ch.Delta.ToolCalls {
			if err := d.toolCall(&ch.Delta.ToolCalls[j], emit); err != nil {
				return err
			}
		}
		if ch.FinishReason != "" {
			d.finish = ch.FinishReason
		}
	}
	if a.Usage != nil && !emit(a.Usage.event()) {
		return client.ErrStopped
	}
	return nil
}

// content emits a message's reasoning and text; empty fragments are left
// out, so that an empty answer has no empty text part.
func (d *chatReader) content(m *chatMessage, emit func(llm.Event) bool) error {
	reasoning := m.ReasoningContent
	if reasoning == "" && m.Reasoning.Kind() == '"' {
		reasoning, _ = client.Text(m.Reasoning)
	}
	if reasoning != "" && !emit(llm.ReasoningDelta{Provider: string(transcript.OpenAIChat), Text: reasoning}) {
		return client.ErrStopped
	}
	text := m.Content
	if text == "" {
		text = m.Refusal
	}
	if text != "" && !emit(llm.TextDelta{Text: text}) {
		return client.ErrStopped
	}
	return nil
}

// toolCall routes one tool-call fragment to its call and emits it.
func (d *chatReader) toolCall(tc *chatToolCall, emit func(llm.Event) bool) error {
	args, err := client.Text(tc.Function.Arguments)
	if err != nil {
		return fmt.Errorf("tool call arguments: %w", err)
	}
	c := d.route(tc, args)
	if c == nil {
		c = &chatReaderCall{pos: len(d.calls), wireID: tc.ID, id: d.ids.Use(tc.ID), name: tc.Function.Name}
		d.calls = append(d.calls, c)
		if tc.Index != nil {
			d.atIndex[*tc.Index] = c
		}
		c.args = append(c.args, args...)
		if !emit(llm.ToolCallDelta{Index: c.pos, ID: c.id, Name: c.name, Arguments: args}) {
			return client.ErrStopped
		}
		return nil
	}
	if c.wireID == "" {
		c.wireID = tc.ID
	}
	var name string
	if n := tc.Function.Name; n != "" && n != c.name {
		name = n // a server that streams the name in pieces
		c.name += n
	}
	c.args = append(c.args, args...)
	if name == "" && args == "" {
		return nil
	}
	if !emit(llm.ToolCallDelta{Index: c.pos, ID: c.id, Name: name, Arguments: args}) {
		return client.ErrStopped
	}
	return nil
}

// route returns the call a fragment continues, or nil when it starts a
// new one: a fragment at an index no call has, with an id other than the
// call's, or with a name after the call's arguments are whole — the shape
// of servers that give every parallel call index 0, with or without ids.
func (d *chatReader) route(tc *chatToolCall, args string) *chatReaderCall {
	var c *chatReaderCall
	switch {
	case tc.Index != nil:
		c = d.atIndex[*tc.Index]
	case tc.ID != "":
		for i := len(d.calls) - 1; i >= 0 && c == nil; i-- {
			if d.calls[i].wireID == tc.ID {
				c = d.calls[i]
			}
		}
	case len(d.calls) > 0:
		c = d.calls[len(d.calls)-1]
	}
	if c == nil {
		return nil
	}
	if tc.ID != "" && c.wireID != "" && tc.ID != c.wireID {
		return nil
	}
	if tc.Function.Name != "" && len(c.args) > 0 && jsontext.Value(c.args).IsValid() {
		return nil
	}
	return c
}

// end emits the finish; "stop", or no reason, after calls (Ollama) is a
// tool-call finish.
func (d *chatReader) end(emit func(llm.Event) bool) error {
	f := chatFinishes.Of(d.finish, len(d.calls) > 0)
	f.Model = d.model
	if !emit(f) {
		return client.ErrStopped
	}
	return nil
}

func (u *chatUsage) event() llm.Usage {
	cached := u.PromptTokensDetails.CachedTokens
	if cached == 0 {
		cached = u.PromptCacheHitTokens
	}
	return llm.Usage{
		InputTokens:     u.PromptTokens,
		OutputTokens:    u.CompletionTokens,
		CacheReadTokens: cached,
		ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens,
	}
}

// streamError classifies an error the server sent inside an answer.
func streamError(v jsontext.Value) error {
	body := append(append([]byte(`{"error":`), v...), '}')
	status := 0
	var o struct {
		Code jsontext.Value `json:"code"` // llama.cpp sends the HTTP status
	}
	if client.Unmarshal(v, &o) == nil && o.Code.Kind() == '0' {
		_ = client.Unmarshal(o.Code, &status)
	}
	return openaiErrors.InStream(status, body)
}
