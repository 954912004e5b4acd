package openai

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/toolwire/toolwire/llm"
)

// The cached body is the body Stream sends, byte for byte, for random
// conversations, on the first request and on a later one that reuses
// the cache (the same history with one message more, or with its tail
// replaced, as fitting replaces it).
func TestSegmentsAreTheBody(t *testing.T) {
	chat, err := NewChat("gpt-4.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := []llm.ToolSpec{{Name: "get_weather", Description: "Weather.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for i := range 400 {
		req, err := DecodeChat([]byte(randChatBody(r)))
		if err != nil || len(req.Messages) == 0 {
			continue
		}
		cache := new(llm.WireCache)
		msgs := req.Messages
		for step, history := range [][]llm.Message{
			msgs[:len(msgs)-1],
			msgs,
			append(append([]llm.Message(nil), msgs[:len(msgs)/2]...), llm.User("a summary")),
		} {
			lr := &llm.Request{Messages: history}
			if i%2 == 0 {
				lr.Tools = tools
			}
			want, werr := chat.body(lr)
			segs, gerr := chat.segments(lr, cache)
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("body %d step %d: body error %v, segments error %v", i, step, werr, gerr)
			}
			if werr != nil {
				continue
			}
			if got := bytes.Join(segs, nil); !bytes.Equal(got, want) {
				t.Fatalf("body %d step %d: segments\n%s\nwant\n%s", i, step, got, want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d bodies checked", checked)
	}
}
