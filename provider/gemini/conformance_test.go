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
		srv.APIKey = "AIza-test"
		c, err := gemini.NewClient("gemini-2.5-flash", &gemini.Config{Options: provider.Options{BaseURL: srv.URL + "/v1beta", APIKey: "AIza-test", NoStream: noStream, MaxRetries: -1}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}
