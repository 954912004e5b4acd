package openai

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/answertest"
	"github.com/toolwire/toolwire/provider/internal/client"
)

func newChatAnswer(h []llm.Message) client.Decoder { return newChatReader(h).decode }

func newResponsesAnswer([]llm.Message) client.Decoder { return newRespReader(false).decode }

// TestChatAnswerGolden decodes recorded Chat Completions answers, OpenAI's
// and compatible servers' misbehaving ones.
func TestChatAnswerGolden(t *testing.T) {
	answertest.Run(t, "testdata/answers/chat_*.txtar", newChatAnswer)
}

func TestResponsesAnswerGolden(t *testing.T) {
	answertest.Run(t, "testdata/answers/responses_*.txtar", newResponsesAnswer)
}

func FuzzChatAnswer(f *testing.F) {
	answertest.Fuzz(f, "testdata/answers/chat_*.txtar", newChatAnswer)
}

func FuzzResponsesAnswer(f *testing.F) {
	answertest.Fuzz(f, "testdata/answers/responses_*.txtar", newResponsesAnswer)
}
