package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
)

// The JSON shapes of Gemini's answers: a GenerateContentResponse, whole or
// one per stream event. Unknown fields are ignored.

type wireResponse struct {
	Candidates []struct {
		Content struct {
			Parts []jsontext.Value `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
		Index        int    `json:"index"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string         `json:"modelVersion"`
	Error        jsontext.Value `json:"error"`
}

type wirePart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args jsontext.Value `json:"args"`
	} `json:"functionCall"`
}

// contentReader reads a Gemini answer, whole or streamed as a series of
// whole responses, into llm events: consecutive text (or thought)
// fragments form one part, each call arrives whole and gets an id when it
// has none.
type contentReader struct {
	ids       *client.IDs
	text      int // the index of the text part being written, -1 for none
	thought   int // the same for thought text
	next      int // the next part index
	calls     int
	finish    string
	blocked   string
	usage     llm.Usage
	sawFinish bool
	model     string // the model that answered (modelVersion)
}

func newContentReader(history []llm.Message) *contentReader {
	return &contentReader{ids: client.NewIDs("call_", history), text: -1, thought: -1}
}

func (d *contentReader) decode(resp *http.Response, emit func(llm.Event) bool) error {
	return client.Read(resp,
		func(data []byte) error { return d.whole(data, emit) },
		func(data []byte) (bool, error) { return false, d.response(data, emit) },
		func() error {
			if !d.sawFinish {
				return errors.New("the stream ended before the answer did (no finishReason)")
			}
			return d.end(emit)
		})
}

// whole reads a generateContent response, or the JSON array of responses
// that streamGenerateContent writes without alt=sse.
func (d *contentReader) whole(data []byte, emit func(llm.Event) bool) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var all []jsontext.Value
		if err := client.Unmarshal(t, &all); err != nil {
			return client.NotAnswer("a Gemini response", data, err)
		}
		for _, r := range all {
			if err := d.response(r, emit); err != nil {
				return err
			}
		}
	} else if err := d.response(data, emit); err != nil {
		return err
	}
	return d.end(emit)
}

// response reads one GenerateContentResponse.
func (d *contentReader) response(data []byte, emit func(llm.Event) bool) error {
	var r wireResponse
	if err := client.Unmarshal(data, &r); err != nil {
		return client.NotAnswer("a Gemini response", data, err)
	}
	if r.Error.Kind() == '{' {
		body := append(append([]byte(`{"error":`), r.Error...), '}')
		return geminiErrors.InStream(0, body)
	}
	if r.ModelVersion != "" {
		d.model = r.ModelVersion
	}
	if u := r.UsageMetadata; u != nil {
		d.usage = llm.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount,
			CacheReadTokens: u.CachedContentTokenCount, ReasoningTokens: u.ThoughtsTokenCount}
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
		d.blocked, d.sawFinish = r.PromptFeedback.BlockReason, true
	}
	for _, c := range r.Candidates {
		if c.Index != 0 {
			continue
		}
		for k, raw := range c.Content.Parts {
			if err := d.part(k, raw, emit); err != nil {
				return err
			}
		}
		if c.FinishReason != "" {
			d.finish, d.sawFinish = c.FinishReason, true
		}
	}
	return nil
}

// part emits one part: its thought signature first, as the codec reads
// it, then its own content.
func (d *contentReader) part(k int, raw jsontext.Value, emit func(llm.Event) bool) error {
	var p wirePart
	if err := client.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("part %d: %w", k, err)
	}
	var evs []llm.Event
	text := p.Text != nil && *p.Text != ""
	switch {
	case p.Text != nil && p.Thought:
		if d.thought < 0 {
			d.thought, d.text = d.next, -1
			d.next++
		}
		evs = append(evs, llm.ReasoningDelta{Index: d.thought, Provider: string(Dialect), Text: *p.Text, Signature: p.ThoughtSignature})
		p.ThoughtSignature = ""
	case text:
		if d.text < 0 {
			d.text, d.thought = d.next, -1
			d.next++
		}
		evs = append(evs, llm.TextDelta{Index: d.text, Text: *p.Text})
	case p.FunctionCall != nil:
		d.text, d.thought = -1, -1
		args := "{}"
		if a := p.FunctionCall.Args; a.Kind() == '{' {
			c := a.Clone()
			if c.Compact() == nil {
				args = string(c)
			}
		}
		evs = append(evs, llm.ToolCallDelta{Index: d.calls, ID: d.ids.Use(p.FunctionCall.ID), Name: p.FunctionCall.Name, Arguments: args})
		d.calls++
	case p.Text != nil:
		// An empty text part, usually carrying only a signature.
	default:
		// executableCode, codeExecutionResult, ...: replayed verbatim.
		d.text, d.thought = -1, -1
		c := raw.Clone()
		if c.Compact() != nil {
			return fmt.Errorf("part %d: invalid JSON", k)
		}
		evs = append(evs, llm.ReasoningDelta{Index: d.next, Provider: string(Dialect), Data: []byte(c)})
		d.next++
	}
	if p.ThoughtSignature != "" {
		sig := llm.ReasoningDelta{Index: d.next, Provider: string(Dialect), Signature: p.ThoughtSignature}
		d.next++
		evs = append([]llm.Event{sig}, evs...)
		if text {
			d.text = -1 // a signed part stands alone
		}
	}
	for _, ev := range evs {
		if !emit(ev) {
			return client.ErrStopped
		}
	}
	return nil
}

// finishes are Gemini's finish reasons; STOP and the others not listed
// are stops.
var finishes = client.Finishes{
	"MAX_TOKENS":         llm.FinishLength,
	"SAFETY":             llm.FinishContentFilter,
	"RECITATION":         llm.FinishContentFilter,
	"BLOCKLIST":          llm.FinishContentFilter,
	"PROHIBITED_CONTENT": llm.FinishContentFilter,
	"SPII":               llm.FinishContentFilter,
	"IMAGE_SAFETY":       llm.FinishContentFilter,
}

func (d *contentReader) end(emit func(llm.Event) bool) error {
	f := finishes.Of(d.finish, d.calls > 0)
	if d.blocked != "" {
		f = llm.Finish{Reason: llm.FinishContentFilter, Raw: d.blocked}
	}
	f.Model = d.model
	if !emit(d.usage) || !emit(f) {
		return client.ErrStopped
	}
	return nil
}
