package client

import (
	"context"
	"iter"
	"slices"

	"github.com/toolwire/toolwire/llm"
)

// Segments is a request body built as pieces, which [PostSegments] writes
// to the connection one after the other: the bytes a client writes for
// each request, and between them the encodings it keeps in an
// [llm.WireCache], which are never copied into one buffer.
//
//	var s client.Segments
//	s.Add(head)
//	s.Open()
//	for _, b := range messages {
//		s.Elem(b)
//	}
//	s.Close()
//	s.Add(tail)
//	pieces := s.Pieces()
//
// The zero value is an empty body.
type Segments struct {
	pieces [][]byte
	n      int // the elements of the array being written
}

// The punctuation the pieces are joined with.
var (
	comma   = []byte{','}
	bracket = []byte{'['}
	closing = []byte{']'}
)

// Grow makes room for n more pieces: an array of n elements takes about
// 2n, with its commas.
func (s *Segments) Grow(n int) { s.pieces = slices.Grow(s.pieces, n) }

// Add appends pieces of the body, leaving out empty ones.
func (s *Segments) Add(pieces ...[]byte) {
	for _, p := range pieces {
		if len(p) > 0 {
			s.pieces = append(s.pieces, p)
		}
	}
}

// Open appends the opening bracket of an array, whose first element is the
// next one [Segments.Elem] adds.
func (s *Segments) Open() {
	s.pieces = append(s.pieces, bracket)
	s.n = 0
}

// Close appends the closing bracket of the array.
func (s *Segments) Close() { s.pieces = append(s.pieces, closing) }

// Elem appends one element of the array being written, in pieces (a
// cached encoding, or one cut in two around what is inserted into it),
// after a comma unless it is the first. An element of no bytes (a message
// with nothing the dialect can write) is left out, with its comma.
func (s *Segments) Elem(pieces ...[]byte) {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if n == 0 {
		return
	}
	if s.n > 0 {
		s.pieces = append(s.pieces, comma)
	}
	s.n++
	s.Add(pieces...)
}

// Elems appends each of elems as an element, as Elem does.
func (s *Segments) Elems(elems [][]byte) {
	for _, e := range elems {
		s.Elem(e)
	}
}

// Pieces returns the body's pieces, in order.
func (s *Segments) Pieces() [][]byte { return s.pieces }

// A Frame is a request body written by a codec's own body writer with
// holes where the parts a client keeps cached go (the system prompt, the
// messages, the tools): each writer callback the codec calls for such a
// part is a [Frame.Hole], which writes nothing and records where the part
// belongs. The frame's bytes are then the body's top-level fields, in the
// codec's order and spelling, and [Frame.Fill] writes the body with each
// hole filled.
type Frame struct {
	holes []hole
}

type hole struct {
	at   int
	fill func(s *Segments)
}

// Hole returns a writer callback for a body writer: it writes nothing,
// and records that fill writes the part where it was called.
func (f *Frame) Hole(fill func(s *Segments)) func(dst []byte) []byte {
	return func(dst []byte) []byte {
		f.holes = append(f.holes, hole{at: len(dst), fill: fill})
		return dst
	}
}

// Fill appends to s the body whose frame, written with f's holes, is
// body: its bytes, with each hole filled.
func (f *Frame) Fill(s *Segments, body []byte) {
	at := 0
	for _, h := range f.holes {
		s.Add(body[at:h.at])
		h.fill(s)
		at = h.at
	}
	s.Add(body[at:])
}

// PostSegments is [Client.Post] for a body written in pieces (see
// [Segments]), which go to the connection as they are.
func (c *Client) PostSegments(ctx context.Context, path string, body func() ([][]byte, error), newDecoder func() Decoder) iter.Seq2[llm.Event, error] {
	return Stream(func(emit func(llm.Event) bool) error {
		segs, err := body()
		if err != nil {
			return err
		}
		return c.Call(ctx, PostSegments(c.URL(path), c.header, segs), newDecoder, emit)
	})
}
