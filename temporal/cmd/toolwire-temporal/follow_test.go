package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/temporal"
)

// The printer shows the model's text as it streams, and then, from the
// event that has it whole, only the rest: the text is printed once.
// Without deltas, the text is printed whole, as before; a restart says
// so and prints the text again from its start.
func TestPrinterShowsTextOnce(t *testing.T) {
	ev := func(typ, data string, streamed int) temporal.Event {
		return temporal.Event{Seq: 1, Type: typ, Data: []byte(data), Streamed: streamed}
	}
	delta := func(text string) temporal.Event { return ev("delta", `{"text":"`+text+`"}`, 0) }
	tests := []struct {
		name string
		evs  []temporal.Event
		want string
	}{
		{"text streamed, then its event", []temporal.Event{
			ev("turn", `{"turn":1}`, 0), delta("Let me "), delta("look"), ev("text", `{"text":"Let me look it up."}`, 11),
			ev("call", `{"id":"c1","tool":"lookup","args":{"item":"a"}}`, 0),
		}, "\n── turn 1\nLet me look it up.\n→ lookup {\"item\":\"a\"}  [c1]\n"},
		{"every fragment streamed", []temporal.Event{
			ev("turn", `{"turn":1}`, 0), delta("Let me look it up."), ev("text", `{"text":"Let me look it up."}`, 18),
		}, "\n── turn 1\nLet me look it up.\n"},
		{"nothing streamed: the text whole", []temporal.Event{
			ev("turn", `{"turn":1}`, 0), ev("text", `{"text":"Let me look it up."}`, 0),
		}, "\n── turn 1\nLet me look it up.\n"},
		{"the answer streamed in its turn, then the answer", []temporal.Event{
			ev("turn", `{"turn":2}`, 0), delta("It is "), ev("done", `{"stop":"answered","answer":"It is 42."}`, 6),
		}, "\n── turn 2\nIt is 42.\n\nanswer:\nIt is 42.\n"},
		{"the answer, nothing streamed", []temporal.Event{
			ev("turn", `{"turn":2}`, 0), ev("done", `{"stop":"answered","answer":"It is 42."}`, 0),
		}, "\n── turn 2\n\nanswer:\nIt is 42.\n"},
		{"a restart", []temporal.Event{
			ev("turn", `{"turn":1}`, 0), delta("Hello wor"), ev("delta", `{"text":"Hi","restart":true}`, 0), ev("text", `{"text":"Hi"}`, 2),
		}, "\n── turn 1\nHello wor\n(the model call was made again; its text from the start:)\nHi\n"},
		{"a stream that stops the session", []temporal.Event{
			ev("turn", `{"turn":1}`, 0), delta("Hel"), ev("done", `{"stop":"model_error","message":"the model failed"}`, 0),
		}, "\n── turn 1\nHel\n\nstopped (model_error): the model failed\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := &printer{out: &out}
		for _, e := range tt.evs {
			p.show(flags{"temporal": {"h:1"}}, "run_x", e)
		}
		if got := out.String(); got != tt.want {
			t.Errorf("%s: printed\n%s\nwant\n%s", tt.name, got, tt.want)
		}
		if strings.Count(out.String(), "Let me look it up.") > 1 {
			t.Errorf("%s: the text is printed more than once", tt.name)
		}
	}
}
