package gateway

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	providers "github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// clientOf returns toolwire's own client of dialect d pointed at the
// gateway at base: a client that holds a stream to its provider's rules.
func clientOf(t *testing.T, d transcript.Dialect, base string) llm.Model {
	t.Helper()
	c := map[transcript.Dialect]struct{ spec, path string }{
		transcript.OpenAIChat:      {"openai:gpt-4.1", "/v1"},
		transcript.OpenAIResponses: {"openai-responses:gpt-4.1", "/v1"},
		transcript.Anthropic:       {"anthropic:claude-sonnet-4-5", ""},
		transcript.Gemini:          {"gemini:gemini-2.5-flash", "/v1beta"},
	}[d]
	m, err := open.Model(c.spec, &providers.Options{BaseURL: base + c.path, APIKey: "test-key", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestShapingStreamed checks shaping for requests that ask for a stream,
// in every dialect, through toolwire's own clients (which hold a stream to
// the provider's rules): the model's read_result calls are answered by
// the gateway, and the client reads one stream that joins the answers —
// the text said before a read, then the final answer, numbered as one
// answer; a final answer that calls another tool reaches the client
// whole.
func TestShapingStreamed(t *testing.T) {
	for _, d := range transcript.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			up := llmtest.NewServer(t, llmtest.Turn{Text: "first"})
			base, _ := newGateway(t, up.URL, Config{Routes: map[transcript.Dialect]Route{d: {Shape: &Shaping{Budget: 1000}}}})
			m := clientOf(t, d, base)
			req := &llm.Request{Messages: bigHistory(3000), Tools: []llm.ToolSpec{{Name: "search_orders", Description: "Search the orders.", Parameters: []byte(`{"type":"object"}`)}}}
			ref := func() string {
				resp, err := llm.Generate(context.Background(), m, req)
				if err != nil || resp.Message.Text() != "first" {
					t.Fatalf("first answer: %v, %+v", err, resp)
				}
				return refPattern.FindString(string(up.Requests()[0].Body))
			}()
			if ref == "" {
				t.Fatalf("the streamed request was not shaped: %.500s", up.Requests()[0].Body)
			}
			read := func(offset int) llmtest.Call {
				return llmtest.Call{Name: "read_result", Args: fmt.Sprintf(`{"ref":%q,"offset":%d,"limit":5}`, ref, offset)}
			}
			for _, c := range []struct {
				name  string
				turns []llmtest.Turn
				text  string
				calls []string
			}{
				{"read first", []llmtest.Turn{{Calls: []llmtest.Call{read(100)}}, {Text: "1000 orders were refunded."}}, "1000 orders were refunded.", nil},
				{"text, then read", []llmtest.Turn{{Text: "Let me look. ", Calls: []llmtest.Call{read(100)}}, {Text: "Found them."}}, "Let me look. Found them.", nil},
				{"two reads", []llmtest.Turn{{Text: "A", Calls: []llmtest.Call{read(1)}}, {Text: "B", Calls: []llmtest.Call{read(2)}}, {Text: "C"}}, "ABC", nil},
				{"another tool", []llmtest.Turn{{Text: "Searching.", Calls: []llmtest.Call{{Name: "search_orders", Args: `{"status":"refunded"}`}}}}, "Searching.", []string{"search_orders"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					before := len(up.Requests())
					up.Add(c.turns...)
					resp, err := llm.Generate(context.Background(), m, req)
					if err != nil {
						t.Fatal(err)
					}
					var names []string
					for _, call := range resp.Message.ToolCalls() {
						names = append(names, call.Name)
					}
					if got := textOf(resp.Message); got != c.text || fmt.Sprint(names) != fmt.Sprint(c.calls) {
						t.Errorf("the client read text %q and calls %v, want %q and %v", got, names, c.text, c.calls)
					}
					if n := len(up.Requests()) - before; n != len(c.turns) {
						t.Errorf("the upstream got %d requests, want %d", n, len(c.turns))
					}
				})
			}
		})
	}
}

// textOf joins the text parts of m.
func textOf(m llm.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(llm.Text); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// TestShapingStreamedHeaders checks what a streamed shaped answer says
// of itself: the Toolwire-Shaped header counts the reads answered before
// its first byte, the trailer all of them; and an upstream that fails
// after a read ends the stream with the provider's error event.
func TestShapingStreamedHeaders(t *testing.T) {
	d := transcript.Anthropic
	up := llmtest.NewServer(t, llmtest.Turn{Text: "first"})
	base, _ := newGateway(t, up.URL, Config{Routes: map[transcript.Dialect]Route{d: {Shape: &Shaping{Budget: 1000}}}})
	data := body(t, d, bigHistory(3000), true)
	post(t, base, d, data, true)
	ref := refPattern.FindString(string(up.Requests()[0].Body))
	read := llmtest.Call{Name: "read_result", Args: fmt.Sprintf(`{"ref":%q}`, ref)}

	up.Add(llmtest.Turn{Calls: []llmtest.Call{read}}, llmtest.Turn{Text: "A", Calls: []llmtest.Call{read}}, llmtest.Turn{Text: "B"})
	resp, b := post(t, base, d, data, true)
	if got := resp.Header.Get(ShapedHeader); got != "1 results, 1 reads" {
		t.Errorf("header %s %q, want the one read before the first byte", ShapedHeader, got)
	}
	if got := resp.Trailer.Get(ShapedHeader); got != "1 results, 2 reads" {
		t.Errorf("trailer %s %q, want both reads", ShapedHeader, got)
	}
	if n := strings.Count(string(b), "event: message_start"); n != 1 || !strings.Contains(string(b), `"index":1`) {
		t.Errorf("the joined stream has %d message_start events, want 1, and the second answer's block numbered 1: %s", n, b)
	}

	up.Add(llmtest.Turn{Text: "A", Calls: []llmtest.Call{read}}, llmtest.Turn{Error: &llmtest.Error{Kind: llm.Overloaded, Status: http.StatusServiceUnavailable}})
	resp, b = post(t, base, d, data, true)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "event: error") || !strings.Contains(string(b), "after read_result, the upstream answered 503") {
		t.Errorf("status %d: %s", resp.StatusCode, b)
	}
}

// TestShapingStreamedNumbering checks, on the raw stream, that the
// answers joined read as one answer: one opening, one end, ids and
// numbers that continue (which SDKs' accumulators require).
func TestShapingStreamedNumbering(t *testing.T) {
	for _, d := range transcript.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			up := llmtest.NewServer(t, llmtest.Turn{Text: "first"})
			base, _ := newGateway(t, up.URL, Config{Routes: map[transcript.Dialect]Route{d: {Shape: &Shaping{Budget: 1000}}}})
			data := body(t, d, bigHistory(3000), true)
			post(t, base, d, data, true)
			ref := refPattern.FindString(string(up.Requests()[0].Body))
			read := llmtest.Call{Name: "read_result", Args: fmt.Sprintf(`{"ref":%q}`, ref)}
			up.Add(llmtest.Turn{Text: "A", Calls: []llmtest.Call{read}}, llmtest.Turn{Reasoning: "hmm", Text: "B", Calls: []llmtest.Call{read}}, llmtest.Turn{Text: "C"})
			_, b := post(t, base, d, data, true)
			if err := joinedAsOne(d, b); err != nil {
				t.Errorf("%v in:\n%s", err, b)
			}
		})
	}
}

// joinedAsOne returns what in stream, an answer of dialect d, does not
// read as one answer.
func joinedAsOne(d transcript.Dialect, stream []byte) error {
	rd := sse.NewReader(bytes.NewReader(stream), 0)
	var evs []sse.Event
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		ev.Data = bytes.Clone(ev.Data)
		evs = append(evs, ev)
	}
	count := func(typ string) int {
		n := 0
		for _, ev := range evs {
			if ev.Type == typ {
				n++
			}
		}
		return n
	}
	type event struct {
		ID          string `json:"id"`
		Index       int    `json:"index"`
		OutputIndex int    `json:"output_index"`
		Seq         int    `json:"sequence_number"`
		Response    struct {
			ID     string           `json:"id"`
			Output []jsontext.Value `json:"output"`
		} `json:"response"`
	}
	parse := func(ev sse.Event) (e event) {
		json.Unmarshal(ev.Data, &e)
		return e
	}
	switch d {
	case transcript.OpenAIChat:
		ids := map[string]bool{}
		for _, ev := range evs[:len(evs)-1] {
			ids[parse(ev).ID] = true
		}
		if len(ids) != 1 || string(evs[len(evs)-1].Data) != "[DONE]" {
			return fmt.Errorf("chunk ids %v, last event %q; want one id, then [DONE]", ids, evs[len(evs)-1].Data)
		}
	case transcript.Anthropic:
		if count("message_start") != 1 || count("message_stop") != 1 {
			return fmt.Errorf("%d message_start, %d message_stop; want 1 each", count("message_start"), count("message_stop"))
		}
		next := 0
		for _, ev := range evs {
			if ev.Type == "content_block_start" {
				if e := parse(ev); e.Index != next {
					return fmt.Errorf("content block %d starts after %d blocks", parse(ev).Index, next)
				}
				next++
			}
		}
	case transcript.OpenAIResponses:
		if count("response.created") != 1 || count("response.completed") != 1 {
			return fmt.Errorf("%d response.created, %d response.completed; want 1 each", count("response.created"), count("response.completed"))
		}
		id, items := "", 0
		for i, ev := range evs {
			e := parse(ev)
			if i > 0 && e.Seq != i {
				return fmt.Errorf("event %d has sequence number %d", i, e.Seq)
			}
			switch ev.Type {
			case "response.created":
				id = e.Response.ID
			case "response.output_item.added":
				if e.OutputIndex != items {
					return fmt.Errorf("output item %d added after %d items", e.OutputIndex, items)
				}
				items++
			case "response.completed":
				if e.Response.ID != id || len(e.Response.Output) != items {
					return fmt.Errorf("the completed response is %q with %d items; want %q with %d", e.Response.ID, len(e.Response.Output), id, items)
				}
			}
		}
	case transcript.Gemini:
		n := 0
		for _, ev := range evs {
			if strings.Contains(string(ev.Data), `"finishReason"`) {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%d events with a finishReason, want 1", n)
		}
	}
	return nil
}

// TestShapingReasoning checks that a read_result round keeps what the
// model sent with its read: asked to reason, each provider needs the
// answer replayed whole — Anthropic the signed thinking block before the
// tool_use (ANT-THINKING-FIRST), Gemini 3 the thoughtSignature of the
// first call (GEM-THOUGHT-SIG), Responses the reasoning item beside its
// function_call (OAI-RS-REASONING-PAIR) — and the upstream, which holds
// requests to those rules, must accept the continuation, streamed and
// not.
func TestShapingReasoning(t *testing.T) {
	specs := map[transcript.Dialect]struct{ spec, path string }{
		transcript.OpenAIChat:      {"openai:gpt-4.1", "/v1"},
		transcript.OpenAIResponses: {"openai-responses:gpt-5", "/v1"},
		transcript.Anthropic:       {"anthropic:claude-sonnet-4-5", ""},
		transcript.Gemini:          {"gemini:gemini-3-pro-preview", "/v1beta"},
	}
	for _, d := range transcript.Dialects() {
		for _, noStream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/whole=%v", d, noStream), func(t *testing.T) {
				up := llmtest.NewServer(t, llmtest.Turn{Text: "first"})
				base, _ := newGateway(t, up.URL, Config{Routes: map[transcript.Dialect]Route{d: {Shape: &Shaping{Budget: 1000}}}})
				c := specs[d]
				m, err := open.Model(c.spec, &providers.Options{BaseURL: base + c.path, APIKey: "test-key", MaxRetries: -1, NoStream: noStream})
				if err != nil {
					t.Fatal(err)
				}
				// A new question after the large result: the model's
				// answer starts a turn, which with thinking on must start
				// with its thinking block.
				history := append(bigHistory(3000), llm.Assistant(llm.Text{Text: "There are 3,000 orders."}), llm.User("How many were refunded?"))
				req := &llm.Request{Messages: history, Effort: llm.EffortHigh,
					Tools: []llm.ToolSpec{{Name: "search_orders", Description: "Search the orders.", Parameters: []byte(`{"type":"object"}`)}}}
				if _, err := llm.Generate(context.Background(), m, req); err != nil {
					t.Fatalf("first answer: %v", err)
				}
				ref := refPattern.FindString(string(up.Requests()[0].Body))
				if ref == "" {
					t.Fatalf("the request was not shaped: %.500s", up.Requests()[0].Body)
				}
				up.Add(llmtest.Turn{Reasoning: "The count is in the records.", Text: "Reading. ", Calls: []llmtest.Call{
					{Name: "read_result", Args: fmt.Sprintf(`{"ref":%q,"offset":100,"limit":5}`, ref)},
					{Name: "search_orders", Args: `{"status":"refunded"}`},
				}}, llmtest.Turn{Text: "1000 orders were refunded."})
				resp, err := llm.Generate(context.Background(), m, req)
				if err != nil {
					t.Fatalf("the continuation failed: %v", err)
				}
				for i, r := range up.Requests() {
					if r.Rejected != "" {
						t.Errorf("the upstream refused request %d: %s", i, r.Rejected)
					}
				}
				if got := textOf(resp.Message); !strings.HasSuffix(got, "1000 orders were refunded.") {
					t.Errorf("the client read %q", got)
				}
				// The continuation replays the model's answer whole: its
				// reasoning (where the dialect has a place for it), its
				// text, both calls, and a result for each.
				reqs := up.Requests()
				if len(reqs) != 3 {
					t.Fatalf("the upstream got %d requests, want 3", len(reqs))
				}
				b, err := wire.Decode(reqs[2].Body, d)
				if err != nil {
					t.Fatal(err)
				}
				msgs := b.Request().Messages
				if len(msgs) < 2 {
					t.Fatalf("the continuation has %d messages", len(msgs))
				}
				a, results := msgs[len(msgs)-2], msgs[len(msgs)-1]
				var reasoning bool
				for _, p := range a.Parts {
					if r, ok := p.(llm.Reasoning); ok && r.Provider == string(d) {
						reasoning = true
					}
				}
				if d != transcript.OpenAIChat && !reasoning {
					t.Errorf("the model's reasoning is not replayed: %+v", a.Parts)
				}
				if a.Text() != "Reading. " || len(a.ToolCalls()) != 2 || len(results.ToolResults()) != 2 {
					t.Errorf("the answer replayed is %+v, its results %+v", a.Parts, results.Parts)
				}
			})
		}
	}
}
