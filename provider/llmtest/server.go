// Package llmtest is a conformance test server for the provider clients:
// a real HTTP server that speaks the OpenAI Chat Completions and Responses,
// Anthropic Messages and Gemini generateContent wire protocols, streamed
// (server-sent events in the providers' own event shapes) and not.
//
// It answers from a script of turns, and it rejects every request the real
// provider would reject — it judges each body with provider/wire, the
// checker behind toolwire check — with that provider's HTTP status and
// error body. It records every request body, so that a test can assert the
// exact sequence of messages a client sent, and it can be told to
// misbehave as OpenAI-compatible servers do.
//
//	srv := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
//		llmtest.Turn{Text: "It is sunny."})
//	model, _ := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1"}})
//
// Routes (any prefix before them is accepted): POST .../chat/completions,
// .../responses, .../messages, and .../models/MODEL:generateContent or
// :streamGenerateContent (?alt=sse for events, else a JSON array).
package llmtest

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/llm/modeltest"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// A Turn is one scripted answer: the assistant's text and tool calls, or
// an error.
type Turn struct {
	// Reasoning, when set, is sent as the provider's reasoning: a thinking
	// block with a signature (Anthropic), a reasoning item (Responses), a
	// thought part (Gemini), reasoning_content (Chat, as DeepSeek and vLLM
	// send it).
	Reasoning string
	// Text is the assistant's text; "" for none.
	Text string
	// Calls are the tool calls, in order.
	Calls []Call
	// Usage is the token counts to report, in llm's meaning (InputTokens
	// includes the cached ones); zero reports small made-up counts.
	Usage llm.Usage
	// Model is the model the answer says answered, as the APIs name a
	// snapshot ("gpt-4.1-2025-04-14"); "" says the model the request
	// named.
	Model string
	// Error, when set, is the answer instead of the turn's content.
	Error *Error
	// Misbehave lists the ways this answer breaks the protocol.
	Misbehave Misbehaviour
	// Chunk is the size of the fragments streamed text and arguments are
	// cut into; 0 means 7 bytes.
	Chunk int
	// Interleave streams the fragments of parallel calls interleaved
	// (OpenAI Chat and Responses), as those APIs may. Anthropic streams one
	// content block after another and Gemini sends calls whole.
	Interleave bool
}

// A Call is one scripted tool call: its ID ("" lets the server make one
// in its provider's style, "call_…", "toolu_…"; Gemini sends ids only
// when set), its tool's name and its arguments, a JSON object. It is the
// call of the llm.Model conformance suite's script.
type Call = modeltest.Call

// An Error is a scripted failure, answered with the provider's status,
// headers and error body: llm.RateLimited (429), llm.Overloaded (500;
// Status 529 or 503 for the overloaded variants), llm.ContextLength (400
// with the provider's own context-window message), llm.Auth (401),
// llm.Invalid (400). RetryAfter is sent as retry-after-ms and, in whole
// seconds rounded up, as retry-after (Gemini: also as RetryInfo in the
// body). InStream sends it inside a 200 stream, as the providers do for
// failures mid-answer, after After of the answer's events (0 means 1:
// the stream's opening event). It is the failure of the llm.Model
// conformance suite's script.
type Error = modeltest.Error

// Misbehaviour is a set of ways an answer breaks the protocol, as
// OpenAI-compatible servers are known to.
type Misbehaviour uint

// The misbehaviours. Those marked Chat apply to Chat Completions only;
// the others to every dialect where they can happen.
const (
	// IndexZero gives every parallel call index 0 (Chat).
	IndexZero Misbehaviour = 1 << iota
	// NoCallIDs sends calls without ids (Chat).
	NoCallIDs
	// ArgsAsObject sends arguments as a JSON object, not a string (Chat).
	ArgsAsObject
	// DuplicateIDs gives every call of the answer the first call's id
	// (Chat).
	DuplicateIDs
	// EmptyMessage answers with no text and no call: empty content and
	// finish "stop" (end_turn, STOP).
	EmptyMessage
	// LengthMidCall cuts the last call's arguments in half and finishes
	// with the token limit ("length", max_tokens, MAX_TOKENS).
	LengthMidCall
	// Truncate ends the stream halfway, without its terminal event.
	Truncate
)

// A Request is one request the server received.
type Request struct {
	// Dialect is the protocol of the route it came to.
	Dialect transcript.Dialect
	// Path is the URL path, Query its raw query.
	Path, Query string
	// Header is the request's headers.
	Header http.Header
	// Body is the request body, as sent.
	Body []byte
	// Stream reports whether the request asked for a stream.
	Stream bool
	// Rejected is why the server refused it, "" when it was answered from
	// the script.
	Rejected string
}

// Messages decodes the request body into llm messages with its dialect's
// codec, failing t when it cannot.
func (r Request) Messages(t testing.TB) []llm.Message {
	t.Helper()
	b, err := wire.Decode(r.Body, r.Dialect)
	if err != nil {
		t.Fatalf("decode request %s: %v", r.Path, err)
	}
	return b.Request().Messages
}

// A Server is a running conformance server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:PORT".
	URL string
	// APIKey, when set, must be sent the provider's way (Authorization:
	// Bearer, x-api-key, x-goog-api-key); a request without it gets the
	// provider's 401.
	APIKey string

	t     testing.TB
	srv   *httptest.Server
	mu    sync.Mutex
	turns []Turn
	next  int
	reqs  []Request
	// Responses the server holds for previous_response_id: the whole
	// conversation each one ends.
	stored map[string][]llm.Message
	seq    int
}

// NewServer starts a server that answers with turns, in order, and stops
// it when the test ends. A request that comes after the last turn fails
// the test (and gets a 500).
//
// t may be nil, as in an Example: then the caller must Close the server,
// and a request past the script gets the 500 alone.
func NewServer(t testing.TB, turns ...Turn) *Server {
	s := &Server{t: t, turns: turns, stored: make(map[string][]llm.Message)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	if t != nil {
		t.Cleanup(s.srv.Close)
	}
	return s
}

// errorf fails the test, if there is one.
func (s *Server) errorf(format string, args ...any) {
	if s.t != nil {
		s.t.Helper()
		s.t.Errorf(format, args...)
	}
}

// Close stops the server; the test's end does it too.
func (s *Server) Close() { s.srv.Close() }

// Add appends turns to the script.
func (s *Server) Add(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining returns how many scripted turns have not been used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - s.next
}

// Lose forgets the stored Responses response id, as a server that lost it
// (or whose retention expired): a request that continues it gets
// previous_response_not_found. Lose("") forgets every stored response.
func (s *Server) Lose(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		clear(s.stored)
		return
	}
	delete(s.stored, id)
}

// Stored returns the ids of the stored Responses responses.
func (s *Server) Stored() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.stored {
		ids = append(ids, id)
	}
	return ids
}

// A dialect is one provider's protocol: how it reads the request's
// options, refuses a request, and writes an answer. Each provider's file
// holds its value.
type dialect struct {
	// id is the transcript dialect.
	id transcript.Dialect
	// authorized reports whether the request carries key.
	authorized func(r *http.Request, key string) bool
	// failures are the errors the provider answers with.
	failures failures
	// errorBody writes the provider's error body.
	errorBody func(status int, code, message string, retryAfter time.Duration) []byte
	// check judges what wire.Check does not: required fields, limits.
	check func(x *exchange) (code, message string)
	// whole writes a non-streamed answer.
	whole func(x *exchange) []byte
	// events returns a streamed answer's events, and the ones that end the
	// stream (nil when there are none).
	events func(x *exchange) (events []sse.Event, last []sse.Event)
	// streamError is an error event inside a stream; nil means an event
	// whose data is the error body (see [dialect.streamErrorEvent]).
	streamError func(status int, code, message string) sse.Event
	// arrayStream is set when a stream asked for without ?alt=sse is a
	// JSON array, sent as the chunks come (Gemini's streamGenerateContent).
	arrayStream bool
}

// streamErrorEvent returns the error event inside a stream: d.streamError's,
// or an event whose data is the error body, without a retry delay.
func (d *dialect) streamErrorEvent(status int, code, message string) sse.Event {
	if d.streamError == nil {
		return sse.Event{Data: d.errorBody(status, code, message, 0)}
	}
	return d.streamError(status, code, message)
}

// A failure is what a provider answers for a kind of error: its HTTP
// status, its error code ("" for none) and its usual message.
type failure struct {
	status        int
	code, message string
}

// failures are a dialect's failures by kind; the one under "" answers
// every other kind.
type failures map[llm.ErrorKind]failure

// of returns the failure of kind k.
func (fs failures) of(k llm.ErrorKind) (status int, code, message string) {
	f, ok := fs[k]
	if !ok {
		f = fs[""]
	}
	return f.status, f.code, f.message
}

// with returns a copy of fs in which kind k has failure f.
func (fs failures) with(k llm.ErrorKind, f failure) failures {
	out := maps.Clone(fs)
	out[k] = f
	return out
}

// exchange is one request being answered.
type exchange struct {
	s      *Server
	d      *dialect
	r      *http.Request
	body   []byte
	opts   options
	turn   Turn
	n      int // the turn's number, from 1
	stream bool
	// Responses: the conversation this request continues, and its id.
	history []llm.Message
	msgs    []llm.Message
	respID  string
}

// answerModel is the model an answer names: the turn's, else requested.
func (x *exchange) answerModel(requested string) string {
	if x.turn.Model != "" {
		return x.turn.Model
	}
	return requested
}

// options are the request fields the server reads.
type options struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Store              *bool    `json:"store"`
	PreviousResponseID string   `json:"previous_response_id"`
	MaxTokens          *int     `json:"max_tokens"`
	Include            []string `json:"include"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	d, stream := route(r)
	body, _ := io.ReadAll(r.Body)
	rec := Request{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	if d == nil {
		rec.Rejected = "unknown route"
		s.record(rec)
		http.Error(w, "llmtest: no route for "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	rec.Dialect = d.id
	x := &exchange{s: s, d: d, r: r, body: body}
	_ = json.Unmarshal(body, &x.opts) // wire.Check reports a body that is not JSON
	x.stream = stream || x.opts.Stream
	rec.Stream = x.stream
	if r.Method != http.MethodPost {
		s.refuse(w, rec, x, http.StatusMethodNotAllowed, "", "llmtest: use POST")
		return
	}
	if s.APIKey != "" && !d.authorized(r, s.APIKey) {
		status, code, msg := d.failures.of(llm.Auth)
		s.refuse(w, rec, x, status, code, msg)
		return
	}
	if msg := s.judge(x); msg != "" {
		s.refuse(w, rec, x, http.StatusBadRequest, "", msg)
		return
	}
	if code, msg := d.check(x); msg != "" {
		s.refuse(w, rec, x, http.StatusBadRequest, code, msg)
		return
	}
	s.mu.Lock()
	if s.next >= len(s.turns) {
		s.mu.Unlock()
		s.errorf("llmtest: request %d to %s, but the script has only %d turns", len(s.reqs)+1, r.URL.Path, len(s.turns))
		s.refuse(w, rec, x, http.StatusInternalServerError, "", "llmtest: the script has no more turns")
		return
	}
	x.turn = s.turns[s.next]
	s.next++
	x.n = s.next
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
	s.answer(w, x)
}

// judge returns why the provider would reject the body, or "".
func (s *Server) judge(x *exchange) string {
	b, err := wire.Decode(x.body, x.d.id)
	if err != nil {
		return fmt.Sprintf("as %s: %v", x.d.id, err)
	}
	b.SetModel(urlModel(x.r.URL.Path)) // a Gemini body's model is in its URL (GEM-THOUGHT-SIG)
	if vs := b.Check(); !transcript.Accepted(vs) {
		for _, v := range vs {
			if v.Warning {
				continue
			}
			if v.ProviderError != "" && strings.HasPrefix(v.ProviderError, v.Path) {
				return v.ProviderError // Anthropic's messages name the path themselves
			}
			return v.Path + ": " + refusal(v)
		}
	}
	return ""
}

// refusal is what the provider says for violation v: its own error
// text, else the rule's message and ID.
func refusal(v transcript.Violation) string {
	if v.ProviderError != "" {
		return v.ProviderError
	}
	return v.Message + " [" + string(v.Rule) + "]"
}

func (s *Server) record(rec Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, rec)
}

// refuse answers with the provider's error and records the request.
func (s *Server) refuse(w http.ResponseWriter, rec Request, x *exchange, status int, code, msg string) {
	rec.Rejected = msg
	s.record(rec)
	writeJSON(w, status, x.d.errorBody(status, code, msg, 0))
}

// answer writes the turn: its error, or its content, streamed or whole.
func (s *Server) answer(w http.ResponseWriter, x *exchange) {
	if e := x.turn.Error; e != nil && !e.InStream {
		status, code, msg := x.d.failures.of(e.Kind)
		if e.Status != 0 {
			status = e.Status
		}
		if e.Message != "" {
			msg = e.Message
		}
		if e.RetryAfter > 0 {
			w.Header().Set("retry-after-ms", strconv.FormatInt(e.RetryAfter.Milliseconds(), 10))
			w.Header().Set("retry-after", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
		}
		if e.HTML {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			fmt.Fprintf(w, "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
				status, http.StatusText(status), status, http.StatusText(status))
			return
		}
		writeJSON(w, status, x.d.errorBody(status, code, msg, e.RetryAfter))
		return
	}
	if !x.stream {
		writeJSON(w, http.StatusOK, x.d.whole(x))
		return
	}
	events, last := x.d.events(x)
	if x.turn.Misbehave&Truncate != 0 {
		events, last = events[:(len(events)+1)/2], nil
	}
	if e := x.turn.Error; e != nil {
		status, code, msg := x.d.failures.of(e.Kind)
		if e.Message != "" {
			msg = e.Message
		}
		n := max(e.After, 1)
		events, last = append(events[:min(n, len(events))], x.d.streamErrorEvent(status, code, msg)), nil
	}
	if x.d.arrayStream && x.r.URL.Query().Get("alt") != "sse" {
		var arr []byte
		for i, ev := range append(events, last...) {
			arr = append(arr, "[,"[min(i, 1)])
			arr = append(arr, ev.Data...)
		}
		writeJSON(w, http.StatusOK, append(arr, ']'))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	var buf []byte
	for _, ev := range append(events, last...) {
		buf = sse.AppendEvent(buf[:0], ev)
		if _, err := w.Write(buf); err != nil {
			return
		}
		if f != nil {
			f.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// route finds the dialect of a request's path, and whether the path asks
// for a stream (Gemini's streamGenerateContent).
// urlModel returns the model a Gemini path names
// (/v1beta/models/MODEL:generateContent), "" for another path.
func urlModel(p string) string {
	_, after, ok := strings.Cut(p, "/models/")
	if !ok {
		return ""
	}
	model, _, _ := strings.Cut(after, ":")
	return model
}

func route(r *http.Request) (*dialect, bool) {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
		return chat, false
	case strings.HasSuffix(p, "/responses"):
		return responses, false
	case strings.HasSuffix(p, "/messages"):
		return anthropic, false
	case strings.Contains(p, "/models/") && strings.HasSuffix(p, ":generateContent"):
		return gemini, false
	case strings.Contains(p, "/models/") && strings.HasSuffix(p, ":streamGenerateContent"):
		return gemini, true
	}
	return nil, false
}

// marshal writes v as compact JSON in field order, without HTML escaping.
func marshal(v any) []byte {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		panic("llmtest: " + err.Error()) // the server's own values always marshal
	}
	return b
}

// chunks cuts s into fragments of about n bytes, never inside a UTF-8
// sequence (at least one fragment, "" for "").
func chunks(s string, n int) []string {
	if n <= 0 {
		n = 7
	}
	out := []string{}
	for len(s) > n {
		cut := n
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// usage returns the turn's usage, or made-up counts.
func (x *exchange) usage() llm.Usage {
	u := x.turn.Usage
	if u == (llm.Usage{}) {
		u = llm.Usage{InputTokens: 10 + len(x.body)/4, OutputTokens: 1 + (len(x.turn.Text)+len(x.turn.Reasoning))/4}
		for _, c := range x.turn.Calls {
			u.OutputTokens += (len(c.Name) + len(c.Args)) / 4
		}
	}
	return u
}

// calls returns the turn's calls as sent: ids made where missing, and the
// misbehaviours applied (for LengthMidCall: the last call's arguments
// halved).
func (x *exchange) calls(prefix string) []Call {
	calls := append([]Call(nil), x.turn.Calls...)
	if x.turn.Misbehave&EmptyMessage != 0 {
		return nil
	}
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = fmt.Sprintf("%s%d_%d", prefix, x.n, i)
		}
		if calls[i].Args == "" {
			calls[i].Args = "{}"
		}
	}
	if x.turn.Misbehave&LengthMidCall != 0 && len(calls) > 0 {
		last := &calls[len(calls)-1]
		cut := len(last.Args) / 2
		for cut > 0 && !utf8.RuneStart(last.Args[cut]) {
			cut--
		}
		last.Args = last.Args[:cut]
	}
	return calls
}

// text returns the turn's text as sent.
func (x *exchange) text() string {
	if x.turn.Misbehave&EmptyMessage != 0 {
		return ""
	}
	return x.turn.Text
}

// finish names how the answer ends: "stop", "tool_calls" or "length".
func (x *exchange) finish() string {
	switch {
	case x.turn.Misbehave&LengthMidCall != 0:
		return "length"
	case len(x.calls("")) > 0:
		return "tool_calls"
	}
	return "stop"
}

// id returns a new id with prefix, unique in the server.
func (s *Server) id(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return prefix + strconv.Itoa(s.seq)
}

// countKey counts the members named key anywhere in the JSON body.
func countKey(body []byte, key string) int {
	return bytes.Count(body, []byte(strconv.Quote(key)+":"))
}
