package gemini

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

func newTestClient(t testing.TB) *Client {
	t.Helper()
	c, err := NewClient("gemini-2.5-flash", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The cached body is the body Stream sends, for generated conversations
// (thought signatures, parts the llm form does not model, parallel calls,
// results without names, Gemini's own tools), with and without reasoning
// effort, over a cache that is reused and invalidated; and for histories
// where a result takes its name from a call a compaction renamed.
func TestSegmentsAreTheBody(t *testing.T) {
	body := func(seed uint64) []byte {
		return (&bodyGen{r: rand.New(rand.NewPCG(seed, 3)), broken: seed%4 == 0}).body()
	}
	form := func(r *Request) *llm.Request { return &llm.Request{Messages: r.Messages, Tools: r.Tools} }
	reqs := codectest.Generated(t, tested, body, form)
	c := newTestClient(t)
	if got := codectest.SegmentsAreTheBody(t, reqs, c.body, c.segments); got < 3*len(reqs) {
		t.Errorf("only %d bodies compared", got)
	}
}

// A result that names no tool takes the name of its call: renaming the
// call, before the result, changes the result's bytes, and the cache must
// not reuse them.
func TestSegmentsResultNameFollowsItsCall(t *testing.T) {
	call := func(name string) llm.Message {
		return llm.Assistant(llm.ToolCall{ID: "c1", Name: name, Input: jsontext.Value(`{}`)})
	}
	result := llm.Tool(llm.ToolResult{CallID: "c1", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "18C"}}})
	history := []llm.Message{llm.System("Be brief."), llm.User("Weather?"), call("get_weather"), result}
	renamed := append([]llm.Message{history[0], history[1], call("get_time")}, history[3:]...)
	c := newTestClient(t)
	cache := new(llm.WireCache)
	for _, tt := range []struct {
		msgs []llm.Message
		want string
	}{
		{history, `"functionResponse":{"id":"c1","name":"get_weather"`},
		{renamed, `"functionResponse":{"id":"c1","name":"get_time"`},
	} {
		segs, err := c.segments(&llm.Request{Messages: tt.msgs}, cache)
		if err != nil {
			t.Fatal(err)
		}
		var body []byte
		for _, s := range segs {
			body = append(body, s...)
		}
		if !json.Valid(body) || !bytes.Contains(body, []byte(tt.want)) {
			t.Errorf("segments = %s, want it to hold %s", body, tt.want)
		}
	}
	if reused, encoded := cache.Stats(); reused != 2 || encoded != 6 {
		t.Errorf("cache reused %d and encoded %d, want 2 and 6 (the call and its result again)", reused, encoded)
	}
}

// BenchmarkTurn measures turn 50 of a long loop, encoded whole and from
// the cache.
func BenchmarkTurn(b *testing.B) {
	c := newTestClient(b)
	codectest.BenchTurn(b, c.body, c.segments)
}
