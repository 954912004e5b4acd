package codectest

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
)

// SegmentsAreTheBody checks that a client's cached body is its whole
// body, byte for byte: for each request, segments (the pieces written
// from a cache) joined must be what body writes, for the history without
// its last message, then whole (reusing the cache), then with its second
// half replaced by a summary (as fitting replaces it), and then with an
// early message replaced. Either both fail or neither does. It reports
// how many bodies it compared.
func SegmentsAreTheBody(t *testing.T, reqs []*llm.Request, body func(*llm.Request) ([]byte, error), segments func(*llm.Request, *llm.WireCache) ([][]byte, error)) int {
	t.Helper()
	checked := 0
	for i, req := range reqs {
		msgs := req.Messages
		if len(msgs) == 0 {
			continue
		}
		cache := new(llm.WireCache)
		early := slices.Clone(msgs)
		k := len(msgs) / 4
		early[k] = llm.Message{Role: early[k].Role, Parts: slices.Clone(early[k].Parts)}
		for step, history := range [][]llm.Message{
			msgs[:len(msgs)-1],
			msgs,
			append(slices.Clone(msgs[:len(msgs)/2]), llm.User("a summary")),
			early,
		} {
			r := *req
			r.Messages = history
			want, werr := body(&r)
			segs, gerr := segments(&r, cache)
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("request %d, step %d: body error %v, segments error %v", i, step, werr, gerr)
			}
			if werr != nil {
				continue
			}
			if got := bytes.Join(segs, nil); !bytes.Equal(got, want) {
				t.Fatalf("request %d, step %d: segments\n%s\nwant\n%s\n%s", i, step, got, want, FirstDiff(got, want))
			}
			checked++
		}
	}
	return checked
}

// Generated returns the llm requests of 400 generated bodies, 100 with
// -short: body(seed) for each seed from 0, decoded by c and made a request
// by form, every third asking for low reasoning effort. A body c cannot
// decode fails the test: the generator writes only valid bodies.
func Generated[R any](t *testing.T, c Codec[R], body func(seed uint64) []byte, form func(R) *llm.Request) []*llm.Request {
	t.Helper()
	n := 400
	if testing.Short() {
		n = 100
	}
	reqs := make([]*llm.Request, n)
	for seed := range uint64(n) {
		r, err := c.Decode(body(seed))
		if err != nil {
			t.Fatalf("seed %d: Decode error: %v", seed, err)
		}
		reqs[seed] = form(r)
		if seed%3 == 0 {
			reqs[seed].Effort = llm.EffortLow
		}
	}
	return reqs
}

// FirstDiff says where a and b first differ, with the bytes around.
func FirstDiff(a, b []byte) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	from := max(n-40, 0)
	return fmt.Sprintf("first difference at byte %d: ...%s| vs ...%s|", n, a[from:min(n+40, len(a))], b[from:min(n+40, len(b))])
}

// TurnHistory returns the history of a long tool loop: a system prompt, a
// question, then rounds rounds of an assistant message of calls parallel
// calls and a tool message of their results, 6 KB of JSON each. Its
// requests offer [TurnTools].
func TurnHistory(rounds, calls int) []llm.Message {
	result := `{"status":"success","summary":"lookup(key=k, limit=1000): 60 items","data":[` + strings.Repeat(`{"id":7,"key":"k3","name":"record-000007","category":"cat-07","value":55433,"active":true},`, 60) + `{}]}`
	msgs := []llm.Message{llm.System("You look records up. Be brief."), llm.User("Look up the records.")}
	for r := range rounds {
		var parts []llm.Part
		var results []llm.ToolResult
		for c := range calls {
			id := "call_" + strconv.Itoa(r) + "_" + strconv.Itoa(c)
			parts = append(parts, llm.ToolCall{ID: id, Name: "lookup", Input: []byte(`{"key":"k","limit":1000}`)})
			results = append(results, llm.ToolResult{CallID: id, Name: "lookup", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: result}}})
		}
		msgs = append(msgs, llm.Assistant(parts...), llm.Tool(results...))
	}
	return msgs
}

// TurnTools are the tools of a [TurnHistory] request.
var TurnTools = []llm.ToolSpec{{Name: "lookup", Description: "Look records up by key.",
	Parameters: []byte(`{"type":"object","properties":{"key":{"type":"string"},"limit":{"type":"integer"}},"required":["key"]}`)}}

// BenchTurn measures turn 50 of a long loop, a [TurnHistory] of 50 rounds
// of 8 results, one round more than the last request: "whole" encodes
// every message again, as a client's Stream does; "cached" encodes the new
// round and reuses the rest from a cache that holds the last request's,
// as its StreamCached does.
func BenchTurn(b *testing.B, body func(*llm.Request) ([]byte, error), segments func(*llm.Request, *llm.WireCache) ([][]byte, error)) {
	msgs := TurnHistory(50, 8)
	prev := &llm.Request{Messages: msgs[:len(msgs)-2], Tools: TurnTools}
	req := &llm.Request{Messages: msgs, Tools: TurnTools}
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := body(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		cache := new(llm.WireCache)
		for b.Loop() {
			b.StopTimer()
			cache.Reset()
			if _, err := segments(prev, cache); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := segments(req, cache); err != nil {
				b.Fatal(err)
			}
		}
	})
}
