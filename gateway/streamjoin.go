package gateway

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/sse"
)

// The joiners of the four dialects' streams (see stream.go). Each reads
// an event's JSON for what it needs and leaves the rest as it came.

// lax reads an upstream's JSON as the providers' SDKs do.
var lax = []json.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// chatJoin joins Chat Completions streams: chunks of deltas, then
// "[DONE]". The chunks of every answer take the id of the first chunk
// written, as the SDKs' accumulators require.
type chatJoin struct{ id string }

type chatChunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Delta        map[string]jsontext.Value `json:"delta"`
		FinishReason *string                   `json:"finish_reason"`
	} `json:"choices"`
	Error jsontext.Value `json:"error"`
}

func (j *chatJoin) read(ev sse.Event) eventKind {
	if string(ev.Data) == "[DONE]" {
		return kindEnd
	}
	var c chatChunk
	if json.Unmarshal(ev.Data, &c, lax...) != nil {
		return kindContent // not for the gateway to judge: passed on
	}
	if c.Error != nil || len(c.Choices) == 0 {
		return kindEnd // an error, or the usage
	}
	kind := kindStart
	for _, ch := range c.Choices {
		if tc, ok := ch.Delta["tool_calls"]; ok && !empty(tc) {
			kind = kindCall
			continue
		}
		if ch.FinishReason != nil && kind != kindCall {
			kind = kindEnd
		}
		for name, v := range ch.Delta {
			if name != "role" && !empty(v) && kind == kindStart {
				kind = kindContent
			}
		}
	}
	return kind
}

func (j *chatJoin) write(ev sse.Event) sse.Event {
	if string(ev.Data) == "[DONE]" {
		return ev
	}
	if j.id == "" {
		var c chatChunk
		if json.Unmarshal(ev.Data, &c, lax...) == nil {
			j.id = c.ID
		}
		return ev
	}
	ev.Data = setMembers(ev.Data, map[string]func(jsontext.Value) jsontext.Value{
		"id": func(jsontext.Value) jsontext.Value { return quote(j.id) },
	})
	return ev
}

func (j *chatJoin) next() {}

func (j *chatJoin) fail(e *refusal) sse.Event { return sse.Event{Data: openAIError(e)} }

// anthropicJoin joins Messages streams: message_start, content blocks
// numbered from 0, message_delta, message_stop. The blocks of a later
// answer are numbered on from the blocks written.
type anthropicJoin struct {
	offset  int          // blocks written before the answer at hand
	written int          // blocks written
	callAt  map[int]bool // the answer's tool_use blocks, by index
}

type anthropicEvent struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Block struct {
		Type string `json:"type"`
	} `json:"content_block"`
}

func (j *anthropicJoin) read(ev sse.Event) eventKind {
	var e anthropicEvent
	if json.Unmarshal(ev.Data, &e, lax...) != nil {
		return kindContent
	}
	switch e.Type {
	case "message_start", "ping":
		return kindStart
	case "content_block_start":
		if e.Block.Type != "tool_use" {
			return kindContent
		}
		if j.callAt == nil {
			j.callAt = map[int]bool{}
		}
		j.callAt[e.Index] = true
		return kindCall
	case "content_block_delta", "content_block_stop":
		if !j.callAt[e.Index] {
			return kindContent
		}
		return kindCall
	}
	return kindEnd // message_delta, message_stop, error
}

func (j *anthropicJoin) write(ev sse.Event) sse.Event {
	if !strings.HasPrefix(ev.Type, "content_block_") {
		return ev
	}
	if ev.Type == "content_block_start" {
		j.written++
	}
	if j.offset > 0 {
		ev.Data = setMembers(ev.Data, map[string]func(jsontext.Value) jsontext.Value{
			"index": func(v jsontext.Value) jsontext.Value { return shift(v, j.offset) },
		})
	}
	return ev
}

func (j *anthropicJoin) next() { j.offset, j.callAt = j.written, nil }

func (j *anthropicJoin) fail(e *refusal) sse.Event {
	return sse.Event{Type: "error", Data: anthropicError(e)}
}

// geminiJoin joins Gemini streams (alt=sse): each event is a whole
// GenerateContentResponse, so nothing is numbered.
type geminiJoin struct{}

func (j *geminiJoin) read(ev sse.Event) eventKind {
	var c struct {
		Candidates []struct {
			Content struct {
				Parts []map[string]jsontext.Value `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if json.Unmarshal(ev.Data, &c, lax...) != nil {
		return kindContent
	}
	calls, content := false, false
	for _, cand := range c.Candidates {
		for _, p := range cand.Content.Parts {
			if _, ok := p["functionCall"]; ok {
				calls = true
			} else {
				content = true
			}
		}
	}
	switch {
	case calls:
		return kindCall
	case content:
		return kindContent
	}
	return kindEnd // the finish, the usage, an error
}

func (j *geminiJoin) write(ev sse.Event) sse.Event { return ev }
func (j *geminiJoin) next()                        {}
func (j *geminiJoin) fail(e *refusal) sse.Event    { return sse.Event{Data: geminiError(e)} }

// responsesJoin joins Responses streams: response.created, output items
// numbered from 0, each event with a sequence number, and
// response.completed with the whole response. A later answer's items
// are numbered on from the items written, its events on from the
// events written, and its final response takes the id of the response
// written and the items written before it.
type responsesJoin struct {
	id      string           // the id of the response written
	seq     int              // the sequence number of the next event written; -1 until the first
	offset  int              // items written before the answer at hand
	written []jsontext.Value // the items written (their output_item.done)
	added   int              // the items written (their output_item.added)
	callAt  map[int]bool     // the answer's function call items, by output index
}

type responsesEvent struct {
	Type        string `json:"type"`
	OutputIndex int    `json:"output_index"`
	Item        struct {
		Type string `json:"type"`
	} `json:"item"`
	Response struct {
		ID string `json:"id"`
	} `json:"response"`
}

func (j *responsesJoin) read(ev sse.Event) eventKind {
	var e responsesEvent
	if json.Unmarshal(ev.Data, &e, lax...) != nil {
		return kindContent
	}
	switch e.Type {
	case "response.created", "response.in_progress":
		return kindStart
	case "response.completed", "response.incomplete", "response.failed", "error":
		return kindEnd
	case "response.output_item.added", "response.output_item.done":
		if e.Item.Type != "function_call" {
			return kindContent
		}
		if j.callAt == nil {
			j.callAt = map[int]bool{}
		}
		j.callAt[e.OutputIndex] = true
		return kindCall
	}
	if j.callAt[e.OutputIndex] {
		return kindCall
	}
	return kindContent
}

func (j *responsesJoin) write(ev sse.Event) sse.Event {
	var e responsesEvent
	if json.Unmarshal(ev.Data, &e, lax...) != nil {
		return ev
	}
	set := map[string]func(jsontext.Value) jsontext.Value{}
	if j.seq < 0 {
		var s struct {
			Seq int `json:"sequence_number"`
		}
		_ = json.Unmarshal(ev.Data, &s, lax...)
		j.seq = s.Seq
	}
	seq := j.seq
	j.seq++
	set["sequence_number"] = func(jsontext.Value) jsontext.Value { return jsontext.Value(strconv.Itoa(seq)) }
	if j.offset > 0 {
		set["output_index"] = func(v jsontext.Value) jsontext.Value { return shift(v, j.offset) }
	}
	switch e.Type {
	case "response.created":
		j.id = e.Response.ID
	case "response.output_item.added":
		j.added++
	case "response.output_item.done":
		var item struct {
			Item jsontext.Value `json:"item"`
		}
		if json.Unmarshal(ev.Data, &item, lax...) == nil {
			j.written = append(j.written, item.Item)
		}
	case "response.completed", "response.incomplete", "response.failed":
		if earlier := j.written[:min(j.offset, len(j.written))]; j.offset > 0 {
			set["response"] = func(v jsontext.Value) jsontext.Value {
				return setMembers(v, map[string]func(jsontext.Value) jsontext.Value{
					"id":     func(old jsontext.Value) jsontext.Value { return orValue(j.id, old) },
					"output": func(out jsontext.Value) jsontext.Value { return prepend(earlier, out) },
				})
			}
		}
	}
	ev.Data = setMembers(ev.Data, set)
	return ev
}

func (j *responsesJoin) next() { j.offset, j.callAt = j.added, nil }

func (j *responsesJoin) fail(e *refusal) sse.Event {
	return sse.Event{Type: "error", Data: openAIError(e)}
}

// setMembers returns obj, a JSON object, with the value of each member
// named in set replaced by what set's function makes of it; obj as it
// came when it is not an object.
func setMembers(obj []byte, set map[string]func(jsontext.Value) jsontext.Value) []byte {
	if len(set) == 0 {
		return obj
	}
	dec := jsontext.NewDecoder(bytes.NewReader(obj), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return obj
	}
	out := make([]byte, 0, len(obj)+16)
	out = append(out, '{')
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return obj
		}
		name := tok.String() // the token is valid only until the next read
		v, err := dec.ReadValue()
		if err != nil {
			return obj
		}
		if f, ok := set[name]; ok {
			v = f(v)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out, _ = jsontext.AppendQuote(out, name)
		out = append(append(out, ':'), v...)
	}
	return append(out, '}')
}

// empty reports whether v says nothing: null, "", [] or {}.
func empty(v jsontext.Value) bool {
	switch string(bytes.TrimSpace(v)) {
	case "null", `""`, "[]", "{}":
		return true
	}
	return false
}

// shift adds n to v, a JSON integer; v as it came when it is not one.
func shift(v jsontext.Value, n int) jsontext.Value {
	var i int
	if json.Unmarshal(v, &i) != nil {
		return v
	}
	return jsontext.Value(strconv.Itoa(i + n))
}

// quote returns s as a JSON string.
func quote(s string) jsontext.Value {
	b, _ := jsontext.AppendQuote(nil, s)
	return b
}

// orValue returns s as a JSON string, or old when s is empty.
func orValue(s string, old jsontext.Value) jsontext.Value {
	if s == "" {
		return old
	}
	return quote(s)
}

// prepend returns the JSON array arr with items before its own.
func prepend(items []jsontext.Value, arr jsontext.Value) jsontext.Value {
	var own []jsontext.Value
	if json.Unmarshal(arr, &own, lax...) != nil {
		return arr
	}
	all := append(append([]jsontext.Value(nil), items...), own...)
	b, err := json.Marshal(all)
	if err != nil {
		return arr
	}
	return b
}
