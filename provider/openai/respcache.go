package openai

import (
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

var _ llm.CachedModel = (*Responses)(nil)

// respFormat names the Responses encoding of one message in a
// [llm.WireCache]: its input items, which depend on nothing but the
// message (ids are written as they are) and on whether the server stores
// them (a stored reasoning item is left out where its follower has no id,
// OAI-RS-REASONING-FOLLOW).
func (c *Responses) respFormat() string {
	if c.store {
		return "openai-responses+store"
	}
	return "openai-responses"
}

// segments returns the request body for req in pieces: the whole history,
// or with prev the messages from index from on, as [Responses.body]
// writes it. With a cache, each message's items and the tools come from
// it; without one, or for a history whose calls need ids planned (an id
// missing or too long, as in a conversation converted from Gemini), the
// body is encoded whole, in one piece.
func (c *Responses) segments(req *llm.Request, prev string, from int, cache *llm.WireCache) ([][]byte, error) {
	whole := func() ([][]byte, error) {
		body, err := c.body(req, prev, from)
		return [][]byte{body}, err
	}
	if cache == nil || codec.PlanIDs(req.Messages, rsIDRules()) != nil {
		return whole()
	}
	items, err := cache.Messages(c.respFormat(), req.Messages, func(i int, m llm.Message) ([]byte, error) {
		b, _, err := EncodeResponses(&ResponsesRequest{Messages: []llm.Message{m}, Bare: true, Fields: c.storeField()})
		if err != nil {
			return nil, err
		}
		return b[1 : len(b)-1], nil // the items, without the array's brackets
	})
	if err != nil {
		return whole() // for the error, which names the message by its index in the history
	}
	var tools []byte
	if len(req.Tools) > 0 {
		tools, err = cache.Tools(c.respFormat(), req.Tools, func(tools []llm.ToolSpec) ([]byte, error) {
			e := &rsEncoder{newEncoder(&responsesBody, request{tools: tools}), &ResponsesRequest{}}
			return e.tools(nil, tools, e.tool)
		})
		if err != nil {
			return whole()
		}
	}
	// The body's fields as EncodeResponses writes them, with holes for the
	// input and the tools.
	var f client.Frame
	input := f.Hole(func(s *client.Segments) {
		s.Open()
		s.Elems(items[from:])
		s.Close()
	})
	toolsHole := f.Hole(func(s *client.Segments) { s.Add(tools) })
	e := &rsEncoder{newEncoder(&responsesBody, request{}), &ResponsesRequest{PreviousResponseID: prev}}
	frame, err := appendTopLevel(nil, nil, c.fields(req), responsesBody.modeled, func(dst []byte, key string, first *bool) ([]byte, error) {
		switch key {
		case "input":
			if from == len(req.Messages) {
				return dst, nil
			}
			return input(appendKey(dst, first, key)), nil
		case "tools":
			if len(req.Tools) == 0 {
				return dst, nil
			}
			return toolsHole(appendKey(dst, first, key)), nil
		}
		return e.member(dst, key, first)
	})
	if err != nil {
		return nil, fmt.Errorf("openai responses: %w", err)
	}
	var s client.Segments
	s.Grow(2*(len(items)-from) + 8)
	f.Fill(&s, frame)
	return s.Pieces(), nil
}
