package gemini

import (
	"maps"
	"slices"

	"github.com/toolwire/toolwire/provider/internal/codec"
)

// A history is what decoding a body's contents array leaves: enough to
// decode a body that repeats those contents and adds to them, with only
// what it adds in its array ([DecodeAfter]). Its lists are copies: the
// request they were taken from puts its system instruction before them,
// in place.
type history struct {
	codec.History
	src source // its blocks, messages and heads
}

// history returns what the array of n elements just read leaves; wire and
// notes are how many violations and notes there were before it.
func (d *decoder) history(n, wire, notes int) *history {
	r := d.r
	return &history{
		History: codec.Take(n, r.Messages, d.names, r.Wire, wire, r.Unmodeled, notes, true),
		src:     source{blocks: slices.Clone(r.src.blocks), msgs: slices.Clone(r.src.msgs), heads: maps.Clone(r.src.heads)},
	}
}

// resume sets the decoder where h leaves it, before the first element
// after h's, on copies of what decoding goes on to change, and returns
// the index of that element.
func (d *decoder) resume(h *history) (next int) {
	r := d.r
	r.src.blocks = slices.Clone(h.src.blocks)
	r.src.msgs = slices.Clone(h.src.msgs)
	r.src.heads = maps.Clone(h.src.heads)
	return h.Resume(&r.Messages, &d.names, &r.Wire, &r.Unmodeled)
}
