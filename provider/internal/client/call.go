package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"

	"github.com/toolwire/toolwire/llm"
)

// ErrStopped is returned by a [Decoder] whose emit reported that the caller
// stopped listening.
var ErrStopped = errors.New("the caller stopped reading the answer")

// A Decoder reads a successful answer, passing each event to emit; it
// returns ErrStopped as soon as emit returns false. Its other errors are
// about the answer: a stream cut short, JSON that cannot be read, or the
// provider's own error event (an [*llm.Error], passed on as is).
type Decoder func(resp *http.Response, emit func(llm.Event) bool) error

// Call sends the request newReq builds, as Do does, and decodes the
// answer with a decoder from newDecoder. A retryable failure that comes
// inside the answer before it gave any event (Anthropic's overloaded_error
// right after message_start, a stream cut before its first delta) is
// retried like a failed status, with a new decoder. Once ctx is done, no
// more events are passed to emit, even those already read. Call returns
// the error instead of yielding it: an [*llm.Error] for a provider failure
// (a decode failure is a Transport one), ctx's error when ctx ended, or
// ErrStopped.
func (c *Client) Call(ctx context.Context, newReq func(ctx context.Context) (*http.Request, error), newDecoder func() Decoder, emit func(llm.Event) bool) error {
	return c.retry(ctx, func() (bool, error) {
		resp, err := c.attempt(ctx, newReq)
		if err != nil {
			return true, err
		}
		defer resp.Body.Close()
		emitted, cancelled := false, false
		err = newDecoder()(resp, func(ev llm.Event) bool {
			// Once ctx is done, no event is passed on, even one the
			// decoder had already read: the caller that cancelled must
			// not see the answer go on.
			if ctx.Err() != nil {
				cancelled = true
				return false
			}
			emitted = true
			return emit(ev)
		})
		if cancelled {
			return false, fmt.Errorf("%s: %w", c.op, ctx.Err())
		}
		return !emitted, c.answerError(ctx, err)
	})
}

// answerError classifies a decoder's error.
func (c *Client) answerError(ctx context.Context, err error) error {
	switch {
	case err == nil, errors.Is(err, ErrStopped):
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", c.op, ctx.Err())
	}
	var le *llm.Error
	if errors.As(err, &le) {
		if le.Op == "" {
			le.Op = c.op
		}
		return le
	}
	return &llm.Error{Kind: llm.Transport, Op: c.op, Err: err}
}

// Post is an [llm.Model.Stream] of the answer to the request body that
// body writes, posted to path under the API's URL with its [Client.Header]
// (as [Post]) and decoded by a decoder from newDecoder, as Call does. A
// body that cannot be written is the stream's error.
func (c *Client) Post(ctx context.Context, path string, body func() ([]byte, error), newDecoder func() Decoder) iter.Seq2[llm.Event, error] {
	return c.PostSegments(ctx, path, func() ([][]byte, error) {
		b, err := body()
		return [][]byte{b}, err
	}, newDecoder)
}

// Stream adapts Call to the shape of [llm.Model.Stream].
func Stream(call func(emit func(llm.Event) bool) error) func(yield func(llm.Event, error) bool) {
	return func(yield func(llm.Event, error) bool) {
		err := call(func(ev llm.Event) bool { return yield(ev, nil) })
		if err != nil && !errors.Is(err, ErrStopped) {
			yield(nil, err)
		}
	}
}
