package openai

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Responses is an [llm.Model] served by the Responses API
// (POST {BaseURL}/responses). Requests are written by [EncodeResponses];
// answers are read as server-sent events, or whole with Config.NoStream.
//
// With Config.Store, responses stay on the server and a request whose
// history starts with a conversation the client has seen answered sends
// only the messages after it, with "previous_response_id": a turn's cost
// follows its new messages, not the whole history. When the server has
// lost the response (previous_response_not_found), the client sends the
// whole history instead, once, without the caller noticing. Without Store,
// every request holds the whole history, reasoning items included
// (encrypted, as "include" asks), so that they can be replayed.
//
// A Responses is safe for concurrent use; the conversations it continues
// are told apart by their content.
type Responses struct {
	t      *clientCore
	store  bool
	chains chains
}

var _ llm.Model = (*Responses)(nil)

// NewResponses returns a client of the Responses API for model ("gpt-5",
// "o4-mini", ...). A nil cfg means the defaults.
func NewResponses(model string, cfg *Config) (*Responses, error) {
	t, err := newClientCore("openai responses", model, "/responses", cfg,
		[]string{"model", "input", "instructions", "tools", "previous_response_id", "stream", "store", "include",
			"temperature", "max_output_tokens", "tool_choice", "reasoning"})
	if err != nil {
		return nil, err
	}
	return &Responses{t: t, store: cfg != nil && cfg.Store}, nil
}

// Name returns the model the client calls.
func (c *Responses) Name() string { return c.t.model }

// Dialect returns "openai-responses".
func (c *Responses) Dialect() string { return string(transcript.OpenAIResponses) }

// Stream sends req and yields the answer's events; see [llm.Model].
func (c *Responses) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return c.stream(ctx, req, nil)
}

// StreamCached is [Responses.Stream] with the encoding of each message
// kept in cache, for a loop that sends a growing conversation: each
// message is encoded once, and a request that holds the whole history
// (without Store, or when the server lost the stored response) is written
// to the connection from the cached pieces, never assembled in one
// buffer. The bytes sent are the ones Stream sends.
func (c *Responses) StreamCached(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	return c.stream(ctx, req, cache)
}

// stream sends req, its messages encoded through cache (nil for none).
func (c *Responses) stream(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	return client.Stream(func(emit func(llm.Event) bool) error {
		if err := req.Validate(); err != nil {
			return fmt.Errorf("openai responses: %w", err)
		}
		var prefix []chainKey
		if c.store {
			prefix = chainKeys(req.Messages)
		}
		prev, from := c.chains.find(prefix)
		var acc llm.Accumulator
		tee := func(ev llm.Event) bool {
			acc.Add(ev)
			return emit(ev)
		}
		for {
			segs, err := c.segments(req, prev, from, cache)
			if err != nil {
				return err
			}
			var dec *respReader
			err = c.t.c.Call(ctx, client.PostSegments(c.t.url, c.t.header, segs), func() client.Decoder { dec = newRespReader(); return dec.decode }, tee)
			var le *llm.Error
			if prev != "" && errors.As(err, &le) && le.Code == "previous_response_not_found" {
				c.chains.forget(prev)
				prev, from = "", 0 // the server lost it: send the whole history
				continue
			}
			if err == nil && c.store && dec.id != "" && len(prefix) == len(req.Messages) {
				if msg, merr := acc.Message(); merr == nil {
					c.chains.add(prefix, msg, dec.id)
				}
			}
			return err
		}
	})
}

// body writes the request body for req: the whole history, or with prev
// the messages from index from on.
func (c *Responses) body(req *llm.Request, prev string, from int) ([]byte, error) {
	body, _, err := EncodeResponses(&ResponsesRequest{Messages: req.Messages[from:], Tools: req.Tools, PreviousResponseID: prev, Fields: c.fields(req)})
	if err != nil {
		return nil, fmt.Errorf("openai responses: %w", err)
	}
	return body, nil
}

// fields returns the top-level fields of the request body for req, other
// than the ones [ResponsesRequest] models, in the order they are written.
func (c *Responses) fields(req *llm.Request) []Field {
	fields := []Field{strField("model", c.t.model)}
	if c.t.stream {
		fields = append(fields, rawField("stream", "true"))
	}
	if c.store {
		fields = append(fields, rawField("store", "true"))
	} else {
		fields = append(fields, rawField("store", "false"), rawField("include", `["reasoning.encrypted_content"]`))
	}
	if req.Temperature != nil {
		fields = append(fields, rawField("temperature", strconv.FormatFloat(*req.Temperature, 'g', -1, 64)))
	}
	if req.MaxOutputTokens > 0 {
		fields = append(fields, rawField("max_output_tokens", strconv.Itoa(req.MaxOutputTokens)))
	}
	if tc := respChoices.Of(req); tc != "" {
		fields = append(fields, rawField("tool_choice", tc))
	}
	if req.Effort != "" {
		e := codec.AppendString(nil, string(req.Effort))
		fields = append(fields, rawField("reasoning", `{"effort":`+string(e)+`}`))
	}
	return append(fields, c.t.fields...)
}

// chainKey identifies a conversation prefix: the hash of its messages.
type chainKey [sha256.Size]byte

// keyOf returns the hash of one message.
func keyOf(m llm.Message) chainKey {
	b, err := llm.Conversation{Messages: []llm.Message{m}}.AppendJSON(nil)
	if err != nil {
		return chainKey{} // a message the format cannot hold is never continued
	}
	return sha256.Sum256(b)
}

// chain returns the key of a prefix ending in a message whose own hash
// is k, after the prefix whose key is prev (zero for none).
func chain(prev, k chainKey) chainKey {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(k[:])
	var out chainKey
	h.Sum(out[:0])
	return out
}

// chainKeys returns the keys of every prefix of msgs: keys[i] is the key
// of msgs[:i+1]. It stops at a message the persistence format cannot hold.
func chainKeys(msgs []llm.Message) []chainKey {
	keys := make([]chainKey, 0, len(msgs))
	var prev chainKey
	for _, m := range msgs {
		k := keyOf(m)
		if k == (chainKey{}) {
			break
		}
		prev = chain(prev, k)
		keys = append(keys, prev)
	}
	return keys
}

// maxChains is how many stored responses a client remembers.
const maxChains = 256

// chains remembers which stored response ends which conversation.
type chains struct {
	mu    sync.Mutex
	byKey map[chainKey]string
	order []chainKey // oldest first
}

// find returns the stored response that ends the longest prefix of a
// history whose prefix keys are keys, and the index of the first message
// after that prefix; "" when there is none, or when nothing follows it.
func (c *chains) find(keys []chainKey) (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(keys) - 2; i >= 0; i-- { // at least one message must follow
		if id, ok := c.byKey[keys[i]]; ok {
			return id, i + 1
		}
	}
	return "", 0
}

// add records that the stored response id ends the conversation of a
// request whose prefix keys are keys, answered by msg.
func (c *chains) add(keys []chainKey, msg llm.Message, id string) {
	if len(keys) == 0 {
		return
	}
	k := keyOf(msg)
	if k == (chainKey{}) {
		return
	}
	k = chain(keys[len(keys)-1], k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = make(map[chainKey]string)
	}
	if _, ok := c.byKey[k]; !ok {
		c.order = append(c.order, k)
	}
	c.byKey[k] = id
	for len(c.order) > maxChains {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
}

// forget drops every entry for the response id.
func (c *chains) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, v := range c.byKey {
		if v == id {
			delete(c.byKey, k)
		}
	}
}
