package clienttest

import (
	"bytes"
	"context"
	"iter"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// cachedTools are the tools of the cached conversations: get_weather, and
// get_time, which a compaction renames calls to.
var cachedTools = append(slices.Clip(Tools), llm.ToolSpec{Name: "get_time", Description: "Local time in a city.",
	Parameters: jsontext.Value(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)})

// png is a tiny image the conversations send, in a user message and in a
// tool result.
var png = llm.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")}

// A step is one turn of a scripted conversation: the model's answer, what
// the conversation does before the request, and how the results of the
// answer's calls are written.
type step struct {
	turn llmtest.Turn
	// before changes the history before the request, as fitting and
	// compaction do: it returns a new slice, sharing the messages it
	// keeps.
	before func(msgs []llm.Message) []llm.Message
	// lose makes the server forget its stored responses before the
	// request (Responses: the client must send the whole history).
	lose bool
	// unnamed writes the results without the tool's name (as a history
	// converted from Chat has them), for the dialect to take from the call.
	unnamed bool
	// image puts an image in the first result.
	image bool
	// errorStatus fails the last result.
	errorStatus bool
	// user is the message the user sends after an answer without calls;
	// "" for "Go on.".
	user string
}

// call returns a scripted call of get_weather for city with the given id.
func call(id, city string) llmtest.Call {
	return llmtest.Call{ID: id, Name: "get_weather", Args: `{"city":"` + city + `"}`}
}

// scenario is the conversation Cached drives: reasoning, text, parallel
// calls, results with an image and an error, a user message with an
// image, results without names, a server that lost its stored responses,
// and two compactions that change early messages. The requests ask for
// reasoning, and every answer with calls has some, as a reasoning model's
// do (Anthropic requires it of the last one, ANT-THINKING-FIRST).
var scenario = []step{
	// No text after the reasoning: Responses with Store, sending this
	// answer again after the server lost it (turn 6), would write its text
	// as a message item without the id of the one that followed the
	// reasoning (OAI-RS-REASONING-FOLLOW), as Stream does.
	{turn: llmtest.Turn{Reasoning: "Two cities.", Calls: []llmtest.Call{call("call_1a", "Paris"), call("call_1b", "Rome")}}, unnamed: true, image: true},
	{turn: llmtest.Turn{Reasoning: "Oslo too.", Calls: []llmtest.Call{call("call_2", "Oslo")}}, errorStatus: true},
	{turn: llmtest.Turn{Text: "Paris 18°C, Rome 21°C; Oslo failed."}, user: "Here is a photo <of Oslo> & more; and Madrid?"},
	{turn: llmtest.Turn{Reasoning: "Madrid, then.", Calls: []llmtest.Call{call("call_4a", "Madrid"), call("call_4b", "Lisbon"), call("call_4c", "Bern")}}},
	// Fitting elides the first results.
	{turn: llmtest.Turn{Text: "Madrid 25°C."}, before: func(msgs []llm.Message) []llm.Message {
		msgs = slices.Clone(msgs)
		msgs[3] = llm.Tool(llm.ToolResult{CallID: "call_1a", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "[elided]"}}},
			llm.ToolResult{CallID: "call_1b", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "[elided]"}}})
		return msgs
	}},
	{turn: llmtest.Turn{Reasoning: "Vienna.", Calls: []llmtest.Call{call("call_6", "Vienna")}}, lose: true},
	// A compaction rewrites the first answer: its calls become get_time,
	// and the results after it, which name no tool, must follow.
	{turn: llmtest.Turn{Text: "Vienna 15°C."}, before: func(msgs []llm.Message) []llm.Message {
		msgs = slices.Clone(msgs)
		var parts []llm.Part
		for _, p := range msgs[2].Parts {
			if c, ok := p.(llm.ToolCall); ok {
				c.Name = "get_time"
				parts = append(parts, c)
			}
		}
		msgs[2] = llm.Assistant(parts...)
		return msgs
	}},
	{turn: llmtest.Turn{Reasoning: "Last one.", Text: "Checking Prague.", Calls: []llmtest.Call{call("call_8", "Prague")}}},
	{turn: llmtest.Turn{Text: "Prague 12°C. Done."}},
}

// converse drives steps through m (how says which way, for errors)
// against srv, and returns the lengths of the histories sent.
func converse(t *testing.T, how string, m llm.Model, srv *llmtest.Server, steps []step) []int {
	t.Helper()
	req := &llm.Request{Messages: []llm.Message{llm.System("Be brief."), llm.User("Weather in Paris and Rome?")}, Tools: cachedTools, Effort: llm.EffortLow}
	var sent []int
	for k, s := range steps {
		srv.Add(s.turn)
		if s.before != nil {
			req.Messages = s.before(req.Messages)
			req.Previous = nil // the stored answer no longer ends this history
		}
		if s.lose {
			srv.Lose("")
		}
		sent = append(sent, len(req.Messages))
		resp, err := llm.Generate(context.Background(), m, req)
		if err != nil {
			t.Fatalf("%s, turn %d: %v", how, k+1, err)
		}
		req.Messages = append(req.Messages, resp.Message)
		if resp.ID != "" {
			// Continue the stored answer, as the agent loop does.
			req.Previous = &llm.Previous{ID: resp.ID, Messages: len(req.Messages)}
		}
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			text := s.user
			if text == "" {
				text = "Go on."
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: text}, png}})
			continue
		}
		var results []llm.ToolResult
		for i, c := range calls {
			r := llm.ToolResult{CallID: c.ID, Name: c.Name, Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: `{"city":` + strconv.Quote(c.ID) + `,"temp_c":18}`}}}
			if s.unnamed {
				r.Name = ""
			}
			if s.image && i == 0 {
				r.Content = append(r.Content, png)
			}
			if s.errorStatus && i == len(calls)-1 {
				r.Status, r.Content = llm.StatusError, []llm.Part{llm.Text{Text: "no such city"}}
			}
			results = append(results, r)
		}
		req.Messages = append(req.Messages, llm.Tool(results...))
	}
	return sent
}

// withCache is a Model whose Stream is a CachedModel's StreamCached with
// one cache.
type withCache struct {
	m     llm.CachedModel
	cache *llm.WireCache
}

func (w withCache) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return w.m.StreamCached(ctx, req, w.cache)
}

func (w withCache) Dialect() string { return w.m.Dialect() }

// Cached drives one conversation twice, each time with a client newModel
// builds for a server of its own: through Stream, then through
// StreamCached with one [llm.WireCache]. The conversation has reasoning,
// text, parallel calls, results with an image and an error, a user message
// with an image, results that name no tool, a server that lost its stored
// responses, and two compactions that change early messages. Cached checks
// that every request StreamCached sends is the one Stream sends, byte for
// byte; the servers enforce the provider's rules, so that a conversation
// goes on only when they accepted its requests.
func Cached(t *testing.T, newModel func(t *testing.T, srv *llmtest.Server) llm.CachedModel) {
	t.Helper()
	whole := llmtest.NewServer(t)
	converse(t, "Stream", newModel(t, whole), whole, scenario)
	cached := llmtest.NewServer(t)
	converse(t, "StreamCached", withCache{newModel(t, cached), new(llm.WireCache)}, cached, scenario)
	want, got := whole.Requests(), cached.Requests()
	if len(got) != len(want) {
		t.Fatalf("StreamCached sent %d requests, Stream %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Path != want[i].Path || got[i].Query != want[i].Query {
			t.Errorf("request %d: StreamCached to %s?%s, Stream to %s?%s", i+1, got[i].Path, got[i].Query, want[i].Path, want[i].Query)
		}
		if !bytes.Equal(got[i].Body, want[i].Body) {
			t.Errorf("request %d: StreamCached sent\n%s\nStream sent\n%s\n%s", i+1, got[i].Body, want[i].Body, codectest.FirstDiff(got[i].Body, want[i].Body))
		}
		if got[i].Rejected != want[i].Rejected {
			t.Errorf("request %d: rejected for %q, Stream's for %q", i+1, got[i].Rejected, want[i].Rejected)
		}
	}
}

// CachedModels runs, for each client newModels names, [Cached] and
// [EncodedOnce] over 50 turns of 3 parallel calls, as the subtests
// "NAME/sends Stream's bytes" and "NAME/encodes once", in the order of
// the names.
func CachedModels(t *testing.T, newModels map[string]func(t *testing.T, srv *llmtest.Server) llm.CachedModel) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(newModels)) {
		newModel := newModels[name]
		t.Run(name+"/sends Stream's bytes", func(t *testing.T) { Cached(t, newModel) })
		t.Run(name+"/encodes once", func(t *testing.T) { EncodedOnce(t, 50, 3, newModel) })
	}
}

// EncodedOnce drives a conversation of turns turns, each answered with
// calls parallel calls, through StreamCached with one [llm.WireCache], and
// checks that each message was encoded once: as many encodings as
// messages sent, and every message a request had already sent reused.
func EncodedOnce(t *testing.T, turns, calls int, newModel func(t *testing.T, srv *llmtest.Server) llm.CachedModel) {
	t.Helper()
	steps := make([]step, turns)
	for k := range steps {
		var cs []llmtest.Call
		for i := range calls {
			cs = append(cs, call("call_"+strconv.Itoa(k)+"_"+strconv.Itoa(i), "Paris"))
		}
		steps[k].turn = llmtest.Turn{Reasoning: "Again.", Calls: cs}
	}
	srv := llmtest.NewServer(t)
	cache := new(llm.WireCache)
	sent := converse(t, "StreamCached", withCache{newModel(t, srv), cache}, srv, steps)
	wantReused := 0
	for k := 1; k < len(sent); k++ {
		wantReused += sent[k-1]
	}
	reused, encoded := cache.Stats()
	if encoded != sent[len(sent)-1] || reused != wantReused {
		t.Errorf("over %d turns of %d messages at the end: %d encoded, %d reused; want %d encoded (each message once), %d reused",
			turns, sent[len(sent)-1], encoded, reused, sent[len(sent)-1], wantReused)
	}
}
