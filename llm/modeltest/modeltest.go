// Package modeltest is the conformance suite of [llm.Model]: every
// implementation runs [Exercise], as every session store runs
// sessiontest.Exercise and river's drivers run riverdrivertest.
//
// The implementation's test supplies a [Harness]: a function that opens a
// model which answers a script of [Turn]s, one turn per request. An HTTP
// client opens itself, with its retries off, against a test server that
// speaks its provider's protocol and answers with the turns; a model
// without a wire writes the turns into whatever it answers from. The
// suite checks what the model makes of each answer, not what it was told.
// A new provider's test, with its own scripted server:
//
//	func TestConformance(t *testing.T) {
//		modeltest.Exercise(t, modeltest.Harness{
//			Open: func(t *testing.T, turns ...modeltest.Turn) modeltest.Backend {
//				srv := acmetest.NewServer(t, turns) // Acme's protocol; closed by t.Cleanup
//				m, err := acme.NewClient("acme-large", &acme.Config{BaseURL: srv.URL, MaxRetries: -1})
//				if err != nil {
//					t.Fatal(err)
//				}
//				return modeltest.Backend{Model: m, Requests: srv.Requests} // func() []modeltest.Request
//			},
//		})
//	}
//
// This module's four clients run it over provider/llmtest, which refuses
// every request the real provider would refuse (see
// provider/internal/clienttest.Conformance); provider/replay writes the
// turns into a replay file.
//
// A model that cannot do what some subtests need declares it in
// [Harness.Lacks]; those subtests are skipped and say why. A client of a
// provider API lacks nothing (but [Streaming] when it is asked for whole
// answers): it can be scripted to fail, its requests can be seen, it
// reports the usage it is sent. Subtests that need an optional interface
// ([llm.Named], [llm.CachedModel]) are skipped for a model that does not
// implement it.
//
// Beyond what [llm.Model] documents, the suite holds an implementation to
// these rules, which the agent loop relies on:
//   - every pair a stream yields is an event or an error, never both or
//     neither; an error is the last pair, and a [llm.Finish] the last
//     event of a stream that succeeded, which has exactly one;
//   - a provider failure is an [*llm.Error] of the right kind, with the
//     HTTP status and the provider's retry-after and message;
//   - once its context is done, a stream yields no more events: its next
//     pair is an error that wraps the context's error, and that error is
//     not a retryable [*llm.Error];
//   - a request that [llm.Request.Validate] refuses is an error, and is
//     not sent;
//   - the same request is encoded to the same bytes every time, by Stream
//     and by [llm.CachedModel.StreamCached] alike;
//   - nothing a stream starts outlives it, however it ends.
package modeltest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/llm"
)

// A Harness is what the suite needs from the test of one implementation.
type Harness struct {
	// Open returns a model that answers the requests it is sent, in
	// order, with turns: the first request with turns[0], and so on. The
	// model must not retry a failed request itself (each scripted failure
	// answers one request), so a client is opened with its retries off.
	//
	// Where a subtest sends a request again, unchanged, its script
	// repeats the turn, and where a request's history holds answers the
	// model did not give, the script has the turn at that position too:
	// so a model that answers by the position of the request in its
	// conversation (the number of assistant messages in the history), as
	// provider/replay does, gives the same answers.
	//
	// What Open starts it stops with t.Cleanup: the suite looks for
	// goroutines left running after those cleanups ran. An
	// httptest.Server closes http.DefaultTransport's idle connections
	// when it closes; a model with a transport of its own must close its
	// idle connections too.
	Open func(t *testing.T, turns ...Turn) Backend
	// Lacks lists what the model cannot do; the subtests that need it
	// are skipped.
	Lacks Capability
}

// A Backend is a model opened by [Harness.Open] and the view of what it
// sent.
type Backend struct {
	// Model is the model under test.
	Model llm.Model
	// Requests returns the requests the model sent so far, in order, as
	// the server received them. It may be nil only when the harness lacks
	// [Wire].
	Requests func() []Request
}

// A Request is one request a model sent, as its server received it.
type Request struct {
	// Body is the request body, as sent.
	Body []byte
	// Rejected is why the server refused the request, as the provider
	// would have; "" when it was answered from the script.
	Rejected string
}

// A Turn is one scripted answer: text and tool calls, or a failure.
type Turn struct {
	// Reasoning, when set, is sent as the provider's reasoning (a thinking
	// block, a reasoning item, a thought).
	Reasoning string
	// Text is the assistant's text; "" for none.
	Text string
	// Calls are the tool calls, in order.
	Calls []Call
	// Usage is the token counts to report, in llm's meaning; zero lets the
	// server make up counts.
	Usage llm.Usage
	// Error, when set, is the answer instead of the turn's content.
	Error *Error
	// Chunk is the size in bytes of the fragments that text and arguments
	// are streamed in; 0 means the server's default.
	Chunk int
	// Interleave streams the fragments of parallel calls interleaved,
	// where the provider's protocol allows it.
	Interleave bool
	// CutOff ends the answer at the output token limit, halfway through
	// its last call's arguments.
	CutOff bool
	// Truncate breaks the stream off halfway, without its terminal event.
	Truncate bool
}

// A Call is one scripted tool call.
type Call struct {
	// ID is the call's id; "" leaves it to the server, which makes one
	// in its provider's style or, as Gemini's, sends none.
	ID string
	// Name is the tool's name.
	Name string
	// Args is the arguments, a JSON object.
	Args string
}

// An Error is a scripted failure: the provider's HTTP status, headers and
// error body for its kind.
type Error struct {
	// Kind is the failure: [llm.RateLimited] (429), [llm.Overloaded]
	// (5xx), [llm.ContextLength] (400 with the provider's context-window
	// message), [llm.Auth] (401), [llm.Invalid] (400).
	Kind llm.ErrorKind
	// Status, when set, is the HTTP status instead of the kind's usual
	// one.
	Status int
	// RetryAfter is how long the provider asks the caller to wait, sent
	// its way (headers, a RetryInfo).
	RetryAfter time.Duration
	// Message, when set, is the provider's error message instead of its
	// usual one.
	Message string
	// HTML answers with a proxy's HTML error page instead of the
	// provider's JSON.
	HTML bool
	// InStream sends the error inside a successful stream, after After of
	// its events (0 means after the first).
	InStream bool
	After    int
}

// A Capability is something a model may be unable to do, which some
// subtests need.
type Capability uint

// The capabilities. An HTTP client of a provider API has all of them.
const (
	// Failures: the model can be scripted to fail ([Turn.Error]) and to
	// answer cut off by the token limit ([Turn.CutOff]) or with an empty
	// message (a turn with no text and no calls).
	Failures Capability = 1 << iota
	// Wire: [Backend.Requests] reports the request bodies the model sent,
	// judged by the provider's rules.
	Wire
	// ExactUsage: the model reports the scripted [Turn.Usage].
	ExactUsage
	// Streaming: the model reads its answer as a stream, so that a failure
	// can come in the middle of it ([Error.InStream]) and the stream can
	// break off ([Turn.Truncate]). A client asked for whole answers lacks
	// it.
	Streaming
	// Reasoning: the model reports the scripted [Turn.Reasoning], to be
	// sent back to its provider.
	Reasoning
)

// capabilityNames describes each capability in a skipped test's message.
var capabilityNames = []struct {
	c    Capability
	name string
}{
	{Failures, "Failures (the model cannot be scripted to fail)"},
	{Wire, "Wire (the requests the model sends cannot be seen)"},
	{ExactUsage, "ExactUsage (the model does not report the scripted usage)"},
	{Streaming, "Streaming (the model does not read its answer as a stream)"},
	{Reasoning, "Reasoning (the model cannot be scripted to reason)"},
}

// String returns the names of the capabilities in c, joined by "|".
func (c Capability) String() string {
	var names []string
	for _, n := range capabilityNames {
		if c&n.c != 0 {
			names = append(names, n.name[:strings.IndexByte(n.name, ' ')])
			c &^= n.c
		}
	}
	if c != 0 {
		names = append(names, fmt.Sprintf("Capability(%#x)", uint(c)))
	}
	return strings.Join(names, "|")
}

// need skips t when the harness lacks c.
func (h *Harness) need(t *testing.T, c Capability) {
	t.Helper()
	for _, n := range capabilityNames {
		if c&n.c != 0 && h.Lacks&n.c != 0 {
			t.Skipf("the harness lacks %s", n.name)
		}
	}
}

// has reports whether the harness has c.
func (h *Harness) has(c Capability) bool { return h.Lacks&c == 0 }

// Exercise runs the conformance suite against the models h opens, each
// check a subtest:
//
//   - Text, Usage, Reasoning: a text answer, its usage and finish, and
//     reasoning carried back to the provider;
//   - ToolCalls, ToolCallIDs: parallel calls from interleaved fragments,
//     with the provider's ids or ids made for them;
//   - Conversation, History, Options, InvalidRequest: histories and
//     options the provider accepts, requests it must refuse;
//   - Failures, FailureMidStream, StreamBrokenOff, CutOff, EmptyAnswer:
//     the provider's failures and broken answers;
//   - CancelBefore, CancelMidStream, BreakEarly, RangeTwice, Concurrent:
//     the iterator's contract;
//   - Cached, Dialect, Name: the optional interfaces.
//
// It fails t at once when h has no Open.
func Exercise(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil {
		t.Fatal("modeltest: Harness.Open is nil")
	}
	for _, tc := range []struct {
		name string
		f    func(*testing.T, *Harness)
	}{
		{"Text", testText},
		{"Usage", testUsage},
		{"Reasoning", testReasoning},
		{"ToolCalls", testToolCalls},
		{"ToolCallIDs", testToolCallIDs},
		{"Conversation", testConversation},
		{"History", testHistory},
		{"Options", testOptions},
		{"InvalidRequest", testInvalidRequest},
		{"Failures", testFailures},
		{"FailureMidStream", testFailureMidStream},
		{"StreamBrokenOff", testStreamBrokenOff},
		{"CutOff", testCutOff},
		{"EmptyAnswer", testEmptyAnswer},
		{"CancelBefore", testCancelBefore},
		{"CancelMidStream", testCancelMidStream},
		{"BreakEarly", testBreakEarly},
		{"RangeTwice", testRangeTwice},
		{"Concurrent", testConcurrent},
		{"Cached", testCached},
		{"Dialect", testDialect},
		{"Name", testName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeaks(t)
			tc.f(t, &h)
		})
	}
}

// open opens a backend with turns, failing t when it lacks Requests
// although the harness has [Wire].
func (h *Harness) open(t *testing.T, turns ...Turn) Backend {
	t.Helper()
	b := h.Open(t, turns...)
	if b.Model == nil {
		t.Fatal("Harness.Open returned no Model")
	}
	if b.Requests == nil && h.has(Wire) {
		t.Fatal("Harness.Open returned no Requests, and the harness does not declare that it lacks Wire")
	}
	return b
}
