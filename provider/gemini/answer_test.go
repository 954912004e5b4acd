package gemini

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/answertest"
	"github.com/toolwire/toolwire/provider/internal/client"
)

func newAnswer(h []llm.Message) client.Decoder { return newContentReader(h).decode }

// TestAnswerGolden decodes recorded Gemini answers.
func TestAnswerGolden(t *testing.T) {
	answertest.Run(t, "testdata/answers/*.txtar", newAnswer)
}

func FuzzAnswer(f *testing.F) {
	answertest.Fuzz(f, "testdata/answers/*.txtar", newAnswer)
}
