// Package client holds what the provider clients share: setting a client
// up from the [provider.Options] every Config embeds (its base URL,
// headers and transport settings, [Open]); sending a request with
// per-attempt timeouts and retries on 429 and 5xx with backoff, jitter
// and the provider's retry-after; classifying a failed answer into an
// [*llm.Error] once; reading response JSON with errors that name the
// path; reading finish reasons and writing tool choices; and making
// tool-call ids unique in a conversation.
//
// Each client keeps its own public Config, for its dialect's settings,
// and its provider's rules as data (its error body and context-length
// messages in [Errors], its finish reasons in [Finishes], its
// tool-choice JSON in [ToolChoices]); this package is the machinery under
// them, as provider/internal/codec is for the codecs.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/toolwire/toolwire/internal/redirect"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
)

// DefaultMaxAnswerBytes is the largest whole JSON answer a client reads:
// 64 MiB, far above any model's answer, low enough that an endpoint
// cannot exhaust the memory of the process.
const DefaultMaxAnswerBytes = 64 << 20

// validate reports a setting of o that cannot be used.
func validate(o *provider.Options) error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Timeout", o.Timeout}, {"IdleTimeout", o.IdleTimeout}, {"RetryBackoff", o.RetryBackoff}, {"MaxRetryWait", o.MaxRetryWait}} {
		if d.v < 0 {
			return fmt.Errorf("%s is negative (%v); 0 means the default", d.name, d.v)
		}
	}
	return nil
}

// withDefaults fills in the defaults [provider.Options] documents: a
// client of its own with no overall timeout (each attempt has Timeout and
// IdleTimeout), or a copy of the caller's, either with the redirect
// policy of [redirect.Client] (the caller's own CheckRedirect, if set,
// still decides which redirects are followed, but a request to another
// origin loses its key headers first); 10 minutes for an attempt's
// headers (a non-streamed answer arrives whole); 5 minutes of silence; 2
// retries (none for a negative MaxRetries) of a failed attempt (429, 5xx,
// a connection failure); a first wait of 500ms when the provider does not
// say how long to wait, doubling up to 16 times its value, with jitter;
// and a longest wait of a minute (a provider that asks for longer gets
// the error back, with its RetryAfter, for the caller to decide).
func withDefaults(o provider.Options) provider.Options {
	o.HTTPClient = redirect.Client(o.HTTPClient)
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = 2
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.RetryBackoff == 0 {
		o.RetryBackoff = 500 * time.Millisecond
	}
	if o.MaxRetryWait == 0 {
		o.MaxRetryWait = time.Minute
	}
	return o
}

// A Client sends requests to one provider API. It is safe for concurrent
// use.
type Client struct {
	op        string
	base      string      // the API's base URL (from Open)
	header    http.Header // what every request carries (from Open)
	o         provider.Options
	maxAnswer int64 // the largest whole JSON answer read; a stream has no overall bound, only one per event and IdleTimeout
	errors    *Errors
}

// Open returns a Client of the API o describes (defaultBaseURL when
// o.BaseURL is ""), whose errors name op ("anthropic messages") and whose
// failed answers are read by e. Its [Client.Header] holds a copy of
// o.Header, for the provider to add its own (the API key, a version)
// before the first request; o.APIKey and o.NoStream are the provider's to
// read, as it sends them its own way.
func Open(op string, o provider.Options, defaultBaseURL string, e *Errors) (*Client, error) {
	base, err := BaseURL(o.BaseURL, defaultBaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	c, err := New(op, o, e)
	if err != nil {
		return nil, err
	}
	c.base, c.header = base, o.Header.Clone()
	if c.header == nil {
		c.header = http.Header{}
	}
	return c, nil
}

// URL returns the URL of path ("/v1/messages") under the API's base URL.
func (c *Client) URL(path string) string { return c.base + path }

// Header returns the headers every request carries. Only the provider's
// constructor changes them, before the client is used.
func (c *Client) Header() http.Header { return c.header }

// New returns a Client with o's transport settings (its BaseURL and
// Header are [Open]'s), whose errors name op ("openai chat") and whose
// failed answers are read by e.
func New(op string, o provider.Options, e *Errors) (*Client, error) {
	if err := validate(&o); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return &Client{op: op, o: withDefaults(o), maxAnswer: DefaultMaxAnswerBytes, errors: e}, nil
}

// Op returns the operation name the client's errors start with.
func (c *Client) Op() string { return c.op }

// Do sends the request newReq builds (once per attempt, so that its body
// can be read again) and returns the first answer with a 2xx status. A
// failed answer is classified into an [*llm.Error] and retried when its
// kind is retryable, as the [provider.Options] say; a cancelled ctx
// returns ctx's error.
//
// The caller must close the response body: that ends the attempt. Reading
// a body that stays silent for IdleTimeout fails with an error that says
// so.
func (c *Client) Do(ctx context.Context, newReq func(ctx context.Context) (*http.Request, error)) (*http.Response, error) {
	var resp *http.Response
	err := c.retry(ctx, func() (bool, error) {
		var err error
		resp, err = c.attempt(ctx, newReq)
		return true, err
	})
	return resp, err
}

// retry runs try until it succeeds or fails for good: with an error that
// is not a retryable *llm.Error, one try says may not be retried (an
// answer that already gave events), once the retries are spent, or when
// the provider asks for a longer wait than MaxRetryWait.
func (c *Client) retry(ctx context.Context, try func() (retryable bool, err error)) error {
	for attempt := 0; ; attempt++ {
		ok, err := try()
		if err == nil {
			return nil
		}
		var le *llm.Error
		if !ok || !errors.As(err, &le) || !le.Retryable() || attempt >= c.o.MaxRetries || ctx.Err() != nil {
			return err
		}
		wait := le.RetryAfter
		if wait <= 0 {
			wait = c.backoff(attempt)
		}
		if wait > c.o.MaxRetryWait {
			return err
		}
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w", c.op, err)
		}
	}
}

// backoff returns the wait before retry attempt+1: RetryBackoff doubled
// attempt times, at most 16 times it and MaxRetryWait, with its upper half
// random.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.o.RetryBackoff << min(attempt, 4)
	d = min(d, c.o.MaxRetryWait)
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempt sends one request.
func (c *Client) attempt(ctx context.Context, newReq func(ctx context.Context) (*http.Request, error)) (*http.Response, error) {
	actx, cancel := context.WithCancel(ctx)
	req, err := newReq(actx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %w", c.op, err)
	}
	var timedOut bool
	var mu sync.Mutex
	timer := time.AfterFunc(c.o.Timeout, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		cancel()
	})
	resp, err := c.o.HTTPClient.Do(req)
	timer.Stop()
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", c.op, ctx.Err())
		}
		mu.Lock()
		late := timedOut
		mu.Unlock()
		if late {
			err = fmt.Errorf("no response within %v", c.o.Timeout)
		}
		return nil, &llm.Error{Kind: llm.Transport, Op: c.op, Err: transportError(err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		cancel()
		if rerr != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", c.op, ctx.Err())
		}
		return nil, c.errors.classify(c.op, resp, data)
	}
	b := newBody(resp.Body, cancel, c.o.IdleTimeout)
	if IsJSON(resp.Header) {
		b.limit = c.maxAnswer
	}
	resp.Body = b
	return resp, nil
}

// ErrTooLarge is wrapped by the error a response body returns when a
// whole JSON answer goes past [DefaultMaxAnswerBytes].
var ErrTooLarge = errors.New("the answer is too large")

// ErrIdle is wrapped by the error a response body returns when it stayed
// silent for the client's IdleTimeout.
var ErrIdle = errors.New("the response stopped arriving")

// body is a response body that ends its attempt when closed and fails
// when it stays silent too long, or, with a limit, when it goes past it.
type body struct {
	rc     io.ReadCloser
	cancel context.CancelFunc
	idle   time.Duration
	timer  *time.Timer
	mu     sync.Mutex
	fired  bool
	limit  int64 // 0: none
	read   int64
}

func newBody(rc io.ReadCloser, cancel context.CancelFunc, idle time.Duration) *body {
	b := &body{rc: rc, cancel: cancel, idle: idle}
	b.timer = time.AfterFunc(idle, func() {
		b.mu.Lock()
		b.fired = true
		b.mu.Unlock()
		cancel()
	})
	return b
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	fired := b.fired
	b.mu.Unlock()
	if fired {
		return n, fmt.Errorf("%w: no data for %v", ErrIdle, b.idle)
	}
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	b.read += int64(n)
	if b.limit > 0 && b.read > b.limit {
		return n, fmt.Errorf("%w: more than %s, the limit for a whole JSON answer", ErrTooLarge, size(b.limit))
	}
	return n, err
}

func (b *body) Close() error {
	b.timer.Stop()
	err := b.rc.Close()
	b.cancel()
	return err
}

// size writes a byte count: "64 MiB" when it is a whole number of MiB,
// else "1000 bytes".
func size(n int64) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
