package gemini

import (
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// BenchmarkDecodeEncode measures Decode+Encode of a 10,000-message
// transcript with 2,000 tool calls answered in parallel pairs, next to
// the encoding/json floor.
func BenchmarkDecodeEncode(b *testing.B) {
	codectest.BenchCodec(b, "gemini", tested, &Request{Messages: codectest.BenchTranscript(10000, "call_", true),
		Fields: []Field{{Key: "contents"}, {Key: "generationConfig", Value: []byte(`{"maxOutputTokens":4096}`)}}})
}
