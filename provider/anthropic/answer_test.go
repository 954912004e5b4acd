package anthropic

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/answertest"
	"github.com/toolwire/toolwire/provider/internal/client"
)

func newAnswer([]llm.Message) client.Decoder { return newMessageReader().decode }

// TestAnswerGolden decodes recorded Messages API answers.
func TestAnswerGolden(t *testing.T) {
	answertest.Run(t, "testdata/answers/*.txtar", newAnswer)
}

func FuzzAnswer(f *testing.F) {
	answertest.Fuzz(f, "testdata/answers/*.txtar", newAnswer)
}
