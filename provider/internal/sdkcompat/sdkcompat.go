// Package sdkcompat holds the official-SDK oracle tests of the provider
// codecs and clients, in a module of its own: the request bodies the codecs
// write are the SDKs' request types field for field, and the clients read
// recorded answers as the SDKs do (openai-go for provider/openai,
// anthropic-sdk-go for provider/anthropic).
//
// The SDKs are needed by these tests alone. Kept out of the main module,
// they and their dependencies stay out of the module graph of every
// program that uses github.com/toolwire/toolwire. The module reaches the
// main one through a replace directive, so it always tests the code beside
// it; run it from this directory:
//
//	go test -race ./...
//
// This package holds what the two test packages share: a server that
// answers with a recorded answer, and the events of a recorded stream.
package sdkcompat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/answertest"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// NewModel returns the client under test, speaking to the server at
// baseURL, asking for whole answers when noStream is set, not streamed
// ones.
type NewModel func(baseURL string, noStream bool) (llm.Model, error)

// Answer serves c's recorded answer to the request the client newModel
// builds sends for c's history (a question when it has none), and returns
// what the client made of it, as llm.Accumulator assembles it.
//
// The server answers as the provider would only a request it would take:
// one whose body provider/wire accepts in dialect d and that asks for a
// stream exactly when c is one. Any other request fails the test.
func Answer(t *testing.T, c answertest.Case, d transcript.Dialect, newModel NewModel) (*llm.Response, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read the request: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if msg := refusal(body, d, c.Stream); msg != "" {
			t.Errorf("the client sent a body the provider refuses: %s\n%s", msg, body)
			http.Error(w, msg, http.StatusBadRequest)
			return
		}
		ct := "application/json"
		if c.Stream {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(c.Body)
	}))
	defer srv.Close()

	m, err := newModel(srv.URL, !c.Stream)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	req := &llm.Request{Messages: c.History}
	if len(req.Messages) == 0 {
		req.Messages = []llm.Message{llm.User("Hi.")}
	}
	var acc llm.Accumulator
	for ev, err := range m.Stream(context.Background(), req) {
		if err != nil {
			return nil, err
		}
		acc.Add(ev)
	}
	return acc.Response()
}

// refusal returns why the provider would refuse body, or "".
func refusal(body []byte, d transcript.Dialect, stream bool) string {
	rep, err := wire.Check(body, d)
	if err != nil {
		return err.Error()
	}
	if !rep.Accepted() {
		for _, v := range rep.Violations {
			if !v.Warning {
				return v.String()
			}
		}
	}
	var opts struct {
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(body, &opts); err != nil {
		return err.Error()
	}
	if opts.Stream != stream {
		return fmt.Sprintf(`"stream": %v asked for an answer recorded with "stream": %v`, opts.Stream, stream)
	}
	return ""
}

// Events returns the data of each event of a recorded stream, without the
// closing [DONE] of OpenAI's streams.
func Events(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	r := sse.NewReader(bytes.NewReader(body), 0)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(ev.Data) != "[DONE]" {
			out = append(out, bytes.Clone(ev.Data))
		}
	}
}
