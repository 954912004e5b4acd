package gateway

import (
	"testing"

	"github.com/toolwire/toolwire/gateway/internal/broken"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

var (
	brokenHistories = broken.Histories
	okHistory       = broken.OK
	call            = broken.Call
	result          = broken.Result
)

// body encodes msgs as a request body of dialect d.
func body(t testing.TB, d transcript.Dialect, msgs []llm.Message, stream bool) []byte {
	t.Helper()
	b, err := broken.Body(d, msgs, stream)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
