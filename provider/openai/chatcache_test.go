package openai

import (
	"math/rand/v2"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// The cached body is the body Stream sends, byte for byte, for random
// conversations, on the first request and on later ones that reuse the
// cache (the same history with one message more, or with its tail or an
// early message replaced, as fitting replaces them).
func TestSegmentsAreTheBody(t *testing.T) {
	chat, err := NewChat("gpt-4.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := []llm.ToolSpec{{Name: "get_weather", Description: "Weather.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	r := rand.New(rand.NewPCG(1, 2))
	var reqs []*llm.Request
	for i := range 400 {
		req, err := DecodeChat([]byte(randChatBody(r)))
		if err != nil || len(req.Messages) == 0 {
			continue
		}
		lr := &llm.Request{Messages: req.Messages}
		if i%2 == 0 {
			lr.Tools = tools
		}
		reqs = append(reqs, lr)
	}
	if checked := codectest.SegmentsAreTheBody(t, reqs, chat.body, chat.segments); checked < 100 {
		t.Fatalf("only %d bodies checked", checked)
	}
}

// BenchmarkChatTurn measures turn 50 of a long loop, encoded whole and
// from the cache.
func BenchmarkChatTurn(b *testing.B) {
	chat, err := NewChat("gpt-4o", nil)
	if err != nil {
		b.Fatal(err)
	}
	codectest.BenchTurn(b, chat.body, chat.segments)
}
