package gemini

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
)

// DecodeAnswer returns the answer in body, a generateContent response held
// in memory, or the responses of streamGenerateContent?alt=sse as
// server-sent events when stream is set. It is what [Client] returns for
// the same bytes, thought signatures included, so that the answer can be
// replayed in the next request; history is the conversation the answer
// continues, from which the ids made for calls sent without one stay
// apart.
func DecodeAnswer(body []byte, stream bool, history []llm.Message) (*llm.Response, error) {
	return client.DecodeAnswer(newContentReader(history).decode, body, stream)
}
