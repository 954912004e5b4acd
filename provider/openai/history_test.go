package openai

import (
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// TestDecodeChatAfter decodes every Chat test body split in two at each
// element of its messages array, the second part after the first, and
// wants the request decoding it whole gives.
func TestDecodeChatAfter(t *testing.T) {
	codectest.AfterFiles(t, "testdata/chat/*.txtar", "messages", DecodeChat, DecodeChatAfter, sameChat)
}

// FuzzDecodeChatAfter is TestDecodeChatAfter for any body.
func FuzzDecodeChatAfter(f *testing.F) {
	codectest.FuzzAfter(f, "testdata/chat/*.txtar", "messages", DecodeChat, DecodeChatAfter, sameChat)
}

// TestDecodeResponsesAfter is TestDecodeChatAfter for Responses bodies.
func TestDecodeResponsesAfter(t *testing.T) {
	codectest.AfterFiles(t, "testdata/responses/*.txtar", "input", DecodeResponses, DecodeResponsesAfter, sameResponses)
}

// FuzzDecodeResponsesAfter is TestDecodeResponsesAfter for any body.
func FuzzDecodeResponsesAfter(f *testing.F) {
	codectest.FuzzAfter(f, "testdata/responses/*.txtar", "input", DecodeResponses, DecodeResponsesAfter, sameResponses)
}

// sameChat and sameResponses report whether two requests are the same but
// for the size of the bodies they were decoded from.
var (
	sameChat      = sameButSize(func(r *ChatRequest) *source { return r.src })
	sameResponses = sameButSize(func(r *ResponsesRequest) *source { return r.src })
)

func sameButSize[R any](src func(R) *source) func(got, want R) bool {
	return func(got, want R) bool {
		g, w := src(got), src(want)
		gs, ws := g.size, w.size
		g.size, w.size = 0, 0
		defer func() { g.size, w.size = gs, ws }()
		return reflect.DeepEqual(got, want)
	}
}
