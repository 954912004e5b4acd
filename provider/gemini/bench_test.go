package gemini

import (
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// benchTranscript returns a request body of n messages, a fifth of them
// tool calls answered in parallel pairs: 10,000 messages hold 2,000 calls.
func benchTranscript(b *testing.B, n int) []byte {
	b.Helper()
	body, _, err := Encode(&Request{Messages: codectest.BenchTranscript(n, "call_", true), Fields: []Field{{Key: "contents"}, {Key: "generationConfig", Value: []byte(`{"maxOutputTokens":4096}`)}}})
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
