package anthropic

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
)

// DecodeAnswer returns the answer in body, a Messages API response held in
// memory: a message object, or its events as server-sent events when
// stream is set. It is what [Client] returns for the same bytes, thinking
// blocks and their signatures included, so that the answer can be
// replayed in the next request.
func DecodeAnswer(body []byte, stream bool) (*llm.Response, error) {
	return client.DecodeAnswer(newMessageReader().decode, body, stream)
}
