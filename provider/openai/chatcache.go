package openai

import (
	"bytes"
	"context"
	"fmt"
	"iter"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

var _ llm.CachedModel = (*Chat)(nil)

// chatFormat names the Chat encoding of one message in a [llm.WireCache]:
// it depends on nothing but the message (a client writes system messages
// with the system role, and ids as they are).
const chatFormat = "openai-chat"

// StreamCached is [Chat.Stream] with the encoding of each message kept in
// cache, for a loop that sends a growing conversation: each message is
// encoded once, and the request body is written to the connection from
// the cached pieces, never assembled in one buffer. The bytes sent are
// the ones Stream sends. A history whose calls need ids planned (an id
// missing, as in a conversation converted from Gemini) is encoded whole,
// as Stream does.
func (c *Chat) StreamCached(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	if cache == nil {
		return c.Stream(ctx, req)
	}
	return c.t.c.PostSegments(ctx, chatPath, func() ([][]byte, error) { return c.segments(req, cache) },
		func() client.Decoder { return newChatReader(req.Messages).decode })
}

// segments returns the request body for req in pieces: the fields and
// the opening of the messages array, each message's elements, and the
// tools and the closing brace.
func (c *Chat) segments(req *llm.Request, cache *llm.WireCache) ([][]byte, error) {
	if codec.PlanIDs(req.Messages, chatIDRules()) != nil {
		body, err := c.body(req)
		return [][]byte{body}, err
	}
	fields, err := c.fields(req)
	if err != nil {
		return nil, err
	}
	head, _, err := EncodeChat(&ChatRequest{Fields: fields})
	if err != nil {
		return nil, fmt.Errorf("openai chat: %w", err)
	}
	// With no messages and no tools the body ends with the empty
	// messages array, which the pieces fill.
	head, ok := bytes.CutSuffix(head, []byte(`"messages":[]}`))
	if !ok {
		body, err := c.body(req)
		return [][]byte{body}, err
	}
	head = append(head, `"messages":`...)
	msgs, err := cache.Messages(chatFormat, req.Messages, func(i int, m llm.Message) ([]byte, error) {
		b, _, err := EncodeChat(&ChatRequest{Messages: []llm.Message{m}, Bare: true})
		if err != nil {
			return nil, err
		}
		return b[1 : len(b)-1], nil // the elements, without the array's brackets
	})
	if err != nil {
		// Encode the whole history for the error, which names the
		// message by its index in it.
		body, err := c.body(req)
		return [][]byte{body}, err
	}
	var tail []byte
	if len(req.Tools) > 0 {
		tools, err := cache.Tools(chatFormat, req.Tools, func(tools []llm.ToolSpec) ([]byte, error) {
			// The tools array as EncodeChat writes it in a body.
			b, _, err := EncodeChat(&ChatRequest{Tools: tools})
			if err != nil {
				return nil, err
			}
			_, after, ok := bytes.Cut(b, []byte(`"tools":`))
			if !ok || !bytes.HasSuffix(after, []byte("}")) {
				return nil, fmt.Errorf("openai chat: encode tools: no tools array in %s", b)
			}
			return after[:len(after)-1], nil
		})
		if err != nil {
			return nil, err
		}
		tail = append(append(tail, `,"tools":`...), tools...)
	}
	tail = append(tail, '}')
	var s client.Segments
	s.Grow(2*len(msgs) + 4)
	s.Add(head)
	s.Open()
	s.Elems(msgs)
	s.Close()
	s.Add(tail)
	return s.Pieces(), nil
}
