package anthropic

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// FuzzDecode checks that Decode never panics and fails only with a
// *llm.DecodeError, that whatever it accepts Encode can write, and that
// encode(decode(x)) is a fixed point after one cycle.
func FuzzDecode(f *testing.F) {
	codectest.Fuzz[*Request, *llm.DecodeError](f, tested, "testdata/roundtrip/*.txtar", nil)
}
