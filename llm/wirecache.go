package llm

import (
	"context"
	"iter"
	"sync"
)

// A CachedModel is a [Model] that can keep the wire encoding of a
// conversation's messages between requests: the agent loop, whose history
// only grows between compactions, gives every request of one run the same
// [WireCache], and the client encodes each message once instead of on
// every turn. A loop finds the capability by type assertion, as
// database/sql finds driver.Pinger.
type CachedModel interface {
	Model
	// StreamCached is [Model.Stream] with the encodings of req.Messages
	// (and req.Tools) taken from cache where it holds them and put there
	// where it does not. The answer is the one Stream gives.
	StreamCached(ctx context.Context, req *Request, cache *WireCache) iter.Seq2[Event, error]
}

// A WireCache keeps, for one conversation, the bytes a client encoded for
// each message and for the tools, so that the next request reuses them. It
// is owned by the caller (one per conversation) and filled by the client.
//
// An entry is reused for the message at the same position only when it
// is the same message: the same role and the same Parts slice (the same
// backing array and length). A history that only grows keeps every entry;
// one compacted by fitting keeps the entries before the first message that
// changed. A caller that changes a part in place, keeping the slice, must
// call [WireCache.Reset]. The zero value is ready to use; a WireCache is
// safe for concurrent use, though one conversation uses it one request at
// a time.
type WireCache struct {
	mu       sync.Mutex
	format   string
	entries  []wireEntry
	tools    []byte
	toolsKey wireKey
	hits     int
	misses   int
}

// wireKey identifies a message or a tools slice without looking at its
// content.
type wireKey struct {
	role  Role
	first *Part
	parts int
	tools *ToolSpec
}

type wireEntry struct {
	key wireKey
	b   []byte
}

func messageKey(m Message) wireKey {
	k := wireKey{role: m.Role, parts: len(m.Parts)}
	if len(m.Parts) > 0 {
		k.first = &m.Parts[0]
	}
	return k
}

// use makes the cache hold entries of format, dropping entries of another
// one (a cache passed to two kinds of client). It is called with mu held.
func (c *WireCache) use(format string) {
	if c.format != format {
		c.format = format
		c.entries = c.entries[:0]
		c.tools, c.toolsKey = nil, wireKey{}
	}
}

// Messages returns the encoding of each of msgs in the wire format named
// format (a client's dialect and settings, which must decide the bytes
// alone), calling encode for the messages the cache does not hold and
// keeping what it returns. The cache then holds msgs and no more. The
// returned slices must not be modified.
func (c *WireCache) Messages(format string, msgs []Message, encode func(i int, m Message) ([]byte, error)) ([][]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.use(format)
	out := make([][]byte, len(msgs))
	keep := 0
	for keep < len(msgs) && keep < len(c.entries) && c.entries[keep].key == messageKey(msgs[keep]) {
		out[keep] = c.entries[keep].b
		keep++
	}
	c.hits += keep
	c.entries = c.entries[:keep]
	for i := keep; i < len(msgs); i++ {
		b, err := encode(i, msgs[i])
		if err != nil {
			return nil, err
		}
		c.misses++
		out[i] = b
		c.entries = append(c.entries, wireEntry{key: messageKey(msgs[i]), b: b})
	}
	return out, nil
}

// Tools returns the encoding of tools in format, calling encode when the
// cache does not hold it (the same slice, by backing array and length).
func (c *WireCache) Tools(format string, tools []ToolSpec, encode func([]ToolSpec) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.use(format)
	k := wireKey{parts: len(tools)}
	if len(tools) > 0 {
		k.tools = &tools[0]
	}
	if c.tools != nil && c.toolsKey == k {
		return c.tools, nil
	}
	b, err := encode(tools)
	if err != nil {
		return nil, err
	}
	c.tools, c.toolsKey = b, k
	return b, nil
}

// Reset empties the cache.
func (c *WireCache) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = nil
	c.tools, c.toolsKey = nil, wireKey{}
}

// Stats returns how many message encodings were reused and how many were
// made since the cache was created.
func (c *WireCache) Stats() (reused, encoded int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}
