package codec

import (
	"maps"
	"slices"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/transcript"
)

// A History is what every codec's reading of a body's message array
// leaves, for decoding a body that repeats those messages and adds to
// them with only what it adds in its array (the codecs' DecodeAfter): the
// elements read, the llm messages, the names of the calls (for the results
// that answer them), and the violations and notes of the array's elements,
// apart from those of the rest of the body. A codec's own history adds its
// record of the elements.
type History struct {
	N     int
	Msgs  []llm.Message
	Names map[string]string
	Wire  []transcript.Violation
	Notes []provider.Warning
}

// Take returns the history of an array of n elements just read into msgs,
// names, wire and notes; wire and notes held from and notes entries before
// the array. The lists are copies when copied is set (a decoder that goes
// on to change them in place, as one that puts a system prompt read after
// the array first), else they alias the decoder's, which must not change
// them after; names is not copied (the array's reader is done with it).
func Take(n int, msgs []llm.Message, names map[string]string, wire []transcript.Violation, from int, notes []provider.Warning, notesFrom int, copied bool) History {
	h := History{N: n, Msgs: slices.Clip(msgs), Names: names, Wire: slices.Clip(wire[from:]), Notes: slices.Clip(notes[notesFrom:])}
	if copied {
		h.Msgs, h.Wire, h.Notes = slices.Clone(h.Msgs), slices.Clone(h.Wire), slices.Clone(h.Notes)
	}
	return h
}

// Resume sets a decoder's lists where h leaves them, on copies of what
// decoding goes on to change (a message may join the last one; names get
// the calls to come): the messages and names are h's, the violations and
// notes h's after those the decoder has. It returns the index of the next
// element.
func (h *History) Resume(msgs *[]llm.Message, names *map[string]string, wire *[]transcript.Violation, notes *[]provider.Warning) int {
	*msgs = slices.Clone(h.Msgs)
	if *names = maps.Clone(h.Names); *names == nil {
		*names = make(map[string]string)
	}
	*wire = append(*wire, h.Wire...)
	*notes = append(*notes, h.Notes...)
	return h.N
}
