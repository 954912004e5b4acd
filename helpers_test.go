package toolwire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
	"github.com/toolwire/toolwire/transcript"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A dialect is one provider client, made against a conformance server.
type dialect struct {
	name string
	new  func(t *testing.T, srv *llmtest.Server) llm.Model
}

// dialects returns the four clients, streamed or whole, each opened by
// its name on the conformance server with its key and fast retries.
func dialects(stream bool) []dialect {
	var out []dialect
	for _, d := range []struct{ name, spec, path, key string }{
		{"chat", "openai:gpt-4.1", "/v1", "sk-test"},
		// A model that does not reason: the scripted turns carry no
		// reasoning items, which a gpt-5 call would need (OAI-RS-REASONING-PAIR).
		{"responses", "openai-responses:gpt-4.1", "/v1", "sk-test"},
		{"anthropic", "anthropic:claude-sonnet-4-5", "", "sk-ant-test"},
		{"gemini", "gemini:gemini-2.5-flash", "/v1beta", "AIza-test"},
	} {
		out = append(out, dialect{d.name, func(t *testing.T, srv *llmtest.Server) llm.Model {
			m, err := open.Model(d.spec, &provider.Options{BaseURL: srv.URL + d.path, APIKey: d.key, NoStream: !stream, RetryBackoff: time.Millisecond})
			must(t, err)
			return m
		}})
	}
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checked wraps a model and checks every request's history by the
// model's provider rules before it is sent: the property that the loop
// never sends what the provider would refuse.
type checked struct {
	llm.Model
	t     testing.TB
	calls int
}

func (c *checked) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	c.check(req)
	return c.Model.Stream(ctx, req)
}

// Name returns the wrapped model's name, so that the loop keys the
// rules on it as it would without the wrapper.
func (c *checked) Name() string {
	if n, ok := c.Model.(llm.Named); ok {
		return n.Name()
	}
	return ""
}

func (c *checked) check(req *llm.Request) {
	c.t.Helper()
	c.calls++
	if vs := transcript.CheckRequest(transcript.Request{Messages: req.Messages, Tools: req.Tools, Model: c.Name(), ReasoningEffort: string(req.Effort)}, transcript.Dialect(c.Dialect())); !transcript.Accepted(vs) {
		c.t.Errorf("request %d breaks %s: %v", c.calls, c.Dialect(), vs)
	}
}

// checkedCached is checked for a model that caches encodings.
type checkedCached struct{ *checked }

func (c checkedCached) StreamCached(ctx context.Context, req *llm.Request, cache *llm.WireCache) iter.Seq2[llm.Event, error] {
	c.check(req)
	return c.Model.(llm.CachedModel).StreamCached(ctx, req, cache)
}

// Tools the tests use.

type weatherIn struct {
	City string `json:"city" minLength:"1" jsonschema:"City name"`
}

type weatherOut struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
	Sky   string `json:"sky"`
}

func weatherTool() tool.Tool {
	return tool.MustFunc("get_weather", "Current weather in a city.", func(ctx context.Context, in weatherIn) (weatherOut, error) {
		switch in.City {
		case "Paris":
			return weatherOut{City: "Paris", TempC: 18, Sky: "sunny"}, nil
		case "北京":
			return weatherOut{City: "北京", TempC: 6, Sky: "windy"}, nil
		}
		return weatherOut{}, tool.Errorf(toolresult.NotFound, "no weather station for %q", in.City)
	}, &tool.FuncOptions{Idempotency: tool.Level2})
}

// registry returns a registry of tools.
func registry(tools ...tool.Tool) *tool.Registry {
	r := tool.NewRegistry()
	r.MustAdd(tools...)
	return r
}

// render writes the messages of every request the server received, one
// section per request, for a golden file: roles, text, calls with their
// arguments, results with their status, summary, error type and
// suggestion. Meta (durations) is left out.
func render(t *testing.T, srv *llmtest.Server) []byte {
	t.Helper()
	var b bytes.Buffer
	for i, req := range srv.Requests() {
		fmt.Fprintf(&b, "-- request %d (%s) --\n", i+1, req.Dialect)
		if req.Rejected != "" {
			fmt.Fprintf(&b, "REJECTED: %s\n", req.Rejected)
			continue
		}
		for _, m := range req.Messages(t) {
			renderMessage(&b, m)
		}
	}
	return b.Bytes()
}

var derivedRef = regexp.MustCompile(`r-[a-z2-7]{14}`)

func renderMessage(b *bytes.Buffer, m llm.Message) {
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llm.Text:
			// A ref fitting derives from the run's random id: named so.
			text := derivedRef.ReplaceAllString(p.Text, "r-DERIVED")
			fmt.Fprintf(b, "%s: %s\n", m.Role, oneLine(text, 160))
		case llm.ToolCall:
			fmt.Fprintf(b, "%s: call %s %s\n", m.Role, p.Name, oneLine(string(p.Input), 120))
		case llm.ToolResult:
			fmt.Fprintf(b, "%s: result %s %s\n", m.Role, p.Name, resultLine(p))
		case llm.Reasoning:
			fmt.Fprintf(b, "%s: reasoning\n", m.Role)
		default:
			fmt.Fprintf(b, "%s: %T\n", m.Role, p)
		}
	}
}

// resultLine renders a result's envelope without its data and meta.
func resultLine(r llm.ToolResult) string {
	var text string
	for _, c := range r.Content {
		if t, ok := c.(llm.Text); ok {
			text += t.Text
		}
	}
	var env struct {
		Status  string `json:"status"`
		Summary string `json:"summary"`
		Error   *struct {
			Type string `json:"type"`
		} `json:"error"`
		Suggestion string `json:"suggestion"`
	}
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		return "(not an envelope) " + oneLine(text, 120)
	}
	s := env.Status + ": " + env.Summary
	if env.Error != nil {
		s += " [" + env.Error.Type + "]"
	}
	if env.Suggestion != "" {
		s += " — " + env.Suggestion
	}
	return s
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// checkGolden compares what the server received with the case's golden
// file.
func checkGolden(t *testing.T, name string, srv *llmtest.Server, res *toolwire.Result) {
	t.Helper()
	got := render(t, srv)
	if res != nil {
		got = fmt.Appendf(got, "-- result --\nstop: %s\nmessage: %s\nanswer: %s\n", string(res.Stop), res.Message, oneLine(res.Answer, 300))
	}
	golden.Check(t, filepath.Join("testdata", "loop", name+".txt"), got)
}

// newAgent makes an agent over a checked model.
func newAgent(t *testing.T, m llm.Model, cfg *toolwire.Config) (*toolwire.Agent, *checked) {
	t.Helper()
	c := &checked{Model: m, t: t}
	var model llm.Model = c
	if _, ok := m.(llm.CachedModel); ok {
		model = checkedCached{c}
	}
	a, err := toolwire.New(model, cfg)
	must(t, err)
	return a, c
}

func streamName(stream bool) string {
	if stream {
		return "/stream"
	}
	return "/whole"
}

type context_ = context.Context

// weatherEnvelope is get_weather's result for Paris.
func weatherEnvelope() toolresult.Envelope {
	return toolresult.Success("get_weather(city=Paris): sunny, 18°C", weatherOut{City: "Paris", TempC: 18, Sky: "sunny"})
}
