package client

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/toolwire/toolwire/llm"
)

// Errors are a provider's rules for reading a failed answer: its error
// body and the messages that mean the request was too long. They are data,
// one value per provider, read by one classifier.
type Errors struct {
	// Provider names the provider in messages: "OpenAI".
	Provider string
	// Parse reads the provider's error body: its code (or type), its
	// message and how long it asks to wait (Gemini's RetryInfo), and ok
	// false when body is not the provider's error JSON.
	Parse func(body []byte) (code, message string, retryAfter time.Duration, ok bool)
	// ContextLength matches the messages (and codes) of a request longer
	// than the context window.
	ContextLength *regexp.Regexp
	// Kinds overrides the kind a code gets from the status
	// ("insufficient_quota": Auth, not RateLimited); nil for none.
	Kinds map[string]llm.ErrorKind
}

// KindOf returns the kind of a failed answer with this HTTP status.
func KindOf(status int) llm.ErrorKind {
	switch {
	case status == http.StatusTooManyRequests:
		return llm.RateLimited
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.Auth
	case status == http.StatusRequestEntityTooLarge:
		return llm.ContextLength
	case status == http.StatusRequestTimeout:
		return llm.Transport
	case status >= 500:
		return llm.Overloaded
	}
	return llm.Invalid
}

// classify turns a failed answer into an *llm.Error.
func (e *Errors) classify(op string, resp *http.Response, body []byte) *llm.Error {
	le := e.Classify(op, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	if ra := RetryAfter(resp.Header, time.Now()); ra > le.RetryAfter {
		le.RetryAfter = ra
	}
	return le
}

// Classify reads a failed answer's body, of the given content type, into
// an *llm.Error. For an error that came inside a stream, status is the
// status the error's code implies, or 0.
func (e *Errors) Classify(op string, status int, contentType string, body []byte) *llm.Error {
	le := &llm.Error{Op: op, StatusCode: status, Kind: KindOf(status)}
	code, msg, ra, ok := e.Parse(body)
	if !ok {
		le.Err = notErrorBody(e.Provider, contentType, body)
		return le
	}
	le.Code, le.ProviderMessage, le.RetryAfter = code, msg, ra
	if k, found := e.Kinds[code]; found {
		le.Kind = k
	}
	if (le.Kind == llm.Invalid || le.Kind == llm.ContextLength) && e.ContextLength != nil &&
		(e.ContextLength.MatchString(msg) || e.ContextLength.MatchString(code)) {
		le.Kind = llm.ContextLength
	}
	return le
}

// notErrorBody says what came instead of the provider's error JSON.
func notErrorBody(provider, contentType string, body []byte) error {
	mt, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return fmt.Errorf("the answer has no body, not %s error JSON", article(provider))
	case mt == "text/html" || bytes.HasPrefix(trimmed, []byte("<")):
		if t := htmlTitle(trimmed); t != "" {
			return fmt.Errorf("the answer is an HTML page titled %q (a proxy's?), not %s error JSON", t, article(provider))
		}
		return fmt.Errorf("the answer is an HTML page (a proxy's?), not %s error JSON: %s", article(provider), Excerpt(trimmed, 120))
	}
	what := "body"
	if mt != "" {
		what = mt + " body"
	}
	return fmt.Errorf("the answer's %s is not %s error JSON: %s", what, article(provider), Excerpt(trimmed, 120))
}

func article(provider string) string {
	if strings.IndexAny(provider, "AEIOU") == 0 {
		return "an " + provider
	}
	return "a " + provider
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

func htmlTitle(b []byte) string {
	m := titleRE.FindSubmatch(b)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(string(m[1])), " ")
}

// Excerpt quotes the start of b, at most n bytes, for an error message.
func Excerpt(b []byte, n int) string {
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	cut := n
	for cut > 0 && b[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return strconv.Quote(string(b[:cut])) + fmt.Sprintf(" (%d more bytes)", len(b)-cut)
}

// RetryAfter returns how long the headers ask to wait before a retry:
// retry-after-ms (milliseconds), else retry-after (seconds, or an HTTP
// date, relative to now); 0 when they do not say.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e9 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// ParseDuration reads a protobuf duration as JSON writes it ("25s",
// "1.5s"), as Gemini's RetryInfo gives retryDelay; 0 when it cannot.
func ParseDuration(s string) time.Duration {
	if !strings.HasSuffix(s, "s") {
		return 0
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	if err != nil || f <= 0 || f > 1e9 {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// InStream classifies an error that came inside a 200 answer (an error
// event, an error chunk): status is what the error's own code implies, or
// 0. What neither the status nor the code classifies is the server's
// failure (Overloaded), not the request's.
func (e *Errors) InStream(status int, body []byte) *llm.Error {
	le := e.Classify("", status, "", body)
	if status == 0 && le.Kind == llm.Invalid {
		le.Kind = llm.Overloaded
	}
	return le
}
