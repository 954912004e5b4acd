package toolwire_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// lastResult returns the last tool result of a state's messages.
func lastResult(t *testing.T, s *toolwire.State) llm.ToolResult {
	t.Helper()
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if rs := s.Messages[i].ToolResults(); len(rs) > 0 {
			return rs[len(rs)-1]
		}
	}
	t.Fatal("the run has no tool result")
	return llm.ToolResult{}
}

// TestReadResultKeepsRunsApart: one agent without a session store serves
// two users. The second user's model, told the first run's ref (or
// guessing it), must not read the first user's offloaded result; the
// first run, continued, still reads its own.
func TestReadResultKeepsRunsApart(t *testing.T) {
	srv := llmtest.NewServer(t, calls(call("search_orders", `{}`)), llmtest.Turn{Text: "Many orders."})
	a, _ := newAgent(t, dialects(false)[0].new(t, srv), &toolwire.Config{Tools: registry(ordersTool())})
	ctx := context.Background()
	first, err := a.Run(ctx, "How many orders are refunded?")
	must(t, err)
	m := regexp.MustCompile(`"ref":"([^"]+)"`).FindStringSubmatch(lastResult(t, first.State).Text())
	if m == nil {
		t.Fatalf("the first run's result has no ref: %s", oneLine(lastResult(t, first.State).Text(), 300))
	}
	ref := m[1]
	if !regexp.MustCompile(`^r-[a-z2-7]{14}$`).MatchString(ref) {
		t.Errorf("offloaded as %q, want an unguessable ref (r- and 14 random characters)", ref)
	}
	read := call("read_result", `{"ref":"`+ref+`","offset":0,"limit":2}`)

	srv.Add(calls(read), llmtest.Turn{Text: "Nothing."})
	second, err := a.Run(ctx, "Read the other user's orders.")
	must(t, err)
	if got := lastResult(t, second.State); got.Status != llm.StatusError || !strings.Contains(got.Text(), `"type":"not_found"`) {
		t.Errorf("another run's read_result(%s) = %s %s, want an error of type not_found", ref, got.Status, oneLine(got.Text(), 300))
	}

	srv.Add(calls(read), llmtest.Turn{Text: "Two orders."})
	s := first.State
	s.Messages = append(s.Messages, llm.User("Show me the first two."))
	s.Next = toolwire.Effect{Kind: toolwire.CallModel}
	var again *toolwire.Result
	for ev, err := range a.Continue(ctx, s) {
		must(t, err)
		if d, ok := ev.(toolwire.DoneEvent); ok {
			again = d.Result
		}
	}
	if got := lastResult(t, again.State); got.Status != llm.StatusSuccess {
		t.Errorf("the same run's read_result(%s) = %s %s, want success", ref, got.Status, oneLine(got.Text(), 300))
	}
}
