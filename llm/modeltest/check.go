package modeltest

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
)

// noLeaks fails t if goroutines started during the test are still running
// once its cleanups, the harness's included, have run. Call it before
// anything starts.
func noLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		if err := goleak.Find(ignore); err != nil {
			t.Errorf("goroutines left running after the test and its cleanups: %v", err)
		}
	})
}

// A run is what one iteration of a stream yielded.
type run struct {
	events []llm.Event
	err    error
	// stopped is set when the consumer broke out of the loop.
	stopped bool
}

// consume iterates seq as a range loop does, calling body (when not nil)
// with each event: body returns false to break out of the loop. It
// reports every breach of the iterator's contract on t: a pair that is
// both or neither an event and an error, a pair after an error or after
// the loop broke, an event after the Finish, a second Finish, and a stream
// that succeeded without a Finish.
func consume(t *testing.T, seq iter.Seq2[llm.Event, error], body func(ev llm.Event) bool) run {
	t.Helper()
	var r run
	finished, over := false, false
	n := 0
	seq(func(ev llm.Event, err error) bool {
		n++
		if over {
			if r.stopped {
				t.Errorf("pair %d (%v, %v) yielded after the loop broke: yield returned false, and the iterator went on", n, describe(ev), err)
			} else {
				t.Errorf("pair %d (%v, %v) yielded after the error %v: an error ends the stream", n, describe(ev), err, r.err)
			}
			return false
		}
		switch {
		case err != nil && ev != nil:
			t.Errorf("pair %d = (%v, %v): want an event or an error, not both", n, describe(ev), err)
		case err == nil && ev == nil:
			t.Errorf("pair %d = (nil, nil): want an event or an error", n)
			return true
		}
		if err != nil {
			r.err, over = err, true
			return false
		}
		if finished {
			t.Errorf("pair %d = %v after the Finish: a Finish is the last event", n, describe(ev))
		}
		if _, ok := ev.(llm.Finish); ok {
			finished = true
		}
		r.events = append(r.events, ev)
		if body != nil && !body(ev) {
			r.stopped, over = true, true
			return false
		}
		return true
	})
	if r.err == nil && !r.stopped && !finished {
		t.Errorf("the stream ended without an error and without a Finish (events: %s)", describeAll(r.events))
	}
	return r
}

// stream runs req through m.Stream and returns the events, failing t on a
// breach of the iterator's contract and on an error.
func stream(t *testing.T, m llm.Model, req *llm.Request) []llm.Event {
	t.Helper()
	r := consume(t, m.Stream(context.Background(), req), nil)
	if r.err != nil {
		t.Fatalf("Stream() error = %v, want none", r.err)
	}
	return r.events
}

// accumulate folds events into a Response, as Generate does.
func accumulate(events []llm.Event) (*llm.Response, error) {
	var acc llm.Accumulator
	for _, ev := range events {
		acc.Add(ev)
	}
	return acc.Response()
}

// generate runs llm.Generate and fails t on an error.
func generate(t *testing.T, m llm.Model, req *llm.Request) *llm.Response {
	t.Helper()
	resp, err := llm.Generate(context.Background(), m, req)
	if err != nil {
		t.Fatalf("Generate() error = %v, want none", err)
	}
	return resp
}

// bounded runs f, failing t if it has not returned within d: a stream that
// should stop does not hang the test until its deadline.
func bounded(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// describe writes an event for a message: its type and fields.
func describe(ev llm.Event) string {
	if ev == nil {
		return "nil"
	}
	return fmt.Sprintf("%T%+v", ev, ev)
}

// describeAll writes up to 8 events for a message.
func describeAll(events []llm.Event) string {
	s := "["
	for i, ev := range events {
		if i == 8 {
			s += fmt.Sprintf(" … %d more", len(events)-i)
			break
		}
		if i > 0 {
			s += " "
		}
		s += describe(ev)
	}
	return s + "]"
}

// sameJSON reports whether a and b are the same JSON value, with numbers
// compared as written and white space and member order ignored; false when
// either is not JSON.
func sameJSON(a, b []byte) bool {
	x, err := jsonx.DecodeAny(a)
	if err != nil {
		return false
	}
	y, err := jsonx.DecodeAny(b)
	return err == nil && reflect.DeepEqual(x, y)
}

// sameAnswer reports whether a and b are the same answer to the same
// request sent twice. The values a provider makes anew for each answer
// (the id it stores it under, a call's ItemID, a reasoning signature or
// payload) may differ, but each must be in both or in neither.
func sameAnswer(a, b *llm.Response) bool {
	return reflect.DeepEqual(anew(a, b), anew(b, a))
}

// anew returns a copy of r whose provider-made values that other also
// has are blanked.
func anew(r, other *llm.Response) *llm.Response {
	out := *r
	if r.ID != "" && other.ID != "" {
		out.ID = "(made by the provider)" // each answer is stored under its own id
	}
	out.Message.Parts = append([]llm.Part(nil), r.Message.Parts...)
	for i, p := range out.Message.Parts {
		if i >= len(other.Message.Parts) {
			break
		}
		switch p := p.(type) {
		case llm.ToolCall:
			if q, ok := other.Message.Parts[i].(llm.ToolCall); ok && p.ItemID != "" && q.ItemID != "" {
				p.ItemID = "(made by the provider)"
				out.Message.Parts[i] = p
			}
		case llm.Reasoning:
			if q, ok := other.Message.Parts[i].(llm.Reasoning); ok {
				if p.Signature != "" && q.Signature != "" {
					p.Signature = "(made by the provider)"
				}
				if len(p.Data) > 0 && len(q.Data) > 0 {
					p.Data = []byte(`"(made by the provider)"`)
				}
				out.Message.Parts[i] = p
			}
		}
	}
	return &out
}

// tools are the tools every request offers.
var tools = []llm.ToolSpec{
	{Name: "get_weather", Description: "Current weather in a city.",
		Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}},"note":{"type":"string"}},"required":["city"]}`)},
	{Name: "get_time", Description: "Current local time in a time zone.",
		Parameters: []byte(`{"type":"object","properties":{"tz":{"type":"string"}},"required":["tz"]}`)},
	{Name: "list_cities", Description: "The cities with a weather station.",
		Parameters: []byte(`{"type":"object","properties":{}}`)},
}

// ask returns a request of a system prompt and the user's q, with
// [tools].
func ask(q string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{llm.System("You are a weather assistant. Be brief."), llm.User(q)}, Tools: tools}
}

// requests returns the requests b's server received, nil when the harness
// lacks Wire.
func (h *Harness) requests(b Backend) []Request {
	if !h.has(Wire) {
		return nil
	}
	return b.Requests()
}

// accepted fails t unless b's server received want requests and answered
// each from the script.
func (h *Harness) accepted(t *testing.T, b Backend, want int) []Request {
	t.Helper()
	if !h.has(Wire) {
		return nil
	}
	reqs := b.Requests()
	if len(reqs) != want {
		t.Errorf("the server received %d requests, want %d", len(reqs), want)
	}
	for i, r := range reqs {
		if r.Rejected != "" {
			t.Errorf("request %d was rejected by the provider's rules: %s\nbody: %s", i+1, r.Rejected, r.Body)
		}
	}
	return reqs
}
