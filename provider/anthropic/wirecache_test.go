package anthropic

import (
	"math/rand/v2"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codectest"
)

func newTestClient(t *testing.T, cfg *Config) *Client {
	t.Helper()
	c, err := NewClient("claude-sonnet-4-5", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The cached body is the body Stream sends, breakpoints included, for
// generated conversations the API accepts: cache_control blocks already
// in them, thinking, string and block contents, server tools and search
// results, with and without reasoning effort; over a cache that is reused
// and invalidated.
func TestSegmentsAreTheBody(t *testing.T) {
	body := func(seed uint64) []byte { return (&bodyGen{r: rand.New(rand.NewPCG(seed, 7))}).body() }
	form := func(r *Request) *llm.Request { return &llm.Request{Messages: r.Messages, Tools: r.Tools} }
	reqs := codectest.Generated(t, tested, body, form)
	for _, cfg := range []*Config{nil, {NoCache: true}} {
		c := newTestClient(t, cfg)
		if got := codectest.SegmentsAreTheBody(t, reqs, c.body, c.segments); got < 3*len(reqs) {
			t.Errorf("only %d bodies compared", got)
		}
	}
}

// The breakpoints land where Stream's land in histories that test each of
// its rules: the system prompt's forms, blocks that cannot take one or
// hold one already, and breakpoints already in the body.
func TestSegmentsBreakpoints(t *testing.T) {
	img := llm.Image{MediaType: "image/png", Data: []byte("png")}
	call := func(id, input string) llm.Message {
		return llm.Assistant(llm.ToolCall{ID: id, Name: "get_weather", Input: jsontext.Value(input)})
	}
	result := func(id string, content ...llm.Part) llm.Message {
		return llm.Tool(llm.ToolResult{CallID: id, Name: "get_weather", Status: llm.StatusSuccess, Content: content})
	}
	ant := func(data string) llm.Opaque {
		return llm.Opaque{Provider: "anthropic", Kind: "block", Data: jsontext.Value(data)}
	}
	held := ant(`{"type":"text","text":"cached","cache_control":{"type":"ephemeral"}}`)
	thinking := ant(`{"type":"thinking","thinking":"hmm","signature":"c2ln"}`)
	user := func(parts ...llm.Part) llm.Message { return llm.Message{Role: llm.RoleUser, Parts: parts} }
	weather := llm.ToolSpec{Name: "get_weather", Parameters: jsontext.Value(`{"type":"object","properties":{"city":{"type":"string"}}}`)}
	heldTool := llm.ToolSpec{Name: "cache", Parameters: jsontext.Value(`{"type":"object","properties":{"cache_control":{"type":"string"}}}`)}
	tests := map[string]*llm.Request{
		"empty system text":        {Messages: []llm.Message{llm.System(""), llm.User("hi")}},
		"one system text":          {Messages: []llm.Message{llm.System("Be brief."), llm.User("hi")}, Tools: []llm.ToolSpec{weather}},
		"system texts in three":    {Messages: []llm.Message{llm.System("a"), {Role: llm.RoleSystem, Parts: []llm.Part{img}}, {Role: llm.RoleSystem, Parts: []llm.Part{llm.Text{Text: "b"}, llm.Text{Text: "c"}}}, llm.User("hi")}},
		"one system text of three": {Messages: []llm.Message{{Role: llm.RoleSystem}, llm.System("a"), {Role: llm.RoleSystem, Parts: []llm.Part{img}}, llm.User("hi")}},
		"system without text":      {Messages: []llm.Message{{Role: llm.RoleSystem, Parts: []llm.Part{img}}, llm.User("hi")}},
		"a later system message":   {Messages: []llm.Message{llm.User("hi"), llm.Assistant(llm.Text{Text: "yes"}), llm.System("Be brief."), llm.User("ok")}},
		"empty user messages":      {Messages: []llm.Message{llm.User("hi"), llm.Assistant(llm.Text{Text: "yes"}), user(), llm.Assistant(llm.Text{Text: "?"}), user()}},
		"an empty last block":      {Messages: []llm.Message{user(llm.Text{Text: "hi"}, ant(`{}`)), llm.Assistant(llm.Text{Text: "yes"}), llm.User("ok")}},
		"a thinking last block":    {Messages: []llm.Message{llm.User("a"), llm.Assistant(llm.Text{Text: "b"}), llm.User("c"), llm.Assistant(llm.Text{Text: "d"}), user(llm.Text{Text: "e"}, thinking)}},
		"a held last block":        {Messages: []llm.Message{llm.System("s"), llm.User("a"), llm.Assistant(llm.Text{Text: "b"}), user(llm.Text{Text: "c"}, held)}, Tools: []llm.ToolSpec{weather}},
		"held blocks use the budget": {Messages: []llm.Message{llm.System("s"), user(held, llm.Text{Text: "a"}), llm.Assistant(llm.Text{Text: "b"}), user(held, held, llm.Text{Text: "c"})},
			Tools: []llm.ToolSpec{weather}},
		"no budget left": {Messages: []llm.Message{llm.System("s"), user(held, held, held, held, llm.Text{Text: "a"})}, Tools: []llm.ToolSpec{weather}},
		"a held tool":    {Messages: []llm.Message{llm.System("s"), llm.User("a")}, Tools: []llm.ToolSpec{weather, heldTool}},
		"a call input holding one": {Messages: []llm.Message{llm.System("s"), llm.User("a"), call("toolu_1", `{"cache_control" : {"type":"ephemeral"}}`), result("toolu_1", llm.Text{Text: "18C"}, img),
			llm.Assistant(llm.Text{Text: "ok"}), llm.User("b")}, Tools: []llm.ToolSpec{weather}},
		"results and text": {Messages: []llm.Message{llm.User("a"), call("toolu_1", `{}`), {Role: llm.RoleTool, Parts: []llm.Part{
			llm.ToolResult{CallID: "toolu_1", Name: "get_weather", Status: llm.StatusError}, llm.Text{Text: "and then?"}}}}, Tools: []llm.ToolSpec{weather}},
	}
	c := newTestClient(t, nil)
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			if codectest.SegmentsAreTheBody(t, []*llm.Request{req}, c.body, c.segments) == 0 {
				t.Error("no body compared")
			}
		})
	}
}

// BenchmarkTurn measures turn 50 of a long loop, encoded whole (and its
// breakpoints placed by reading the body) and from the cache.
func BenchmarkTurn(b *testing.B) {
	c, err := NewClient("claude-sonnet-4-5", nil)
	if err != nil {
		b.Fatal(err)
	}
	codectest.BenchTurn(b, c.body, c.segments)
}
