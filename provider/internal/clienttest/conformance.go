package clienttest

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/llm/modeltest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// Conformance runs [modeltest.Exercise], streamed and whole, against the
// client newModel opens on an [llmtest.Server] that answers the suite's
// script. newModel must turn the client's retries off: each scripted
// failure answers one request.
//
// A client asked for whole answers lacks [modeltest.Streaming], as it
// must: a failure cannot come in the middle of an answer that is not a
// stream. It lacks nothing else.
func Conformance(t *testing.T, newModel func(t *testing.T, srv *llmtest.Server, noStream bool) llm.Model) {
	t.Helper()
	Modes(t, "conformance", func(t *testing.T, noStream bool) {
		var lacks modeltest.Capability
		if noStream {
			lacks = modeltest.Streaming
		}
		modeltest.Exercise(t, modeltest.Harness{Lacks: lacks, Open: func(t *testing.T, turns ...modeltest.Turn) modeltest.Backend {
			srv := llmtest.NewServer(t, Script(turns)...)
			return modeltest.Backend{Model: newModel(t, srv, noStream), Requests: func() []modeltest.Request {
				var out []modeltest.Request
				for _, r := range srv.Requests() {
					out = append(out, modeltest.Request{Body: r.Body, Rejected: r.Rejected})
				}
				return out
			}}
		}})
	})
}

// Script returns the llmtest turns that answer as turns say: a turn with
// nothing in it is an empty message.
func Script(turns []modeltest.Turn) []llmtest.Turn {
	out := make([]llmtest.Turn, len(turns))
	for i, mt := range turns {
		lt := llmtest.Turn{Reasoning: mt.Reasoning, Text: mt.Text, Usage: mt.Usage, Chunk: mt.Chunk, Interleave: mt.Interleave}
		lt.Calls, lt.Error = mt.Calls, mt.Error
		if mt.CutOff {
			lt.Misbehave |= llmtest.LengthMidCall
		}
		if mt.Truncate {
			lt.Misbehave |= llmtest.Truncate
		}
		if mt.Reasoning == "" && mt.Text == "" && len(mt.Calls) == 0 && mt.Error == nil {
			lt.Misbehave |= llmtest.EmptyMessage
		}
		out[i] = lt
	}
	return out
}
