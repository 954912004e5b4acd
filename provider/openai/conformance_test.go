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
		srv.APIKey = "sk-test"
		m, err := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test", NoStream: noStream, MaxRetries: -1}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

// TestResponsesConformance runs the llm.Model conformance suite against
// Responses, streamed and whole, with the whole history in each request
// and with responses stored on the server.
func TestResponsesConformance(t *testing.T) {
	for _, store := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateless", true: "stored"}[store], func(t *testing.T) {
			clienttest.Conformance(t, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
				srv.APIKey = "sk-test"
				m, err := openai.NewResponses("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test", NoStream: noStream, MaxRetries: -1}, Store: store})
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}
