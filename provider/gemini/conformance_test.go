package gemini_test

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// TestConformance runs the llm.Model conformance suite against the
// client, streamed and whole.
func TestConformance(t *testing.T) {
	clienttest.Conformance(t, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
		return newClient(t, srv, gemini.Config{Options: provider.Options{NoStream: noStream, MaxRetries: -1}})
	})
}

// TestStreamCached checks the client, streamed and whole: StreamCached
// sends the bytes Stream sends, over a conversation with every kind of
// part and two compactions, one of which renames the calls whose results
// name no tool: their functionResponses must follow; over 50 turns of 3
// parallel calls, each message is encoded once.
func TestStreamCached(t *testing.T) {
	clienttest.CachedModels(t, map[string]func(t *testing.T, srv *llmtest.Server) llm.CachedModel{
		"streamed": func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newClient(t, srv, gemini.Config{}) },
		"whole": func(t *testing.T, srv *llmtest.Server) llm.CachedModel {
			return newClient(t, srv, gemini.Config{Options: provider.Options{NoStream: true}})
		},
	})
}
