// Package clients holds the tests of real clients — the official OpenAI
// and Anthropic SDKs for Go, and LangGraph.js — pointed at toolwire's
// gateway, with the conformance test provider (provider/llmtest) as the
// upstream. It is a module of its own, as provider/internal/sdkcompat is:
// the SDKs stay out of the main module's graph. Run it from this
// directory:
//
//	go test -race ./...
package clients

import (
	"net/http/httptest"
	"testing"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// Start starts a conformance server that answers with turns and a
// gateway with policy in front of it, for every dialect, and returns the
// gateway's URL and the server. Both stop when the test ends.
func Start(t testing.TB, policy gateway.Policy, turns ...llmtest.Turn) (string, *llmtest.Server) {
	t.Helper()
	up := llmtest.NewServer(t, turns...)
	g, err := gateway.New(&gateway.Config{OpenAI: up.URL, Anthropic: up.URL, Gemini: up.URL, Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv.URL, up
}
