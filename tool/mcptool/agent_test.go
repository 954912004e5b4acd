package mcptool_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/tool"
)

// progressEvents keeps the progress events a run's hooks are told, and
// closes done at the last step.
type progressEvents struct {
	mu   sync.Mutex
	got  []toolwire.ToolProgressEvent
	done chan struct{}
}

func (h *progressEvents) Observe(_ context.Context, e toolwire.Event) {
	if p, ok := e.(toolwire.ToolProgressEvent); ok {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.got = append(h.got, p)
		if p.Progress.Progress == 2 {
			close(h.done)
		}
	}
}

// TestAgentProgress: an MCP server's progress notifications reach the
// run's hooks as ToolProgressEvents, with the call they belong to.
func TestAgentProgress(t *testing.T) {
	srv, _, ts := httpTestServer(t, "h")
	hook := &progressEvents{done: make(chan struct{})}
	ts.progressed = hook.done // the server answers once the hook has seen both steps
	_, reg := newPool(t, nil, srv)
	model := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{{ID: "call_a", Name: "slow", Args: `{}`}}}, llmtest.Turn{Text: "ok"})
	m, err := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: model.URL + "/v1", APIKey: "sk-test", NoStream: true}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := toolwire.New(m, &toolwire.Config{Tools: reg, Executor: &tool.Config{Timeout: 20 * time.Second}, Hooks: []toolwire.Hook{hook}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := []toolwire.ToolProgressEvent{
		{Turn: 1, CallID: "call_a", Tool: "slow", Attempt: 1, Progress: tool.Progress{Progress: 1, Total: 2, Message: "step 1"}},
		{Turn: 1, CallID: "call_a", Tool: "slow", Attempt: 1, Progress: tool.Progress{Progress: 2, Total: 2, Message: "step 2"}},
	}
	if !slices.Equal(hook.got, want) {
		t.Errorf("progress events = %+v\nwant %+v", hook.got, want)
	}
}

// TestAgentListChanged: in an agent's run, a tool that an MCP server
// adds during a call (list_changed) is offered from the next turn, and
// the model can call it; a call whose server crashes is a tool message,
// and the run goes on.
func TestAgentListChanged(t *testing.T) {
	srv, _ := stdioServer(t, "s")
	_, reg := newPool(t, nil, srv)
	model := llmtest.NewServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "install", Args: `{}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "added", Args: `{}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "crash", Args: `{}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "echo", Args: `{"text":"after the crash"}`}}},
		llmtest.Turn{Text: "All done."})
	m, err := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: model.URL + "/v1", APIKey: "sk-test", NoStream: true}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := toolwire.New(m, &toolwire.Config{Tools: reg, Executor: &tool.Config{Timeout: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	res, err := a.Run(context.Background(), "Install it and use it.")
	if err != nil {
		t.Fatalf("Run: %v (%+v)", err, res)
	}
	reqs := model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls, want 5", len(reqs))
	}
	if strings.Contains(string(reqs[0].Body), "Came later.") || !strings.Contains(string(reqs[1].Body), "Came later.") {
		t.Errorf("the tool added during turn 1 is not offered from turn 2 exactly")
	}
	var got []string
	for _, msg := range res.State.Messages {
		for _, r := range msg.ToolResults() {
			got = append(got, r.Name+": "+r.Text())
		}
	}
	for i, want := range []string{`"data":"installed"`, `"data":"I am new"`, `"type":"upstream_error"`, `"data":"after the crash"`} {
		if i >= len(got) || !strings.Contains(got[i], want) {
			t.Errorf("result %d lacks %s; results:\n%s", i+1, want, strings.Join(got, "\n"))
		}
	}
}
