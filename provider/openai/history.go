package openai

import (
	"maps"
	"slices"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/transcript"
)

// A history is what decoding a body's message array leaves: enough to
// decode a body that repeats those messages and adds to them, with only
// what it adds in its array ([DecodeChatAfter], [DecodeResponsesAfter]).
// It aliases the request it was taken from, which nothing changes after
// its array is read (encoders read the source, BodyPath the paths) but
// the elements of a Responses body, which the checks after its array
// mark: the Responses decoder copies them.
type history struct {
	n          int // the elements of the array
	msgs       []llm.Message
	src        source // its elements, blocks and messages
	paths      pathMap
	names      map[string]string
	sawSystem  bool
	systemRole SystemRole
	// The violations and notes of the array's elements, apart from those
	// of the rest of the body.
	wire  []transcript.Violation
	notes []provider.Warning
	// Responses: the item ids and the items, for the checks that look
	// across items.
	ids  map[string]int
	seen []rsSeen
}

// history returns what the array of n elements just read leaves; wire and
// notes are how many violations and notes there were before it.
func (d *decoder) history(n, wire, notes int) *history {
	return &history{
		n:    n,
		msgs: slices.Clip(*d.msgs),
		src: source{elems: slices.Clip(d.src.elems), blocks: slices.Clip(d.src.blocks),
			msgs: slices.Clip(d.src.msgs), msgElem: slices.Clip(d.src.msgElem)},
		paths:      *d.paths,
		names:      d.names,
		sawSystem:  d.sawSystem,
		systemRole: *d.systemRole,
		wire:       slices.Clip((*d.violations)[wire:]),
		notes:      slices.Clip((*d.unmodeled)[notes:]),
	}
}

// resume sets the decoder where h leaves it, before the first element
// after h's, on copies of what decoding goes on to change: an element
// joins the last message, and marks its own element and blocks.
func (d *decoder) resume(h *history) {
	*d.msgs = slices.Clone(h.msgs)
	d.src.elems = slices.Clone(h.src.elems)
	d.src.blocks = slices.Clone(h.src.blocks)
	d.src.msgs = slices.Clone(h.src.msgs)
	d.src.msgElem = slices.Clone(h.src.msgElem)
	array := d.paths.array
	*d.paths = pathMap{array: array, elems: slices.Clone(h.paths.elems), parts: maps.Clone(h.paths.parts), str: maps.Clone(h.paths.str)}
	d.names = maps.Clone(h.names)
	d.sawSystem, *d.systemRole = h.sawSystem, h.systemRole
	*d.violations = append(*d.violations, h.wire...)
	*d.unmodeled = append(*d.unmodeled, h.notes...)
}
