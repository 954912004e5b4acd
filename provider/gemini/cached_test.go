package gemini_test

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// The client, streamed and whole.
var cachedModels = map[string]func(t *testing.T, srv *llmtest.Server) llm.CachedModel{
	"streamed": func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newClient(t, srv, false) },
	"whole":    func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newClient(t, srv, true) },
}

// StreamCached sends the bytes Stream sends, over a conversation with
// every kind of part and two compactions, one of which renames the calls
// whose results name no tool: their functionResponses must follow.
func TestStreamCachedSendsStreamsBytes(t *testing.T) {
	for name, newModel := range cachedModels {
		t.Run(name, func(t *testing.T) { clienttest.Cached(t, newModel) })
	}
}

// Over 50 turns of 3 parallel calls, each message is encoded once.
func TestStreamCachedEncodesOnce(t *testing.T) {
	for name, newModel := range cachedModels {
		t.Run(name, func(t *testing.T) { clienttest.EncodedOnce(t, 50, 3, newModel) })
	}
}
