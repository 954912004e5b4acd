package modeltest_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/llm/modeltest"
	"github.com/toolwire/toolwire/transcript"
)

// TestExercise runs the suite against fake, a model that keeps the
// contract; with MODELTEST_DEFECT set (by TestDefects, in a child
// process), against a fake with that defect.
func TestExercise(t *testing.T) {
	defect := os.Getenv("MODELTEST_DEFECT")
	modeltest.Exercise(t, modeltest.Harness{Open: func(t *testing.T, turns ...modeltest.Turn) modeltest.Backend {
		f := &fake{turns: turns, defect: defect}
		return modeltest.Backend{Model: f, Requests: f.requests}
	}})
}

// TestDefects runs the suite against fakes with one defect each, in a
// child process, and checks that it fails where it should and says why.
func TestDefects(t *testing.T) {
	if os.Getenv("MODELTEST_DEFECT") != "" {
		t.Skip("in a child process")
	}
	for _, tt := range []struct {
		defect  string
		subtest string
		want    string
	}{
		{"event after finish", "Text", "after the Finish: a Finish is the last event"},
		{"no finish", "Text", "without an error and without a Finish"},
		{"both", "Text", "want an event or an error, not both"},
		{"bare error", "Failures", `want an *llm.Error of kind "rate_limited"`},
		{"no retry-after", "Failures", "RetryAfter = 0s, want 1m30s"},
		{"no message", "Failures", `want the provider's message "modeltest: slow down"`},
		{"events before failure", "Failures", "before the error: a failed request has no answer"},
		{"mid-stream error swallowed", "FailureMidStream", `error = nil, want an *llm.Error of kind "overloaded"`},
		{"bad arguments", "ToolCalls", "are not valid JSON"},
		{"same ids", "ToolCallIDs", "incomplete tool calls"},
		{"ids rewritten", "ToolCalls", `id = "x_call_w1", want "call_w1"`},
		{"wrong finish", "ToolCalls", "want reason \"tool_calls\""},
		{"no usage", "Text", "want input and output tokens counted"},
		{"usage off", "Usage", "usage = {InputTokens:1234 OutputTokens:0"},
		{"reasoning dropped", "Reasoning", "want the text"},
		{"nondeterministic", "Text", "want what the Accumulator made of the stream"},
		{"rejected history", "History", "the history breaks the provider's rules"},
		{"no validate", "InvalidRequest", "want an error and no event"},
		{"validate after sending", "InvalidRequest", "a request Validate refuses is not sent"},
		{"cut off as error", "CutOff", "want none or an *llm.IncompleteError"},
		{"ignores cancel", "CancelMidStream", "events after its context was cancelled"},
		{"cancel as transport", "CancelBefore", `a retryable *llm.Error of kind "transport"`},
		{"sends when cancelled", "CancelBefore", "a done context sends nothing"},
		{"yields after break", "BreakEarly", "after the loop broke: yield returned false, and the iterator went on"},
		{"leaks on break", "BreakEarly", "goroutines left running"},
		{"sends early", "RangeTwice", "before the iteration started"},
		{"modifies request", "RangeTwice", "modified its request"},
		{"unstable body", "RangeTwice", "the same request was sent as two bodies"},
		{"not concurrent", "Concurrent", "want none"},
		{"cache unused", "Cached", "reused = 0"},
		{"cache differs", "Cached", "StreamCached() sent"},
		{"unknown dialect", "Dialect", `Dialect() = "openai"`},
		{"no name", "Name", `Name() = ""`},
	} {
		t.Run(tt.defect, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestExercise$/^"+tt.subtest+"$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "MODELTEST_DEFECT="+tt.defect)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a fake with the defect %q:\n%s", tt.defect, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestExercise/"+tt.subtest) || !strings.Contains(string(out), tt.want) {
				t.Errorf("the suite failed the defect %q, but not in %s with %q:\n%s", tt.defect, tt.subtest, tt.want, out)
			}
		})
	}
}

// fake is a model that answers a script the way a provider client does,
// keeping the contract the suite checks, but for its defect.
type fake struct {
	turns  []modeltest.Turn
	defect string
	mu     sync.Mutex
	next   int
	reqs   []modeltest.Request
}

var _ llm.CachedModel = (*fake)(nil)

func (f *fake) Dialect() string {
	if f.defect == "unknown dialect" {
		return "openai"
	}
	return string(transcript.OpenAIChat)
}

func (f *fake) Name() string {
	if f.defect == "no name" {
		return ""
	}
	return "fake-1"
}

func (f *fake) requests() []modeltest.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]modeltest.Request(nil), f.reqs...)
}

func (f *fake) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return f.stream(ctx, req, nil)
}

func (f *fake) StreamCached(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	if f.defect == "cache unused" {
		cache = nil
	}
	return f.stream(ctx, req, cache)
}

func (f *fake) stream(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	if f.defect == "sends early" {
		f.send(req, cache)
	}
	return func(yield func(llm.Event, error) bool) {
		if err := ctx.Err(); err != nil {
			if f.defect == "sends when cancelled" {
				f.send(req, cache)
			}
			if f.defect == "cancel as transport" {
				err = &llm.Error{Kind: llm.Transport, Op: "fake", Err: err}
			}
			yield(nil, fmt.Errorf("fake: %w", err))
			return
		}
		if f.defect == "validate after sending" {
			f.send(req, cache)
		}
		if err := req.Validate(); err != nil && f.defect != "no validate" {
			yield(nil, fmt.Errorf("fake: %w", err))
			return
		}
		turn, n, err := f.send(req, cache)
		if f.defect == "modifies request" {
			req.MaxOutputTokens = 4096
		}
		if err != nil {
			yield(nil, err)
			return
		}
		f.answer(ctx, turn, n, yield)
	}
}

// send encodes req and takes the turn that answers it, or refuses it as
// the provider would.
func (f *fake) send(req *llm.Request, cache *llm.WireCache) (modeltest.Turn, int, error) {
	body, err := f.body(req, cache)
	if err != nil {
		return modeltest.Turn{}, 0, fmt.Errorf("fake: %w", err)
	}
	if f.defect == "not concurrent" {
		f.next++ // unguarded, as the defect says
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rec := modeltest.Request{Body: body}
	if vs := transcript.Check(req.Messages, transcript.OpenAIChat); !transcript.Accepted(vs) || f.defect == "rejected history" && len(req.Messages) > 4 {
		rec.Rejected = "the history breaks the provider's rules"
		f.reqs = append(f.reqs, rec)
		return modeltest.Turn{}, 0, &llm.Error{Kind: llm.Invalid, Op: "fake", StatusCode: 400, ProviderMessage: rec.Rejected}
	}
	f.reqs = append(f.reqs, rec)
	if f.next >= len(f.turns) {
		return modeltest.Turn{}, 0, &llm.Error{Kind: llm.Overloaded, Op: "fake", StatusCode: 500, ProviderMessage: "the script has no more turns"}
	}
	f.next++
	return f.turns[f.next-1], f.next, nil
}

// body writes the request: its options, tools and messages, the
// messages' encodings kept in cache when there is one.
func (f *fake) body(req *llm.Request, cache *llm.WireCache) ([]byte, error) {
	encode := func(_ int, m llm.Message) ([]byte, error) {
		return llm.Conversation{Messages: []llm.Message{m}}.MarshalJSON()
	}
	var msgs [][]byte
	var err error
	if cache != nil {
		msgs, err = cache.Messages("fake", req.Messages, encode)
	} else {
		for i, m := range req.Messages {
			b, err := encode(i, m)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, b)
		}
	}
	if err != nil {
		return nil, err
	}
	body := fmt.Appendf(nil, "temperature=%v max=%d choice=%+v effort=%q tools=%d\n", req.Temperature != nil, req.MaxOutputTokens, req.ToolChoice, req.Effort, len(req.Tools))
	if f.defect == "unstable body" {
		f.mu.Lock()
		body = fmt.Appendf(body, "request %d\n", len(f.reqs))
		f.mu.Unlock()
	}
	if f.defect == "cache differs" && cache != nil {
		body = append(body, "cached\n"...)
	}
	for _, b := range msgs {
		body = append(append(body, b...), '\n')
	}
	return body, nil
}

// answer yields turn, the n-th of the script, as events.
func (f *fake) answer(ctx context.Context, turn modeltest.Turn, n int, yield func(llm.Event, error) bool) {
	if e := turn.Error; e != nil && !e.InStream {
		if f.defect == "events before failure" {
			yield(llm.TextDelta{Text: "oops"}, nil)
		}
		yield(nil, f.failure(e))
		return
	}
	events := f.events(turn, n)
	var end error
	switch {
	case turn.Error != nil:
		events = events[:min(max(turn.Error.After, 1), len(events))]
		end = f.failure(turn.Error)
		if f.defect == "mid-stream error swallowed" {
			end = nil
			events = append(events, llm.Finish{Reason: llm.FinishStop})
		}
	case turn.CutOff && f.defect == "cut off as error":
		events = events[:len(events)-1]
		end = &llm.Error{Kind: llm.Invalid, Op: "fake", ProviderMessage: "the answer hit the token limit"}
	case turn.Truncate:
		events = events[:len(events)/2]
		end = &llm.Error{Kind: llm.Transport, Op: "fake", Err: errors.New("the stream ended before the answer did")}
	}
	for _, ev := range events {
		if ctx.Err() != nil && f.defect != "ignores cancel" {
			yield(nil, fmt.Errorf("fake: %w", ctx.Err()))
			return
		}
		var err error
		if f.defect == "both" {
			err = errors.New("fake: both")
		}
		if !yield(ev, err) {
			switch f.defect {
			case "yields after break":
				continue
			case "leaks on break":
				go func() { <-make(chan struct{}) }()
			}
			return
		}
	}
	if end != nil {
		yield(nil, end)
	}
}

// events returns the events of the n-th turn.
func (f *fake) events(turn modeltest.Turn, n int) []llm.Event {
	var evs []llm.Event
	for _, p := range chunks(turn.Reasoning, turn.Chunk) {
		if f.defect != "reasoning dropped" {
			evs = append(evs, llm.ReasoningDelta{Provider: f.Dialect(), Text: p})
		}
	}
	for _, p := range chunks(turn.Text, turn.Chunk) {
		evs = append(evs, llm.TextDelta{Text: p})
	}
	finish := llm.Finish{Reason: llm.FinishStop, Raw: "stop"}
	for i, c := range turn.Calls {
		id := c.ID
		switch {
		case f.defect == "same ids" && id == "":
			id = "call_1"
		case id == "":
			id = "call_" + strconv.Itoa(n) + "_" + strconv.Itoa(i)
		case f.defect == "ids rewritten":
			id = "x_" + id
		}
		args := c.Args
		if turn.CutOff && i == len(turn.Calls)-1 {
			args = args[:len(args)/2]
			finish = llm.Finish{Reason: llm.FinishLength, Raw: "length"}
		} else if f.defect == "bad arguments" {
			args = strings.Replace(args, "\"", "'", 2)
		}
		evs = append(evs, llm.ToolCallDelta{Index: i, ID: id, Name: c.Name})
		for _, p := range chunks(args, turn.Chunk) {
			evs = append(evs, llm.ToolCallDelta{Index: i, Arguments: p})
		}
		if finish.Reason == llm.FinishStop && f.defect != "wrong finish" {
			finish = llm.Finish{Reason: llm.FinishToolCalls, Raw: "tool_calls"}
		}
	}
	u := turn.Usage
	switch {
	case f.defect == "usage off" && u != llm.Usage{}:
		u.OutputTokens = 0
	case f.defect == "nondeterministic":
		u = llm.Usage{InputTokens: 100 + n, OutputTokens: 10}
	case u == llm.Usage{}:
		u = llm.Usage{InputTokens: 100, OutputTokens: 1 + len(turn.Text)/4}
	}
	if f.defect != "no usage" {
		evs = append(evs, u)
	}
	if f.defect != "no finish" {
		evs = append(evs, finish)
	}
	if f.defect == "event after finish" {
		evs = append(evs, u)
	}
	return evs
}

// failure is the error a scripted failure is classified as.
func (f *fake) failure(e *modeltest.Error) error {
	status := e.Status
	if status == 0 {
		status = map[llm.ErrorKind]int{llm.RateLimited: 429, llm.Overloaded: 500, llm.Auth: 401}[e.Kind]
		if status == 0 {
			status = 400
		}
	}
	if f.defect == "bare error" {
		return fmt.Errorf("fake: HTTP %d", status)
	}
	le := &llm.Error{Kind: e.Kind, Op: "fake", StatusCode: status, RetryAfter: e.RetryAfter, ProviderMessage: e.Message}
	if f.defect == "no retry-after" {
		le.RetryAfter = 0
	}
	if f.defect == "no message" {
		le.ProviderMessage = ""
	}
	if e.InStream {
		le.StatusCode = 0
	}
	return le
}

// chunks cuts s into pieces of n bytes (7 for 0), never inside a UTF-8
// sequence; none for "".
func chunks(s string, n int) []string {
	if n <= 0 {
		n = 7
	}
	var out []string
	for len(s) > 0 {
		cut := min(n, len(s))
		for cut < len(s) && s[cut]&0xC0 == 0x80 {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

func TestCapabilityString(t *testing.T) {
	for _, tt := range []struct {
		c    modeltest.Capability
		want string
	}{
		{0, ""},
		{modeltest.Failures | modeltest.Wire, "Failures|Wire"},
		{modeltest.Streaming | 1<<10, "Streaming|Capability(0x400)"},
	} {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("Capability(%#x).String() = %q, want %q", uint(tt.c), got, tt.want)
		}
	}
}
