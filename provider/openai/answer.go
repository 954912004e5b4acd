package openai

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
)

// DecodeChatAnswer returns the answer in body, a Chat Completions response
// held in memory: a chat.completion object, or its chunks as server-sent
// events when stream is set. It is what [Chat] returns for the same
// bytes; history is the conversation the answer continues, from which the
// ids made for calls sent without one stay apart.
func DecodeChatAnswer(body []byte, stream bool, history []llm.Message) (*llm.Response, error) {
	return client.DecodeAnswer(newChatReader(history).decode, body, stream)
}

// DecodeResponsesAnswer returns the answer in body, a Responses API
// response held in memory: a response object, or its events as
// server-sent events when stream is set. It is what [Responses]
// returns for the same bytes, reasoning items and item ids included, so
// that the answer can be replayed in the next request's input.
func DecodeResponsesAnswer(body []byte, stream bool) (*llm.Response, error) {
	return client.DecodeAnswer(newRespReader(false).decode, body, stream)
}
