// Package provider holds what the provider clients and codecs
// (provider/anthropic, provider/gemini, provider/openai) say in common to
// their callers: the [Options] every client is opened with (where the API
// is, the key, timeouts and retries), and the [Warning] an encoder gives
// for what it could not carry over exactly.
//
// It is a package of its own, below the codecs, so that a caller that
// converts between dialects (provider/wire, cmd/toolwire) handles one
// warning type whichever codec wrote it, so that every client documents
// and validates its transport settings once, and so that the rules
// package (transcript) keeps its own vocabulary of violations. Opening a
// model from its name ("anthropic:claude-sonnet-4-5") needs every client,
// so it lives above them, in provider/open.
package provider

import (
	"net/http"
	"time"
)

// Options are the settings every provider client shares: where the API
// is, the key, extra headers, and how each request is sent, timed out
// and retried. Each client's Config embeds them (openai.Config,
// anthropic.Config, gemini.Config), next to its dialect's own settings;
// [github.com/toolwire/toolwire/provider/open.Model] takes them alone. A
// zero field means the documented default; a client refuses a negative
// duration when it is made.
//
// The clients never read the environment: the caller passes the key.
type Options struct {
	// BaseURL is the API's base URL, to which the client appends its
	// path ("/chat/completions", "/v1/messages", ...); "" means the
	// client's DefaultBaseURL. It must be an absolute http or https URL.
	BaseURL string
	// APIKey is sent the way the provider expects it: "Authorization:
	// Bearer <key>" (OpenAI), x-api-key (Anthropic), x-goog-api-key
	// (Gemini). "" sends none (a local server, a gateway that adds it).
	APIKey string
	// Header holds extra headers for every request (OpenAI-Organization,
	// a gateway's own, ...). It is copied, not changed.
	Header http.Header
	// HTTPClient sends the requests; nil means a client of its own. The
	// client is copied, not changed. Unless it sets its own CheckRedirect,
	// redirects are followed within the base URL's origin (scheme, host,
	// port) only, at most 5, never from https to http; whatever its
	// policy, a request redirected to another origin carries none of the
	// client's headers (the API key, Header). A whole (non-streamed)
	// answer larger than 64 MiB fails with a transport error.
	HTTPClient *http.Client
	// Timeout is how long one attempt may wait for the response headers;
	// 0 means 10 minutes.
	Timeout time.Duration
	// IdleTimeout is how long a response may stay silent; 0 means 5
	// minutes.
	IdleTimeout time.Duration
	// MaxRetries is how many times a request that failed with 429, 5xx
	// (Anthropic's 529 overloaded included) or a connection error is sent
	// again; 0 means 2, negative means none.
	MaxRetries int
	// RetryBackoff is the first wait between attempts when the server
	// does not say how long to wait (retry-after, retry-after-ms, Gemini's
	// RetryInfo); it doubles with each attempt, up to 16 times its value,
	// with jitter. 0 means 500ms.
	RetryBackoff time.Duration
	// MaxRetryWait is the longest wait before a retry; a server that asks
	// for longer gets its error returned, with RetryAfter, for the caller
	// to decide. 0 means 1 minute.
	MaxRetryWait time.Duration
	// NoStream asks for whole answers instead of server-sent events
	// (Gemini's generateContent instead of streamGenerateContent); the
	// events are then produced from the whole answer. Some compatible
	// servers stream tool calls badly.
	NoStream bool
}

// A Warning says what an encoder could not carry over exactly into the
// body it wrote (a part the dialect cannot hold, an id it rewrote, ...),
// or what a decoder read that the llm form does not hold, with the dotted
// path of the value in that body ("messages.3.content.0"); Path is "" for
// the body as a whole.
type Warning struct {
	Path    string
	Message string
}

// String returns "PATH: MESSAGE", or the message alone when there is no
// path.
func (w Warning) String() string {
	if w.Path == "" {
		return w.Message
	}
	return w.Path + ": " + w.Message
}
