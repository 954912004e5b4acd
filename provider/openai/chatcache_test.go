package openai

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
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

// A turn of a long loop: the history of 50 rounds of 8 results of 6 KB,
// one round more than the last request. Whole encodes every message
// again, as Stream does; Cached encodes the new round and reuses the
// rest, as StreamCached does.
func BenchmarkChatTurn(b *testing.B) {
	chat, err := NewChat("gpt-4o", nil)
	if err != nil {
		b.Fatal(err)
	}
	result := `{"status":"success","summary":"lookup(key=k, limit=1000): 60 items","data":[` + strings.Repeat(`{"id":7,"key":"k3","name":"record-000007","category":"cat-07","value":55433,"active":true},`, 60) + `{}]}`
	msgs := []llm.Message{llm.User("Look up the records.")}
	for r := range 50 {
		var calls []llm.Part
		var results []llm.ToolResult
		for c := range 8 {
			id := "call_" + strconv.Itoa(r) + "_" + strconv.Itoa(c)
			calls = append(calls, llm.ToolCall{ID: id, Name: "lookup", Input: []byte(`{"key":"k","limit":1000}`)})
			results = append(results, llm.ToolResult{CallID: id, Name: "lookup", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: result}}})
		}
		msgs = append(msgs, llm.Assistant(calls...), llm.Tool(results...))
	}
	prev := &llm.Request{Messages: msgs[:len(msgs)-2]}
	req := &llm.Request{Messages: msgs}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, err := chat.body(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := new(llm.WireCache)
		for b.Loop() {
			b.StopTimer()
			cache.Reset()
			if _, err := chat.segments(prev, cache); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := chat.segments(req, cache); err != nil {
				b.Fatal(err)
			}
		}
	})
}
