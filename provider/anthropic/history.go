package anthropic

import (
	"slices"

	"github.com/toolwire/toolwire/provider/internal/codec"
)

// A history is what decoding a body's messages array leaves: enough to
// decode a body that repeats those messages and adds to them, with only
// what it adds in its array ([DecodeAfter]). Its lists are copies: the
// request they were taken from puts its system prompt before them, in
// place.
type history struct {
	codec.History
	leading bool   // all the elements are role "system" messages (ANT-SYSTEM-ROLE)
	src     source // its blocks, messages and roleSys
}

// history returns what the array of n elements just read leaves; wire and
// notes are how many violations and notes there were before it.
func (d *decoder) history(n int, leading bool, wire, notes int) *history {
	r := d.r
	return &history{
		History: codec.Take(n, r.Messages, d.names, r.Wire, wire, r.Unmodeled, notes, true),
		leading: leading,
		src:     source{blocks: slices.Clone(r.src.blocks), msgs: slices.Clone(r.src.msgs), roleSys: r.src.roleSys},
	}
}

// resume sets the decoder where h leaves it, before the first element
// after h's, on copies of what decoding goes on to change, and returns
// whether only system messages came before and the index of that element.
func (d *decoder) resume(h *history) (leading bool, next int) {
	r := d.r
	r.src.blocks = slices.Clone(h.src.blocks)
	r.src.msgs = slices.Clone(h.src.msgs)
	r.src.roleSys = h.src.roleSys
	return h.leading, h.Resume(&r.Messages, &d.names, &r.Wire, &r.Unmodeled)
}
