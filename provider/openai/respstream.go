package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
)

// respReader reads one Responses answer, streamed or whole, into llm
// events: output items in output order, each call routed by its
// output_index.
type respReader struct {
	id     string // the response's id
	stored bool   // the answer is kept on the server: report its id
	items  map[int]*respItem
	calls  int
	ended  bool
}

type respItem struct {
	call      bool // a function_call whose start was emitted
	args      bool // argument deltas arrived
	reasoning bool // reasoning text arrived
}

// newRespReader returns a reader of one answer; with stored, the answer
// is kept on the server, and its id is reported ([llm.Stored]).
func newRespReader(stored bool) *respReader {
	return &respReader{items: make(map[int]*respItem), stored: stored}
}

func (d *respReader) item(i int) *respItem {
	it := d.items[i]
	if it == nil {
		it = &respItem{}
		d.items[i] = it
	}
	return it
}

func (d *respReader) decode(resp *http.Response, emit func(llm.Event) bool) error {
	return client.Read(resp,
		func(data []byte) error {
			var a rsAnswer
			if err := client.Unmarshal(data, &a); err != nil {
				return client.NotAnswer("a Responses response", data, err)
			}
			return d.answer(&a, emit)
		},
		func(data []byte) (bool, error) {
			err := d.event(data, emit)
			return d.ended, err
		},
		func() error { return errors.New("the stream ended before the answer did (no response.completed)") })
}

// event reads one stream event.
func (d *respReader) event(data []byte, emit func(llm.Event) bool) error {
	var e rsEvent
	if err := client.Unmarshal(data, &e); err != nil {
		return client.NotAnswer("a Responses stream event", data, err)
	}
	ok := true
	switch e.Type {
	case "response.created", "response.in_progress":
		if e.Response != nil {
			d.id = e.Response.ID
		}
	case "response.output_item.added":
		var it rsOutputItem
		if err := client.Unmarshal(e.Item, &it); err != nil {
			return fmt.Errorf("output item %d: %w", e.OutputIndex, err)
		}
		if it.Type == "function_call" {
			ok = d.startCall(e.OutputIndex, &it, emit)
		}
	case "response.output_text.delta", "response.refusal.delta":
		if e.Delta != "" {
			ok = emit(llm.TextDelta{Index: e.OutputIndex, Text: e.Delta})
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if e.Delta != "" {
			d.item(e.OutputIndex).reasoning = true
			ok = emit(llm.ReasoningDelta{Index: e.OutputIndex, Provider: ResponsesProvider, Text: e.Delta})
		}
	case "response.function_call_arguments.delta":
		it := d.item(e.OutputIndex)
		if it.call && e.Delta != "" {
			it.args = true
			ok = emit(llm.ToolCallDelta{Index: e.OutputIndex, Arguments: e.Delta})
		}
	case "response.function_call_arguments.done":
		// Sufficient when no deltas came (or output_item.done never
		// comes, as some servers do).
		if it := d.item(e.OutputIndex); it.call && !it.args && e.Arguments != "" {
			it.args = true
			ok = emit(llm.ToolCallDelta{Index: e.OutputIndex, Arguments: e.Arguments})
		}
	case "response.output_item.done":
		var err error
		ok, err = d.doneItem(e.OutputIndex, e.Item, emit)
		if err != nil {
			return err
		}
	case "response.completed", "response.incomplete", "response.failed":
		if e.Response == nil {
			return fmt.Errorf("the %s event has no response", e.Type)
		}
		d.ended = true
		return d.end(e.Response, emit)
	case "error":
		body := append(append([]byte(`{"error":`), data...), '}')
		return inStreamError(body)
	}
	if !ok {
		return client.ErrStopped
	}
	return nil
}

// startCall emits the start of a function call.
func (d *respReader) startCall(i int, it *rsOutputItem, emit func(llm.Event) bool) bool {
	st := d.item(i)
	if st.call {
		return true
	}
	st.call = true
	d.calls++
	args, _ := client.Text(it.Arguments)
	st.args = args != ""
	return emit(llm.ToolCallDelta{Index: i, ID: it.CallID, Name: it.Name, ItemID: it.ID, Arguments: args})
}

// doneItem reads a finished output item: a call or reasoning that
// arrived with no deltas, and a reasoning item whole, kept as Data so that
// it can be replayed.
func (d *respReader) doneItem(i int, raw jsontext.Value, emit func(llm.Event) bool) (bool, error) {
	var it rsOutputItem
	if err := client.Unmarshal(raw, &it); err != nil {
		return false, fmt.Errorf("output item %d: %w", i, err)
	}
	st := d.item(i)
	switch it.Type {
	case "function_call":
		if !st.call {
			return d.startCall(i, &it, emit), nil
		}
		if !st.args {
			if args, _ := client.Text(it.Arguments); args != "" {
				st.args = true
				return emit(llm.ToolCallDelta{Index: i, Arguments: args}), nil
			}
		}
	case "reasoning":
		item := raw.Clone()
		if err := item.Compact(); err != nil {
			return false, fmt.Errorf("output item %d: %w", i, err)
		}
		ev := llm.ReasoningDelta{Index: i, Provider: ResponsesProvider, Data: []byte(item)}
		if !st.reasoning {
			ev.Text = summary(&it)
		}
		return emit(ev), nil
	}
	return true, nil
}

func summary(it *rsOutputItem) string {
	var parts []string
	for _, s := range it.Summary {
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, "\n\n")
}

// answer reads a whole response.
func (d *respReader) answer(a *rsAnswer, emit func(llm.Event) bool) error {
	d.id = a.ID
	for i, raw := range a.Output {
		var it rsOutputItem
		if err := client.Unmarshal(raw, &it); err != nil {
			return fmt.Errorf("output item %d: %w", i, err)
		}
		ok := true
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				text := c.Text
				if c.Type == "refusal" {
					text = c.Refusal
				}
				if text != "" && ok {
					ok = emit(llm.TextDelta{Index: i, Text: text})
				}
			}
		case "function_call", "reasoning":
			var err error
			if ok, err = d.doneItem(i, raw, emit); err != nil {
				return err
			}
		}
		if !ok {
			return client.ErrStopped
		}
	}
	return d.end(a, emit)
}

// end reads the response's status, usage and error.
func (d *respReader) end(a *rsAnswer, emit func(llm.Event) bool) error {
	if a.ID != "" {
		d.id = a.ID
	}
	if a.Error.Kind() == '{' {
		return inStreamError(append(append([]byte(`{"error":`), a.Error...), '}'))
	}
	if a.Status == "failed" {
		return errors.New("the response failed without saying why")
	}
	if u := a.Usage; u != nil && !emit(llm.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.InputTokensDetails.CachedTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens,
	}) {
		return client.ErrStopped
	}
	if d.stored && d.id != "" && !emit(llm.Stored{ID: d.id}) {
		return client.ErrStopped
	}
	f := llm.Finish{Reason: llm.FinishStop, Raw: a.Status, Model: a.Model}
	switch {
	case a.Status == "incomplete" && a.IncompleteDetails != nil:
		f.Raw = a.IncompleteDetails.Reason
		f.Reason = llm.FinishLength
		if f.Raw == "content_filter" {
			f.Reason = llm.FinishContentFilter
		}
	case d.calls > 0:
		f.Reason = llm.FinishToolCalls
	}
	if !emit(f) {
		return client.ErrStopped
	}
	return nil
}

// inStreamError classifies an error event or a failed response's error
// ({"error": {"code", "message"}}), which came with HTTP 200.
func inStreamError(body []byte) error { return openaiErrors.InStream(0, body) }
