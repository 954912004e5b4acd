package openai_test

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// The clients that keep encodings in a WireCache, each with its settings.
func cachedModels() map[string]func(t *testing.T, srv *llmtest.Server) llm.CachedModel {
	return map[string]func(t *testing.T, srv *llmtest.Server) llm.CachedModel{
		"chat":            func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newChat(t, srv, false) },
		"chat whole":      func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newChat(t, srv, true) },
		"responses":       func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newResponses(t, srv, false, false) },
		"responses store": func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newResponses(t, srv, true, false) },
	}
}

// StreamCached sends the bytes Stream sends, over a conversation with
// every kind of part and two compactions.
func TestStreamCachedSendsStreamsBytes(t *testing.T) {
	for name, newModel := range cachedModels() {
		t.Run(name, func(t *testing.T) { clienttest.Cached(t, newModel) })
	}
}

// Over 50 turns of 3 parallel calls, each message is encoded once.
func TestStreamCachedEncodesOnce(t *testing.T) {
	for name, newModel := range cachedModels() {
		t.Run(name, func(t *testing.T) { clienttest.EncodedOnce(t, 50, 3, newModel) })
	}
}
