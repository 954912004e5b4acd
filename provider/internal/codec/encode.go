package codec

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
)

// An Encoder writes one request of a dialect that keeps the blocks it
// decoded (Anthropic, Gemini), for [Encode]. It embeds a [Frame].
type Encoder interface {
	// Source returns the decoded messages the request came from, nil for a
	// conversion: Encode sizes its buffer by them.
	Source() []Msg
	// Bare writes the messages as a bare array.
	Bare(dst []byte) []byte
	// Body writes the request body.
	Body(dst []byte) ([]byte, error)
	frame() *Frame
}

// A Frame is what [Encode] reads of an [Encoder]: its warnings, and how
// many OpenAI Responses item ids it dropped, which Encode reports in one
// warning.
type Frame struct {
	Warner
	itemIDs int
}

func (f *Frame) frame() *Frame { return f }

// DropItemID counts the item id of c, if it has one: the dialect has no
// place for it.
func (f *Frame) DropItemID(c llm.ToolCall) {
	if c.ItemID != "" {
		f.itemIDs++
	}
}

// Encode writes a request of the dialect whose errors start with op
// ("anthropic") and whose warnings call it name ("Anthropic"): it checks
// msgs, the request's messages, makes the encoder with newEncoder (which
// then sees only messages it can write), and writes the messages as a
// bare array (bare) or the body, then warns of the item ids dropped.
func Encode(op, name string, msgs []llm.Message, bare bool, newEncoder func() Encoder) ([]byte, []provider.Warning, error) {
	if err := CheckMessages(op+": encode", msgs); err != nil {
		return nil, nil, err
	}
	e := newEncoder()
	f := e.frame()
	dst := Buffer(e.Source())
	var err error
	if bare {
		dst = e.Bare(dst)
	} else if dst, err = e.Body(dst); err != nil {
		return nil, nil, err
	}
	if f.itemIDs > 0 {
		f.Warnf("", "%d OpenAI Responses item id(s) (ToolCall.ItemID) have no %s equivalent and were dropped", f.itemIDs, name)
	}
	return dst, f.Warnings, nil
}
