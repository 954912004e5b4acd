package gemini

import (
	"maps"
	"slices"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/transcript"
)

// A history is what decoding a body's contents array leaves: enough to
// decode a body that repeats those contents and adds to them, with only
// what it adds in its array ([DecodeAfter]). Its lists are copies: the
// request they were taken from puts its system instruction before them,
// in place.
type history struct {
	n     int // the elements of the array
	msgs  []llm.Message
	src   source // its blocks, messages and heads
	names map[string]string
	// The violations and notes of the array's elements, apart from those
	// of the rest of the body.
	wire  []transcript.Violation
	notes []provider.Warning
}

// history returns what the array of n elements just read leaves; wire and
// notes are how many violations and notes there were before it.
func (d *decoder) history(n, wire, notes int) *history {
	r := d.r
	return &history{
		n:     n,
		msgs:  slices.Clone(r.Messages),
		src:   source{blocks: slices.Clone(r.src.blocks), msgs: slices.Clone(r.src.msgs), heads: maps.Clone(r.src.heads)},
		names: d.names,
		wire:  slices.Clone(r.Wire[wire:]),
		notes: slices.Clone(r.Unmodeled[notes:]),
	}
}

// resume sets the decoder where h leaves it, before the first element
// after h's, on copies of what decoding goes on to change, and returns
// the index of that element.
func (d *decoder) resume(h *history) (next int) {
	r := d.r
	r.Messages = slices.Clone(h.msgs)
	r.src.blocks = slices.Clone(h.src.blocks)
	r.src.msgs = slices.Clone(h.src.msgs)
	r.src.heads = maps.Clone(h.src.heads)
	d.names = maps.Clone(h.names)
	r.Wire = append(r.Wire, h.wire...)
	r.Unmodeled = append(r.Unmodeled, h.notes...)
	return h.n
}
