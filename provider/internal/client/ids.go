package client

import (
	"hash/fnv"
	"strconv"

	"github.com/toolwire/toolwire/llm"
)

// IDs gives the tool calls of one answer ids that are unique in the
// conversation, for servers that send none or send one twice (some
// OpenAI-compatible servers; Gemini, whose ids are optional). A made id is
// deterministic: the same history gets the same ids, so that a replayed
// run sends the same requests.
//
// An IDs serves one answer and is not safe for concurrent use.
type IDs struct {
	prefix string
	base   string
	taken  map[string]bool
	n      int
}

// NewIDs returns the ids of an answer to history; made ids start with
// prefix ("call_").
func NewIDs(prefix string, history []llm.Message) *IDs {
	x := &IDs{prefix: prefix, taken: make(map[string]bool)}
	h := fnv.New64a()
	h.Write(strconv.AppendInt(nil, int64(len(history)), 10))
	for _, m := range history {
		for _, p := range m.Parts {
			if c, ok := p.(llm.ToolCall); ok && c.ID != "" {
				x.taken[c.ID] = true
				h.Write([]byte(c.ID))
				h.Write([]byte{0})
			}
		}
	}
	if len(history) > 0 {
		last := history[len(history)-1]
		h.Write([]byte(last.Role))
		h.Write([]byte(last.Text()))
		for _, r := range last.ToolResults() {
			h.Write([]byte(r.CallID))
		}
	}
	x.base = prefix + strconv.FormatUint(h.Sum64()&0xffffffffff, 36) + "_"
	return x
}

// Use returns id, marked as taken, when no earlier call has it; else a
// variant of it that none has ("call_1_2"); and for "" a made id.
func (x *IDs) Use(id string) string {
	if id == "" {
		return x.Make()
	}
	if !x.taken[id] {
		x.taken[id] = true
		return id
	}
	for k := 2; ; k++ {
		c := id + "_" + strconv.Itoa(k)
		if !x.taken[c] {
			x.taken[c] = true
			return c
		}
	}
}

// Make returns a new made id.
func (x *IDs) Make() string {
	for {
		x.n++
		c := x.base + strconv.Itoa(x.n)
		if !x.taken[c] {
			x.taken[c] = true
			return c
		}
	}
}
