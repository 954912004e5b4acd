package gemini

import (
	"context"
	"fmt"
	"iter"
	"strconv"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

var _ llm.CachedModel = (*Client)(nil)

// cacheFormat names the Gemini encoding of one message in a
// [llm.WireCache]: the parts of a leading system message, which go to
// systemInstruction, or the content of any other. A content depends on
// the messages before it too: a result that names no tool takes the name
// of the call with its id (see [encoder.callName]). The cache keeps that
// right, since it reuses an entry only after the same messages.
const cacheFormat = "gemini"

// StreamCached is [Client.Stream] with the encoding of each message kept
// in cache, for a loop that sends a growing conversation: each message is
// encoded once, and the request body is written to the connection from
// the cached pieces, never assembled in one buffer. The bytes sent are
// the ones Stream sends.
func (c *Client) StreamCached(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	if cache == nil {
		return c.Stream(ctx, req)
	}
	return c.c.PostSegments(ctx, c.path(), func() ([][]byte, error) { return c.segments(req, cache) },
		func() client.Decoder { return newContentReader(req.Messages).decode })
}

// segments returns the request body for req in pieces: the fields, the
// cached system parts and contents, and the cached tools.
func (c *Client) segments(req *llm.Request, cache *llm.WireCache) ([][]byte, error) {
	whole := func() ([][]byte, error) {
		body, err := c.body(req)
		return [][]byte{body}, err
	}
	fields, err := c.fields(req)
	if err != nil {
		return nil, err
	}
	e := newEncoder(&Request{Messages: req.Messages, Tools: req.Tools, Fields: fields})
	msgs, err := cache.Messages(cacheFormat, req.Messages, func(i int, m llm.Message) ([]byte, error) {
		if err := codec.CheckMessages("gemini: encode", []llm.Message{m}); err != nil {
			return nil, err
		}
		if i < e.lead {
			b, _ := e.systemParts(nil, i, 0)
			return b, nil
		}
		return e.content(nil, i, m, "contents."+strconv.Itoa(i-e.lead)), nil
	})
	if err != nil {
		return whole() // for the error, which names the message by its index in the history
	}
	var tools []byte
	if len(req.Tools) > 0 {
		tools, _ = cache.Tools(cacheFormat, req.Tools, func([]llm.ToolSpec) ([]byte, error) { return e.tools(nil), nil })
	}
	var f client.Frame
	frame, err := e.appendBody(nil,
		f.Hole(func(s *client.Segments) {
			s.Add([]byte(`{"parts":`))
			s.Open()
			s.Elems(msgs[:e.lead])
			s.Close()
			s.Add([]byte{'}'})
		}),
		f.Hole(func(s *client.Segments) {
			s.Open()
			s.Elems(msgs[e.lead:])
			s.Close()
		}),
		f.Hole(func(s *client.Segments) { s.Add(tools) }))
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	var s client.Segments
	s.Grow(2*len(msgs) + 12)
	f.Fill(&s, frame)
	return s.Pieces(), nil
}
