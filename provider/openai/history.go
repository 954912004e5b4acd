package openai

import (
	"maps"
	"slices"

	"github.com/toolwire/toolwire/provider/internal/codec"
)

// A history is what decoding a body's message array leaves: enough to
// decode a body that repeats those messages and adds to them, with only
// what it adds in its array ([DecodeChatAfter], [DecodeResponsesAfter]).
// It aliases the request it was taken from, which nothing changes after
// its array is read (encoders read the source, BodyPath the paths) but
// the elements of a Responses body, which the checks after its array
// mark: the Responses decoder copies them.
type history struct {
	codec.History
	src        source // its elements, blocks and messages
	paths      pathMap
	sawSystem  bool
	systemRole SystemRole
	// Responses: the item ids and the items, for the checks that look
	// across items.
	ids  map[string]int
	seen []rsSeen
}

// history returns what the array of n elements just read leaves; wire and
// notes are how many violations and notes there were before it.
func (d *decoder) history(n, wire, notes int) *history {
	return &history{
		History: codec.Take(n, *d.msgs, d.names, *d.violations, wire, *d.unmodeled, notes, false),
		src: source{elems: slices.Clip(d.src.elems), blocks: slices.Clip(d.src.blocks),
			msgs: slices.Clip(d.src.msgs), msgElem: slices.Clip(d.src.msgElem)},
		paths:      *d.paths,
		sawSystem:  d.sawSystem,
		systemRole: *d.systemRole,
	}
}

// resume sets the decoder where h leaves it, before the first element
// after h's, on copies of what decoding goes on to change (an element
// joins the last message, and marks its own element and blocks), and
// returns the index of that element.
func (d *decoder) resume(h *history) int {
	d.src.elems = slices.Clone(h.src.elems)
	d.src.blocks = slices.Clone(h.src.blocks)
	d.src.msgs = slices.Clone(h.src.msgs)
	d.src.msgElem = slices.Clone(h.src.msgElem)
	*d.paths = pathMap{array: d.paths.array, elems: slices.Clone(h.paths.elems), parts: maps.Clone(h.paths.parts), str: maps.Clone(h.paths.str)}
	d.sawSystem, *d.systemRole = h.sawSystem, h.systemRole
	return h.Resume(d.msgs, &d.names, d.violations, d.unmodeled)
}
