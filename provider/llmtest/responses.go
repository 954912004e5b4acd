package llmtest

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// responses is OpenAI Responses: POST /v1/responses, with stored
// responses for previous_response_id.
var responses = &dialect{
	id:          transcript.OpenAIResponses,
	authorized:  bearer,
	failures:    responsesFailures,
	errorBody:   openaiErrorBody,
	check:       responsesCheck,
	whole:       responsesWhole,
	events:      responsesEvents,
	streamError: responsesStreamError,
}

// responsesFailures are Chat Completions' errors but for the context
// length message.
var responsesFailures = chatFailures.with(llm.ContextLength,
	failure{400, "context_length_exceeded", "Your input exceeds the context window of this model. Please adjust your input and try again."})

func responsesStreamError(status int, code, message string) sse.Event {
	var e struct {
		Type    string  `json:"type"`
		Code    *string `json:"code"`
		Message string  `json:"message"`
		Param   *string `json:"param"`
		Seq     int     `json:"sequence_number"`
	}
	e.Type, e.Message, e.Seq = "error", message, 1
	if code == "" && status >= 500 {
		code = "server_error"
	}
	if code != "" {
		e.Code = &code
	}
	return sse.Event{Type: "error", Data: marshal(e)}
}

// check finds the conversation a request continues and judges the whole
// of it, as the server does: an item the stored response already holds
// may not be sent again, and every call must be answered.
func responsesCheck(x *exchange) (string, string) {
	if x.opts.Model == "" {
		return "", "Missing required parameter: 'model'."
	}
	b, err := wire.Decode(x.body, transcript.OpenAIResponses)
	if err != nil {
		return "", err.Error()
	}
	req := b.Request()
	x.msgs = req.Messages
	if prev := x.opts.PreviousResponseID; prev != "" {
		x.s.mu.Lock()
		h, ok := x.s.stored[prev]
		x.s.mu.Unlock()
		if !ok {
			return "previous_response_not_found", "Previous response with id '" + prev + "' not found."
		}
		x.history = h
		seen := make(map[string]bool)
		for _, m := range h {
			for _, c := range m.ToolCalls() {
				seen[c.ID] = true
				if c.ItemID != "" {
					seen[c.ItemID] = true
				}
			}
		}
		for _, m := range x.msgs {
			for _, c := range m.ToolCalls() {
				if seen[c.ID] || (c.ItemID != "" && seen[c.ItemID]) {
					id := c.ItemID
					if id == "" {
						id = c.ID
					}
					return "", "Duplicate item found with id " + id + ". Remove duplicate items from your input and try again."
				}
			}
		}
		full := transcript.Request{Messages: append(append([]llm.Message(nil), h...), x.msgs...), Tools: req.Tools, Model: req.Model}
		for _, v := range transcript.CheckRequest(full, transcript.OpenAIResponses) {
			if !v.Warning {
				return "", "input (after previous_response_id " + prev + "): " + refusal(v)
			}
		}
	}
	return "", ""
}

type rsResponse struct {
	ID                 string           `json:"id"`
	Object             string           `json:"object"`
	CreatedAt          int64            `json:"created_at"`
	Status             string           `json:"status"`
	Error              *struct{}        `json:"error"`
	IncompleteDetails  *rsIncomplete    `json:"incomplete_details"`
	Model              string           `json:"model"`
	Output             []jsontext.Value `json:"output"`
	PreviousResponseID *string          `json:"previous_response_id"`
	Store              bool             `json:"store"`
	Usage              *rsUsage         `json:"usage"`
}

type rsIncomplete struct {
	Reason string `json:"reason"`
}

type rsUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

type rsItem struct {
	Type             string    `json:"type"`
	ID               string    `json:"id"`
	Status           string    `json:"status,omitzero"`
	Role             string    `json:"role,omitzero"`
	Content          *[]rsPart `json:"content,omitzero"`
	Summary          *[]rsPart `json:"summary,omitzero"`
	EncryptedContent string    `json:"encrypted_content,omitzero"`
	CallID           string    `json:"call_id,omitzero"`
	Name             string    `json:"name,omitzero"`
	Arguments        *string   `json:"arguments,omitzero"`
}

type rsPart struct {
	Type        string      `json:"type"`
	Text        string      `json:"text"`
	Annotations *[]struct{} `json:"annotations,omitzero"`
}

// rsEvent is a Responses stream event; Fields holds its members after
// "type" and "sequence_number".
type rsEvent map[string]any

// output returns the answer's items, whole (done) or as first added
// (with empty text and arguments).
func (x *exchange) rsItems() (items []rsItem, status string) {
	status = "completed"
	if x.turn.Misbehave&LengthMidCall != 0 {
		status = "incomplete"
	}
	if r := x.turn.Reasoning; r != "" {
		it := rsItem{Type: "reasoning", ID: "rs_" + strconv.Itoa(x.n), Summary: &[]rsPart{{Type: "summary_text", Text: r}}}
		for _, inc := range x.opts.Include {
			if inc == "reasoning.encrypted_content" {
				it.EncryptedContent = "gAAAAB" + strconv.Itoa(x.n) + "-encrypted"
			}
		}
		items = append(items, it)
	}
	if t := x.text(); t != "" || (x.turn.Misbehave&EmptyMessage != 0) {
		items = append(items, rsItem{Type: "message", ID: "msg_" + strconv.Itoa(x.n), Status: "completed", Role: "assistant",
			Content: &[]rsPart{{Type: "output_text", Text: t, Annotations: &[]struct{}{}}}})
	}
	for i, c := range x.calls("call_") {
		args := c.Args
		st := "completed"
		if status == "incomplete" && i == len(x.turn.Calls)-1 {
			st = "incomplete"
		}
		items = append(items, rsItem{Type: "function_call", ID: "fc_" + strconv.Itoa(x.n) + "_" + strconv.Itoa(i), Status: st, CallID: c.ID, Name: c.Name, Arguments: &args})
	}
	return items, status
}

func (x *exchange) rsResponse(items []rsItem, status string) rsResponse {
	if x.respID == "" {
		x.respID = x.s.id("resp_")
	}
	r := rsResponse{ID: x.respID, Object: "response", CreatedAt: 1700000000, Status: status, Model: x.answerModel(x.opts.Model), Output: []jsontext.Value{},
		Store: x.opts.Store == nil || *x.opts.Store}
	if p := x.opts.PreviousResponseID; p != "" {
		r.PreviousResponseID = &p
	}
	if status == "incomplete" {
		r.IncompleteDetails = &rsIncomplete{Reason: "max_output_tokens"}
	}
	for _, it := range items {
		r.Output = append(r.Output, marshal(it))
	}
	if status != "in_progress" {
		u := x.usage()
		r.Usage = &rsUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
		r.Usage.InputTokensDetails.CachedTokens = u.CacheReadTokens
		r.Usage.OutputTokensDetails.ReasoningTokens = u.ReasoningTokens
		x.store(r.Output, r.Store)
	}
	return r
}

// store keeps the conversation the response ends, for previous_response_id.
func (x *exchange) store(output []jsontext.Value, store bool) {
	if !store {
		return
	}
	body := append([]byte(`{"input":[`), joinJSON(output)...)
	body = append(body, "]}"...)
	out, err := openai.DecodeResponses(body)
	if err != nil {
		x.s.errorf("llmtest: decode own output: %v", err)
		return
	}
	h := append(append(append([]llm.Message(nil), x.history...), x.msgs...), out.Messages...)
	x.s.mu.Lock()
	x.s.stored[x.respID] = h
	x.s.mu.Unlock()
}

func joinJSON(vs []jsontext.Value) []byte {
	var b []byte
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return b
}

func responsesWhole(x *exchange) []byte {
	items, status := x.rsItems()
	return marshal(x.rsResponse(items, status))
}

func responsesEvents(x *exchange) ([]sse.Event, []sse.Event) {
	seq := 0
	ev := func(typ string, fields rsEvent) sse.Event {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return sse.Event{Type: typ, Data: marshal(map[string]any(fields))}
	}
	items, status := x.rsItems()
	evs := []sse.Event{
		ev("response.created", rsEvent{"response": x.rsResponse(nil, "in_progress")}),
		ev("response.in_progress", rsEvent{"response": x.rsResponse(nil, "in_progress")}),
	}
	for oi, it := range items {
		switch it.Type {
		case "reasoning":
			added := it
			added.Summary, added.EncryptedContent = &[]rsPart{}, ""
			evs = append(evs, ev("response.output_item.added", rsEvent{"output_index": oi, "item": added}))
			text := (*it.Summary)[0].Text
			evs = append(evs, ev("response.reasoning_summary_part.added", rsEvent{"item_id": it.ID, "output_index": oi, "summary_index": 0, "part": rsPart{Type: "summary_text"}}))
			for _, f := range chunks(text, x.turn.Chunk) {
				evs = append(evs, ev("response.reasoning_summary_text.delta", rsEvent{"item_id": it.ID, "output_index": oi, "summary_index": 0, "delta": f}))
			}
			evs = append(evs, ev("response.reasoning_summary_text.done", rsEvent{"item_id": it.ID, "output_index": oi, "summary_index": 0, "text": text}))
			evs = append(evs, ev("response.reasoning_summary_part.done", rsEvent{"item_id": it.ID, "output_index": oi, "summary_index": 0, "part": rsPart{Type: "summary_text", Text: text}}))
			evs = append(evs, ev("response.output_item.done", rsEvent{"output_index": oi, "item": it}))
		case "message":
			added := it
			added.Status, added.Content = "in_progress", &[]rsPart{}
			text := (*it.Content)[0].Text
			evs = append(evs, ev("response.output_item.added", rsEvent{"output_index": oi, "item": added}))
			evs = append(evs, ev("response.content_part.added", rsEvent{"item_id": it.ID, "output_index": oi, "content_index": 0, "part": rsPart{Type: "output_text", Annotations: &[]struct{}{}}}))
			if text != "" {
				for _, f := range chunks(text, x.turn.Chunk) {
					evs = append(evs, ev("response.output_text.delta", rsEvent{"item_id": it.ID, "output_index": oi, "content_index": 0, "delta": f, "logprobs": []struct{}{}}))
				}
			}
			evs = append(evs, ev("response.output_text.done", rsEvent{"item_id": it.ID, "output_index": oi, "content_index": 0, "text": text, "logprobs": []struct{}{}}))
			evs = append(evs, ev("response.content_part.done", rsEvent{"item_id": it.ID, "output_index": oi, "content_index": 0, "part": (*it.Content)[0]}))
			evs = append(evs, ev("response.output_item.done", rsEvent{"output_index": oi, "item": it}))
		}
	}
	// The calls' argument deltas, in call order or interleaved; sequence
	// numbers are given in the order sent.
	var callFrags [][]func() sse.Event
	for oi, it := range items {
		if it.Type != "function_call" {
			continue
		}
		added := it
		empty := ""
		added.Status, added.Arguments = "in_progress", &empty
		fs := []func() sse.Event{func() sse.Event {
			return ev("response.output_item.added", rsEvent{"output_index": oi, "item": added})
		}}
		for _, f := range chunks(*it.Arguments, x.turn.Chunk) {
			fs = append(fs, func() sse.Event {
				return ev("response.function_call_arguments.delta", rsEvent{"item_id": it.ID, "output_index": oi, "delta": f})
			})
		}
		fs = append(fs, func() sse.Event {
			return ev("response.function_call_arguments.done", rsEvent{"item_id": it.ID, "output_index": oi, "arguments": *it.Arguments})
		}, func() sse.Event {
			return ev("response.output_item.done", rsEvent{"output_index": oi, "item": it})
		})
		callFrags = append(callFrags, fs)
	}
	for _, f := range order(callFrags, x.turn.Interleave) {
		evs = append(evs, f())
	}
	typ := "response.completed"
	if status == "incomplete" {
		typ = "response.incomplete"
	}
	last := []sse.Event{ev(typ, rsEvent{"response": x.rsResponse(items, status)})}
	return evs, last
}
