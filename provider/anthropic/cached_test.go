package anthropic_test

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// The client with its cache breakpoints, without them, and whole.
var cachedModels = map[string]func(t *testing.T, srv *llmtest.Server) llm.CachedModel{
	"breakpoints": func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newClient(t, srv, anthropic.Config{}) },
	"no breakpoints": func(t *testing.T, srv *llmtest.Server) llm.CachedModel {
		return newClient(t, srv, anthropic.Config{NoCache: true})
	},
	"whole": func(t *testing.T, srv *llmtest.Server) llm.CachedModel {
		return newClient(t, srv, anthropic.Config{Options: provider.Options{NoStream: true}})
	},
}

// StreamCached sends the bytes Stream sends, breakpoints included, over a
// conversation with every kind of part and two compactions.
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
