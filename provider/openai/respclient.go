package openai

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/client"
	"github.com/toolwire/toolwire/provider/internal/codec"
	"github.com/toolwire/toolwire/transcript"
)

// Responses is an [llm.Model] served by the Responses API
// (POST {BaseURL}/responses). Requests are written by [EncodeResponses];
// answers are read as server-sent events, or whole with Config.NoStream.
//
// With Config.Store, responses stay on the server: each answer reports
// its id ([llm.Stored], [llm.Response].ID), and a request that names it
// ([llm.Request].Previous) sends only the messages after the ones the
// server holds, with "previous_response_id": a turn's cost follows its
// new messages, not the whole history. The caller keeps the id (the agent
// loop keeps it in its State, so that it survives a restart). When the
// server has lost the response (previous_response_not_found), the client
// sends the whole history instead, once, without the caller noticing.
// Without Store, every request holds the whole history, reasoning items
// included (encrypted, as "include" asks), so that they can be replayed.
//
// A Responses is safe for concurrent use; it keeps no conversation.
type Responses struct {
	t     *clientCore
	store bool
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
		prev, from := "", 0
		if p := req.Previous; c.store && p != nil && p.Messages < len(req.Messages) {
			prev, from = p.ID, p.Messages // at least one message must follow
		}
		for {
			segs, err := c.segments(req, prev, from, cache)
			if err != nil {
				return err
			}
			err = c.t.c.Call(ctx, client.PostSegments(c.t.url, c.t.header, segs), func() client.Decoder { return newRespReader(c.store).decode }, emit)
			var le *llm.Error
			if prev != "" && errors.As(err, &le) && le.Code == "previous_response_not_found" {
				prev, from = "", 0 // the server lost it: send the whole history
				continue
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
	fields = append(fields, c.storeField()...)
	if !c.store {
		fields = append(fields, rawField("include", `["reasoning.encrypted_content"]`))
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

// storeField is the request's "store" field.
func (c *Responses) storeField() []Field {
	return []Field{rawField("store", strconv.FormatBool(c.store))}
}
