package openai_test

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
)

// TestChatConformance runs the llm.Model conformance suite against Chat,
// streamed and whole.
func TestChatConformance(t *testing.T) {
	clienttest.Conformance(t, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
		return newChat(t, srv, openai.Config{Options: provider.Options{NoStream: noStream, MaxRetries: -1}})
	})
}

// TestResponsesConformance runs the llm.Model conformance suite against
// Responses, streamed and whole, with the whole history in each request
// and with responses stored on the server.
func TestResponsesConformance(t *testing.T) {
	for _, store := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateless", true: "stored"}[store], func(t *testing.T) {
			clienttest.Conformance(t, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
				return newResponses(t, srv, openai.Config{Options: provider.Options{NoStream: noStream, MaxRetries: -1}, Store: store})
			})
		})
	}
}

// TestStreamCached checks the clients that keep encodings in a WireCache,
// each with its settings: StreamCached sends the bytes Stream sends, over
// a conversation with every kind of part and two compactions; over 50
// turns of 3 parallel calls, each message is encoded once.
func TestStreamCached(t *testing.T) {
	clienttest.CachedModels(t, map[string]func(t *testing.T, srv *llmtest.Server) llm.CachedModel{
		"chat": func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newChat(t, srv, openai.Config{}) },
		"chat whole": func(t *testing.T, srv *llmtest.Server) llm.CachedModel {
			return newChat(t, srv, openai.Config{Options: provider.Options{NoStream: true}})
		},
		"responses": func(t *testing.T, srv *llmtest.Server) llm.CachedModel { return newResponses(t, srv, openai.Config{}) },
		"responses store": func(t *testing.T, srv *llmtest.Server) llm.CachedModel {
			return newResponses(t, srv, openai.Config{Store: true})
		},
	})
}
