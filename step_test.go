package toolwire_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
)

// TestStepCancelledRefitKeepsRefit: a model call made to refit after a
// context-length error, then cancelled, is to be made again as a refit.
func TestStepCancelledRefitKeepsRefit(t *testing.T) {
	a, err := toolwire.New(fakeModel{}, nil)
	must(t, err)
	s := a.Start("List every item.")
	s, _, err = a.Step(s, toolwire.ModelOutcome{Failure: &toolwire.ModelFailure{Kind: toolwire.FailContextLength, Message: "too long"}})
	must(t, err)
	if !s.Next.Refit || s.Next.Kind != toolwire.CallModel {
		t.Fatalf("after a context-length error, Next = %+v, want a model call with Refit", s.Next)
	}
	for _, cancel := range []toolwire.FailureKind{toolwire.FailCancelled, toolwire.FailDeadline} {
		n, _, err := a.Step(s, toolwire.ModelOutcome{Failure: &toolwire.ModelFailure{Kind: cancel, Message: string(cancel)}})
		must(t, err)
		if n.Next.Kind != toolwire.CallModel || !n.Next.Refit {
			t.Errorf("Step(refit call, %v).Next = %+v, want the same refit call again", cancel, n.Next)
		}
	}
}

// TestStepBadToolName: a model that names a tool with control
// characters, or a name no provider takes back, gets an unknown_tool
// result at once, and the history it goes on with keeps every
// provider's tool-name rules (OAI-CC-TOOLNAME-PATTERN,
// OAI-CC-TOOLNAME-LEN, ANT-TOOLUSE-NAME).
func TestStepBadToolName(t *testing.T) {
	a, err := toolwire.New(fakeModel{}, &toolwire.Config{Tools: registry(weatherTool())})
	must(t, err)
	for _, name := range []string{"ok\x1b]0;pwned\x07", "get weather", strings.Repeat("n", 65), "天气", "", "1st_tool"} {
		s := a.Start("Weather in Paris?")
		s, _, err := a.Step(s, toolwire.ModelOutcome{Response: &llm.Response{Message: llm.Assistant(
			llm.ToolCall{ID: "c1", Name: name, Input: []byte(`{}`)},
			llm.ToolCall{ID: "c2", Name: "get_weather", Input: []byte(`{"city":"Paris"}`)})}})
		must(t, err)
		got := s.Messages[len(s.Messages)-1].ToolCalls()
		if len(got) != 2 || got[1].Name != "get_weather" || !regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`).MatchString(got[0].Name) {
			t.Errorf("call named %q: calls in the history = %+v, want a valid name for it and get_weather as it was", name, got)
		}
		pc := s.Next.Calls[0]
		if pc.Result == nil || pc.Result.Status != llm.StatusError || !strings.Contains(pc.Result.Text(), `"type":"unknown_tool"`) {
			t.Fatalf("call named %q: result = %+v, want unknown_tool at once", name, pc.Result)
		}
		if strings.ContainsAny(pc.Result.Text(), "\x1b\x07") {
			t.Errorf("call named %q: the result holds the control characters: %q", name, pc.Result.Text())
		}
		if run := s.Next.Runnable(false); len(run) != 1 || run[0] != 1 {
			t.Errorf("call named %q: runnable = %v, want only get_weather", name, run)
		}
	}
}
