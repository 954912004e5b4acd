package anthropic

import (
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// BenchmarkDecodeEncode measures Decode+Encode of a 10,000-message
// transcript with 2,000 tool calls answered in parallel pairs, next to
// the encoding/json floor.
func BenchmarkDecodeEncode(b *testing.B) {
	codectest.BenchCodec(b, "anthropic", tested, &Request{Messages: codectest.BenchTranscript(10000, "toolu_", false),
		Fields: []Field{{Key: "model", Value: []byte(`"claude-sonnet-4-5"`)}, {Key: "max_tokens", Value: []byte("4096")}, {Key: "messages"}}})
}
