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

// sameChat reports whether two requests are the same but for the size of
// the bodies they were decoded from.
func sameChat(got, want *ChatRequest) bool {
	g, w := *got, *want
	gs, ws := *g.src, *w.src
	gs.size, ws.size = 0, 0
	g.src, w.src = &gs, &ws
	return reflect.DeepEqual(&g, &w)
}

// TestDecodeResponsesAfter is TestDecodeChatAfter for Responses bodies.
func TestDecodeResponsesAfter(t *testing.T) {
	codectest.AfterFiles(t, "testdata/responses/*.txtar", "input", DecodeResponses, DecodeResponsesAfter, sameResponses)
}

// FuzzDecodeResponsesAfter is TestDecodeResponsesAfter for any body.
func FuzzDecodeResponsesAfter(f *testing.F) {
	codectest.FuzzAfter(f, "testdata/responses/*.txtar", "input", DecodeResponses, DecodeResponsesAfter, sameResponses)
}

func sameResponses(got, want *ResponsesRequest) bool {
	g, w := *got, *want
	gs, ws := *g.src, *w.src
	gs.size, ws.size = 0, 0
	g.src, w.src = &gs, &ws
	return reflect.DeepEqual(&g, &w)
}
