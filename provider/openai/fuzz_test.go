package openai

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// The fuzz targets check the codec contract on arbitrary bytes: decoding
// never panics and fails only with a *DecodeError; whatever decodes
// re-encodes without error to a body that decodes to the same llm form and
// encodes to the same bytes. Every test body of the dialect seeds the
// corpus, besides the committed one under testdata/fuzz/.

func FuzzDecodeChat(f *testing.F) {
	codectest.Fuzz[decoded, *llm.DecodeError](f, codecs[0].Codec, "testdata/chat/*.txtar",
		func(t *testing.T, cy codectest.Cycle[decoded]) { checkCycle(t, "chat", cy) })
}

func FuzzDecodeResponses(f *testing.F) {
	codectest.Fuzz[decoded, *llm.DecodeError](f, codecs[1].Codec, "testdata/responses/*.txtar",
		func(t *testing.T, cy codectest.Cycle[decoded]) { checkCycle(t, "responses", cy) })
}
