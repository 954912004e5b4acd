package gemini

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// benchTranscript returns a request body of n messages, a fifth of them
// tool calls answered in parallel pairs: 10,000 messages hold 2,000 calls.
func benchTranscript(b *testing.B, n int) []byte {
	b.Helper()
	filler := strings.Repeat("Some ordinary prose about the task at hand, with <tags> & symbols. ", 3)
	var msgs []llm.Message
	msgs = append(msgs, llm.System("You are a careful assistant. "+filler))
	for round := 0; len(msgs) < n; round++ {
		id1, id2 := fmt.Sprintf("call_%06da", round), fmt.Sprintf("call_%06db", round)
		msgs = append(msgs,
			llm.User("Question "+fmt.Sprint(round)+": "+filler),
			llm.Assistant(llm.Text{Text: "Let me look that up."},
				llm.ToolCall{ID: id1, Name: "search", Input: []byte(`{"query":"item ` + fmt.Sprint(round) + `","limit":10}`)},
				llm.ToolCall{ID: id2, Name: "fetch", Input: []byte(`{"url":"https://example.com/` + fmt.Sprint(round) + `"}`)}),
			llm.Tool(
				llm.ToolResult{CallID: id1, Name: "search", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: `{"status":"success","summary":"3 results","data":[1,2,3]}`}}},
				llm.ToolResult{CallID: id2, Name: "fetch", Status: llm.StatusError, Content: []llm.Part{llm.Text{Text: "upstream returned 503"}}}),
			llm.Assistant(llm.Text{Text: "Here is what I found. " + filler}),
		)
		for k := 0; k < 3; k++ {
			msgs = append(msgs, llm.User("Follow-up. "+filler), llm.Assistant(llm.Text{Text: "Answer. " + filler}))
		}
	}
	body, _, err := Encode(&Request{Messages: msgs[:n+1], Fields: []Field{{Key: "contents"}, {Key: "generationConfig", Value: []byte(`{"maxOutputTokens":4096}`)}}})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkDecodeEncode measures Decode+Encode of a 10,000-message
// transcript with 2,000 tool calls, next to encoding/json unmarshalling the
// same bytes into any and marshalling them back (the floor).
func BenchmarkDecodeEncode(b *testing.B) {
	body := benchTranscript(b, 10000)
	b.Run("gemini", func(b *testing.B) { codectest.BenchDecodeEncode(b, tested, body) })
	b.Run("encoding_json", func(b *testing.B) { codectest.BenchFloor[any](b, body) })
}
