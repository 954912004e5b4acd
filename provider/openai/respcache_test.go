package openai

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// respWhole returns c's body and segments functions writing the whole
// history of req, without previous_response_id, as the client does
// without Store.
func respWhole(c *Responses) (func(*llm.Request) ([]byte, error), func(*llm.Request, *llm.WireCache) ([][]byte, error)) {
	return func(req *llm.Request) ([]byte, error) { return c.body(req, "", 0) },
		func(req *llm.Request, cache *llm.WireCache) ([][]byte, error) { return c.segments(req, "", 0, cache) }
}

// The cached body is the body Stream sends, for random conversations
// (reasoning and opaque items, calls, outputs, images), with the whole
// history and after a previous_response_id, over a cache that is reused
// and invalidated.
func TestRespSegmentsAreTheBody(t *testing.T) {
	c, err := NewResponses("gpt-5", nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := randRequests(codecs[1], randRsBody)
	body, segments := respWhole(c)
	if got := codectest.SegmentsAreTheBody(t, reqs, body, segments); got < 300 {
		t.Errorf("only %d bodies compared", got)
	}
	// After a stored response, from the second message on.
	from := func(req *llm.Request) int { return min(1, max(len(req.Messages)-1, 0)) }
	if got := codectest.SegmentsAreTheBody(t, reqs,
		func(req *llm.Request) ([]byte, error) { return c.body(req, "resp_1", from(req)) },
		func(req *llm.Request, cache *llm.WireCache) ([][]byte, error) {
			return c.segments(req, "resp_1", from(req), cache)
		}); got < 300 {
		t.Errorf("only %d bodies compared after a stored response", got)
	}
}

// BenchmarkRespTurn measures turn 50 of a long loop without Store, encoded
// whole and from the cache.
func BenchmarkRespTurn(b *testing.B) {
	c, err := NewResponses("gpt-5", nil)
	if err != nil {
		b.Fatal(err)
	}
	body, segments := respWhole(c)
	codectest.BenchTurn(b, body, segments)
}
