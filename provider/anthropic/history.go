package anthropic

import (
	"maps"
	"slices"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/transcript"
)

// A history is what decoding a body's messages array leaves: enough to
// decode a body that repeats those messages and adds to them, with only
// what it adds in its array ([DecodeAfter]). Its lists are copies: the
// request they were taken from puts its system prompt before them, in
// place.
type history struct {
	n       int  // the elements of the array
	leading bool // all of them are role "system" messages (ANT-SYSTEM-ROLE)
	msgs    []llm.Message
	src     source // its blocks, messages and roleSys
	names   map[string]string
	// The violations and notes of the array's elements, apart from those
	// of the rest of the body.
	wire  []transcript.Violation
	notes []provider.Warning
}

// history returns what the array of n elements just read leaves; wire and
// notes are how many violations and notes there were before it.
func (d *decoder) history(n int, leading bool, wire, notes int) *history {
	r := d.r
	return &history{
		n: n, leading: leading,
		msgs: slices.Clone(r.Messages),
		src: source{blocks: slices.Clone(r.src.blocks), msgs: slices.Clone(r.src.msgs),
			roleSys: r.src.roleSys},
		names: d.names,
		wire:  slices.Clone(r.Wire[wire:]),
		notes: slices.Clone(r.Unmodeled[notes:]),
	}
}

// resume sets the decoder where h leaves it, before the first element
// after h's, on copies of what decoding goes on to change, and returns
// whether only system messages came before and the index of that element.
func (d *decoder) resume(h *history) (leading bool, next int) {
	r := d.r
	r.Messages = slices.Clone(h.msgs)
	r.src.blocks = slices.Clone(h.src.blocks)
	r.src.msgs = slices.Clone(h.src.msgs)
	r.src.roleSys = h.src.roleSys
	d.names = maps.Clone(h.names)
	r.Wire = append(r.Wire, h.wire...)
	r.Unmodeled = append(r.Unmodeled, h.notes...)
	return h.leading, h.n
}
