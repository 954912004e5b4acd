package openai

import (
	"math/rand/v2"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// randRequests returns the llm form of the 400 random bodies body writes
// from one seed that c decodes; every other one offers get_weather and
// asks for high reasoning effort.
func randRequests(c testCodec, body func(*rand.Rand) string) []*llm.Request {
	tools := []llm.ToolSpec{{Name: "get_weather", Description: "Weather.", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	r := rand.New(rand.NewPCG(1, 2))
	var reqs []*llm.Request
	for i := range 400 {
		d, err := c.Decode([]byte(body(r)))
		if err != nil {
			continue
		}
		req := &llm.Request{Messages: d.messages}
		if i%2 == 0 {
			req.Tools, req.Effort = tools, llm.EffortHigh
		}
		reqs = append(reqs, req)
	}
	return reqs
}

// The cached body is the body Stream sends, byte for byte, for random
// conversations, on the first request and on later ones that reuse the
// cache (the same history with one message more, or with its tail or an
// early message replaced, as fitting replaces them).
func TestSegmentsAreTheBody(t *testing.T) {
	chat, err := NewChat("gpt-4.1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if checked := codectest.SegmentsAreTheBody(t, randRequests(codecs[0], randChatBody), chat.body, chat.segments); checked < 100 {
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
