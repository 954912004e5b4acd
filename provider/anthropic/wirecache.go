package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

var _ llm.CachedModel = (*Client)(nil)

// cacheFormat names the Anthropic encoding of one message in a
// [llm.WireCache], a [cached] value: the text blocks of a leading system
// message, or the message. It depends on nothing but the message; the
// breakpoints, which depend on the others, are set when a body is written.
const cacheFormat = "anthropic"

// StreamCached is [Client.Stream] with the encoding of each message kept
// in cache, for a loop that sends a growing conversation: each message is
// encoded once, and the request body is written to the connection from
// the cached pieces, never assembled in one buffer. The client's cache
// breakpoints are set between the pieces, where Stream sets them, without
// reading the body again: the bytes sent are the ones Stream sends. A
// history whose calls need ids planned (an id missing or refused by
// ANT-ID-PATTERN, as in a conversation converted from another dialect) is
// encoded whole, as Stream does.
func (c *Client) StreamCached(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	if cache == nil {
		return c.Stream(ctx, req)
	}
	return c.c.PostSegments(ctx, "/v1/messages", func() ([][]byte, error) { return c.segments(req, cache) },
		func() client.Decoder { return newMessageReader().decode })
}

// A cached value is an encoding as the client keeps it in a WireCache:
// its JSON, then two bytes that let the client place its breakpoints
// without reading the JSON again: how many cache_control members the JSON
// holds (at most 255), and the [mark] of its last object (the last block
// of a user message's content, the last tool; markNone for the rest).
type cached []byte

// pack returns the cached value of b, whose last object takes mark m.
func pack(b []byte, m mark) cached {
	return append(b, byte(min(bytes.Count(b, cacheControl), 255)), byte(m))
}

func (c cached) json() []byte { return c[:len(c)-2] }
func (c cached) count() int   { return int(c[len(c)-2]) }
func (c cached) mark() mark   { return mark(c[len(c)-1]) }

// segments returns the request body for req in pieces: the fields, the
// cached system blocks, messages and tools, and the breakpoints between
// them.
func (c *Client) segments(req *llm.Request, cache *llm.WireCache) ([][]byte, error) {
	r, err := c.request(req)
	if err != nil {
		return nil, err
	}
	e := newEncoder(r)
	whole := func() ([][]byte, error) {
		body, err := c.body(req)
		return [][]byte{body}, err
	}
	if e.ids != nil {
		return whole()
	}
	msgs, err := cache.Messages(cacheFormat, req.Messages, func(i int, m llm.Message) ([]byte, error) {
		if err := codec.CheckMessages("anthropic: encode", []llm.Message{m}); err != nil {
			return nil, err
		}
		if i < e.lead {
			b, _ := e.textBlocks(nil, i, 0)
			return pack(b, markNone), nil
		}
		b, last := e.message(nil, i, m)
		mk := markNone
		if last >= 0 && m.Role != llm.RoleAssistant && m.Role != llm.RoleSystem { // a "user" message
			mk = blockMark(b[last : len(b)-2]) // before the content's ] and the message's }
		}
		return pack(b, mk), nil
	})
	if err != nil {
		return whole() // for the error, which names the message by its index in the history
	}
	w := &cachedBody{msgs: msgs, lead: e.lead}
	if len(req.Tools) > 0 {
		w.tools, _ = cache.Tools(cacheFormat, req.Tools, func([]llm.ToolSpec) ([]byte, error) {
			b := e.tools(nil)
			return pack(b, objectMark(b[e.lastTool:len(b)-1])), nil
		})
	}
	for _, m := range req.Messages[:e.lead] {
		for _, p := range m.Parts {
			if _, ok := p.(llm.Text); ok {
				w.texts++
			}
		}
	}
	var f client.Frame
	frame, err := e.appendBody(nil, f.Hole(w.system), f.Hole(w.messages), f.Hole(w.writeTools))
	if err != nil {
		return nil, fmt.Errorf("anthropic messages: %w", err)
	}
	if c.cache {
		w.place(frame)
	}
	var s client.Segments
	s.Grow(2*len(msgs) + 16)
	f.Fill(&s, frame)
	return s.Pieces(), nil
}

// A cachedBody writes the modeled values of a body from cached encodings,
// with the client's breakpoints.
type cachedBody struct {
	msgs  [][]byte // the cached encoding of each message
	lead  int      // the leading system messages among them
	texts int      // the text parts of those
	tools cached   // nil for no tools

	// Where the breakpoints go.
	marked    []int // the messages that take one
	markSys   bool
	markTools bool
}

// place decides where the breakpoints go in the body whose frame (its
// other fields) is frame, as [markCache] decides on the whole body: on the
// system prompt, the last tool and the last block of the two newest user
// messages, without exceeding [maxBreakpoints] with the ones the body
// holds already.
func (w *cachedBody) place(frame []byte) {
	budget := maxBreakpoints - bytes.Count(frame, cacheControl)
	for _, m := range w.msgs {
		budget -= cached(m).count()
	}
	if w.tools != nil {
		budget -= w.tools.count()
	}
	if budget > 0 && w.texts > 0 && !(w.texts == 1 && bytes.Equal(cached(w.msgs[w.lastText()]).json(), []byte(textBlock+`""}`))) {
		w.markSys = true // the API refuses a breakpoint on empty text
		budget--
	}
	if budget > 0 && w.tools != nil {
		w.markTools = w.tools.mark() != markHeld
		budget--
	}
	for i, n := len(w.msgs)-1, min(budget, 2); i >= w.lead && n > 0; i-- {
		switch cached(w.msgs[i]).mark() {
		case markNone:
			continue
		case markAppend, markEmpty:
			w.marked = append(w.marked, i)
		}
		n--
	}
}

// lastText returns the index of the last leading system message that has
// text, -1 when none has.
func (w *cachedBody) lastText() int {
	for i := w.lead - 1; i >= 0; i-- {
		if len(cached(w.msgs[i]).json()) > 0 {
			return i
		}
	}
	return -1
}

// system writes the system prompt: its one text as a string, else an
// array of text blocks; with a breakpoint, always an array, the
// breakpoint on its last block.
func (w *cachedBody) system(s *client.Segments) {
	last := w.lastText()
	if w.texts == 1 && !w.markSys {
		b := cached(w.msgs[last]).json()
		s.Add(b[len(textBlock) : len(b)-1])
		return
	}
	s.Open()
	for i, m := range w.msgs[:w.lead] {
		b := cached(m).json()
		if w.markSys && i == last {
			s.Elem(b[:len(b)-1], appendBreakpoint, b[len(b)-1:])
			continue
		}
		s.Elem(b)
	}
	s.Close()
}

// messages writes the messages array.
func (w *cachedBody) messages(s *client.Segments) {
	s.Open()
	for i, m := range w.msgs[w.lead:] {
		b := cached(m).json()
		if len(w.marked) > 0 && slices.Contains(w.marked, w.lead+i) {
			at := len(b) - 3 // the last block's }, before the content's ] and the message's }
			s.Elem(b[:at], cached(m).mark().insert(), b[at:])
			continue
		}
		s.Elem(b)
	}
	s.Close()
}

// writeTools writes the tools array.
func (w *cachedBody) writeTools(s *client.Segments) {
	b := w.tools.json()
	if w.markTools {
		at := len(b) - 2 // the last tool's }, before the array's ]
		s.Add(b[:at], appendBreakpoint, b[at:])
		return
	}
	s.Add(b)
}
