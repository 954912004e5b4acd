package anthropic_test

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/internal/clienttest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// TestConformance runs the llm.Model conformance suite against the
// client, streamed and whole.
func TestConformance(t *testing.T) {
	clienttest.Conformance(t, func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model {
		return newClient(t, srv, anthropic.Config{Options: provider.Options{NoStream: noStream, MaxRetries: -1}})
	})
}
