package toolwire_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

type empty struct{}

// TestToolsChangeMidRun: the caller's registry changes while a run goes
// on (as an MCP server's tool list does): the next model call is told
// the new tools, and a call of a removed tool is answered unknown_tool.
func TestToolsChangeMidRun(t *testing.T) {
	reg := tool.NewRegistry()
	install := tool.MustFunc("install", "Installs the weather tool.", func(ctx context.Context, _ empty) (string, error) {
		reg.MustAdd(weatherTool())
		reg.Remove("install")
		return "installed", nil
	}, nil)
	reg.MustAdd(install)
	srv := llmtest.NewServer(t, calls(call("install", `{}`)), calls(paris, call("install", `{}`)), llmtest.Turn{Text: "Sunny."})
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: reg})
	if got := names(a.Tools()); !slices.Equal(got, []string{"install", "read_result"}) {
		t.Fatalf("Tools() = %v before the run", got)
	}
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	// The tools are told by their descriptions.
	const installs, weather = "Installs the weather tool.", "Current weather in a city."
	for i, want := range [][2]bool{{true, false}, {false, true}, {false, true}} {
		body := string(reqs[i].Body)
		if got := [2]bool{strings.Contains(body, installs), strings.Contains(body, weather)}; got != want {
			t.Errorf("request %d lists install, get_weather = %v, want %v", i+1, got, want)
		}
	}
	last := res.State.Messages[len(res.State.Messages)-2] // the turn-2 results
	var got []string
	for _, r := range last.ToolResults() {
		got = append(got, r.Name+":"+string(r.Status))
	}
	if !slices.Equal(got, []string{"get_weather:success", "install:error"}) {
		t.Errorf("turn 2 results = %v, want get_weather:success, install:error (unknown now)", got)
	}
	if gotNames := names(a.Tools()); !slices.Equal(gotNames, []string{"get_weather", "read_result"}) {
		t.Errorf("Tools() = %v after the run", gotNames)
	}
}

func names(specs []llm.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// progressHook keeps the progress events it is told.
type progressHook struct {
	mu     sync.Mutex
	events []toolwire.ToolProgressEvent
}

func (h *progressHook) Observe(_ context.Context, e toolwire.Event) {
	if p, ok := e.(toolwire.ToolProgressEvent); ok {
		h.mu.Lock()
		h.events = append(h.events, p)
		h.mu.Unlock()
	}
}

// TestToolProgress: what a tool reports of its progress reaches the
// hooks, with the call it belongs to; without hooks, no one listens.
func TestToolProgress(t *testing.T) {
	var watched []bool
	slow := tool.MustFunc("slow", "Works in steps.", func(ctx context.Context, _ empty) (toolresult.Envelope, error) {
		watched = append(watched, tool.Watched(ctx))
		tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 2, Message: "half"})
		tool.ReportProgress(ctx, tool.Progress{Progress: 2, Total: 2})
		return toolresult.Success("done", nil), nil
	}, nil)
	var h progressHook
	srv := llmtest.NewServer(t, calls(call("slow", `{}`)), llmtest.Turn{Text: "ok"}, calls(call("slow", `{}`)), llmtest.Turn{Text: "ok"})
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(slow), Hooks: []toolwire.Hook{&h}})
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := []toolwire.ToolProgressEvent{
		{Turn: 1, CallID: "call_1_0", Tool: "slow", Attempt: 1, Progress: tool.Progress{Progress: 1, Total: 2, Message: "half"}},
		{Turn: 1, CallID: "call_1_0", Tool: "slow", Attempt: 1, Progress: tool.Progress{Progress: 2, Total: 2}},
	}
	if !slices.Equal(h.events, want) {
		t.Errorf("progress events = %+v, want %+v", h.events, want)
	}
	b, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(slow)})
	if _, err := b.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(watched, []bool{true, false}) {
		t.Errorf("tool.Watched = %v, want true with a hook, false without", watched)
	}
}
