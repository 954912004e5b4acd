package codec

import (
	"strconv"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
)

// A Msg is a decoded wire message: its JSON and where its blocks are.
type Msg struct {
	Raw          []byte // the message, compact
	First, Count int32  // its blocks, by index in the decoder's block list
	Role         llm.Role
}

// Decoded is where the lists of a decoder stand: how many messages (llm
// messages and their [Msg]s, one each), blocks and notes it has made.
type Decoded struct{ Messages, Blocks, Notes int }

// SystemFirst moves the llm message, the wire message, the blocks and the
// notes that a decoder made since at (a system prompt the body gives after
// its messages, decoded last) before the others, where the llm form and
// the encoders want them, and renumbers the blocks of the messages.
func SystemFirst[B any](at Decoded, messages *[]llm.Message, msgs *[]Msg, blocks *[]B, notes *[]provider.Warning) {
	moved := int32(len(*blocks) - at.Blocks)
	*messages = rotate(*messages, at.Messages)
	*msgs = rotate(*msgs, at.Messages)
	*blocks = rotate(*blocks, at.Blocks)
	*notes = rotate(*notes, at.Notes)
	ms := *msgs
	for i := range ms {
		if i < len(ms)-at.Messages {
			ms[i].First -= int32(at.Blocks)
		} else {
			ms[i].First += moved
		}
	}
}

// rotate returns s with its elements from n on moved before the others.
func rotate[T any](s []T, n int) []T {
	if n == 0 || n == len(s) {
		return s
	}
	return append(s[n:len(s):len(s)], s[:n]...)
}

// Buffer returns an empty buffer to encode a body of msgs into: their
// size, and room for what a repair adds, so that a large body is not
// copied into a larger buffer at the end.
func Buffer(msgs []Msg) []byte {
	size := 64
	for _, m := range msgs {
		size += len(m.Raw) + 1
	}
	return make([]byte, 0, size+size/16)
}

// A Matcher finds, while encoding, the decoded blocks that the parts being
// encoded came from, so that an unchanged message is written back as it was
// and a part keeps the fields the llm form does not hold, even after the
// messages were edited, reordered or repaired. A block is written at most
// once. A Matcher is used by one Encode call.
type Matcher struct {
	msgs     []Msg
	used     []bool
	index    map[string][]int32 // blocks by identity, built on demand
	blocks   Blocks
	identity func(llm.Part) string
}

// Blocks are the blocks a decoder read, in the order [Msg] counts them.
type Blocks interface {
	// Part returns the llm part of block k.
	Part(k int) llm.Part
}

// Identity says what keys a part for a [Matcher] on a dialect's wire: a
// tool call by its id, a result by its call id, anything else by its
// content, each with the fields the dialect also writes.
type Identity struct {
	// Names adds the name to a call's and a result's key.
	Names bool
	// Signature and ReasoningText add those to a reasoning part's data.
	Signature, ReasoningText bool
	// OpaqueKind adds the kind to an opaque part's data.
	OpaqueKind bool
}

// Key returns the key of p, "" for a part of no known type.
func (id Identity) Key(p llm.Part) string {
	switch p := p.(type) {
	case llm.ToolCall:
		if id.Names {
			return "c\x00" + p.ID + "\x00" + p.Name
		}
		return "c\x00" + p.ID
	case llm.ToolResult:
		if id.Names {
			return "r\x00" + p.CallID + "\x00" + p.Name
		}
		return "r\x00" + p.CallID
	case llm.Text:
		return "t\x00" + p.Text
	case llm.Image:
		return "i\x00" + p.MediaType + "\x00" + p.URL + "\x00" + strconv.Itoa(len(p.Data))
	case llm.Reasoning:
		k := "z\x00"
		if id.Signature {
			k += p.Signature + "\x00"
		}
		if id.ReasoningText {
			k += p.Text + "\x00"
		}
		return k + string(p.Data)
	case llm.Opaque:
		if id.OpaqueKind {
			return "o\x00" + p.Kind + "\x00" + string(p.Data)
		}
		return "o\x00" + string(p.Data)
	}
	return ""
}

// NewMatcher returns a Matcher over the decoded messages msgs and the n
// blocks they hold. identity keys a part for finding it elsewhere: parts
// that are the same must have the same key, and a block with the key of a
// changed part is the one whose fields the part keeps.
func NewMatcher(msgs []Msg, blocks Blocks, n int, identity func(llm.Part) string) Matcher {
	return Matcher{msgs: msgs, used: make([]bool, n), blocks: blocks, identity: identity}
}

// Use marks block k written.
func (m *Matcher) Use(k int) { m.used[k] = true }

// Used reports whether block k was written.
func (m *Matcher) Used(k int) bool { return len(m.used) > k && m.used[k] }

// Verbatim returns the JSON of decoded message i when the message to write
// is that message unchanged: the same role, n parts, and same(j, k) for
// each part j and the block k it was decoded from. It marks the blocks
// written.
func (m *Matcher) Verbatim(i int, role llm.Role, n int, same func(j, k int) bool) ([]byte, bool) {
	if i >= len(m.msgs) {
		return nil, false
	}
	sm := m.msgs[i]
	if sm.Role != role || int(sm.Count) != n {
		return nil, false
	}
	for j := range n {
		k := int(sm.First) + j
		if m.used[k] || !same(j, k) {
			return nil, false
		}
	}
	for j := range n {
		m.used[int(sm.First)+j] = true
	}
	return sm.Raw, true
}

// Match finds the block for part p, at index j of message i: the block
// decoded there if same(k) (exact), else an unwritten block with p's
// identity for which same(k) holds (exact), else, if loose, the first
// unwritten block with p's identity. It returns -1 when there is none, and
// does not mark the block written.
func (m *Matcher) Match(i, j int, p llm.Part, same func(k int) bool, loose bool) (k int, exact bool) {
	if len(m.used) == 0 {
		return -1, false
	}
	if i < len(m.msgs) && j < int(m.msgs[i].Count) {
		k := int(m.msgs[i].First) + j
		if !m.used[k] && same(k) {
			return k, true
		}
	}
	if m.index == nil {
		m.index = make(map[string][]int32, len(m.used))
		for k := range m.used {
			key := m.identity(m.blocks.Part(k))
			m.index[key] = append(m.index[key], int32(k))
		}
	}
	found := -1
	key := m.identity(p)
	list := m.index[key]
	// Blocks are mostly written in order: dropping the written ones at the
	// front keeps a long run of alike blocks (the same text in every
	// turn) from being scanned again for each of them.
	for len(list) > 0 && m.used[list[0]] {
		list = list[1:]
	}
	m.index[key] = list
	for _, k := range list {
		if m.used[k] {
			continue
		}
		if same(int(k)) {
			return int(k), true
		}
		if found < 0 && loose {
			found = int(k)
		}
	}
	return found, false
}
