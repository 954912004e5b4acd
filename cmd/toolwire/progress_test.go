package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
)

// The run's progress is a hook: told a run's events, it writes each turn
// as toolwire run shows it, with every hook-only event ignored.
func TestProgressHook(t *testing.T) {
	call := llm.ToolCall{ID: "call_1_0", Name: "get_weather", Input: []byte(`{"city":"Paris"}`)}
	events := []toolwire.Event{
		toolwire.TurnStartEvent{Turn: 1},
		toolwire.ModelCallEvent{Turn: 1, Request: &llm.Request{}},
		toolwire.TextEvent{Turn: 1, Text: "Let me "},
		toolwire.TextEvent{Turn: 1, Text: "look."},
		toolwire.ModelDoneEvent{Turn: 1},
		toolwire.CallEvent{Turn: 1, Call: call, Approval: true},
		toolwire.ToolStartEvent{Turn: 1, Call: call, Attempt: 1},
		toolwire.ResultEvent{Turn: 1, Result: llm.ToolResult{CallID: "call_1_0", Name: "get_weather", Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: "sunny"}}}},
		toolwire.TurnEvent{Report: toolwire.TurnReport{Turn: 1, Tokens: 1200, Headroom: 6000, Usage: llm.Usage{InputTokens: 40, OutputTokens: 7}}},
		toolwire.TurnStartEvent{Turn: 2},
		toolwire.TextEvent{Turn: 2, Text: "Sunny."},
		toolwire.TurnEvent{Report: toolwire.TurnReport{Turn: 2, Tokens: 1300, Headroom: 5900}},
		toolwire.DoneEvent{Result: &toolwire.Result{}},
	}
	var out bytes.Buffer
	p := newProgress(&out, 8000)
	for _, e := range events {
		p.Observe(context.Background(), e)
	}
	p.stop()
	want := `
── turn 1
Let me look.
→ get_weather {"city":"Paris"}  [call_1_0]  (needs approval)
← get_weather success: sunny
   budget: 1,200 of 8,000 tokens in the history, 6,000 left · shaped: no · fitted: no · model usage: 40 in, 7 out

── turn 2
Sunny.
   budget: 1,300 of 8,000 tokens in the history, 5,900 left · shaped: no · fitted: no · model usage: 0 in, 0 out
`
	if got := out.String(); got != want {
		t.Errorf("progress of a two-turn run =\n%s\nwant\n%s", got, want)
	}
}

// fakeClock is a clock a test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// On a terminal, while nothing streams, one line says what the run waits
// for and for how long, redrawn in place as the seconds count up, and
// erased when the model's text arrives.
func TestProgressWaiting(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	var out bytes.Buffer
	p := &progress{w: &out, window: 8000, tty: true, now: clock.now}
	ctx := context.Background()
	p.Observe(ctx, toolwire.ModelCallEvent{Turn: 1, Request: &llm.Request{}})
	p.draw(0)
	clock.t = clock.t.Add(12 * time.Second)
	p.draw(1)
	p.Observe(ctx, toolwire.TextEvent{Turn: 1, Text: "Hello"})
	clock.t = clock.t.Add(3 * time.Second)
	p.draw(2) // the text's line is not overwritten
	p.stop()
	want := "\r\x1b[K⠋ waiting for the model (0 s)" +
		"\r\x1b[K⠙ waiting for the model (12 s)" +
		"\r\x1b[K\n── turn 1\nHello\n"
	if got := out.String(); got != want {
		t.Errorf("progress while the model is silent for 12 s =\n%q\nwant\n%q", got, want)
	}

	// A tool's run counts from its call.
	out.Reset()
	p = &progress{w: &out, window: 8000, tty: true, now: clock.now}
	p.Observe(ctx, toolwire.CallEvent{Turn: 1, Call: llm.ToolCall{ID: "c1", Name: "build_report", Input: []byte(`{}`)}})
	clock.t = clock.t.Add(2 * time.Second)
	p.draw(0)
	if got, want := out.String(), "\r\x1b[K⠋ running build_report (2 s)"; !strings.HasSuffix(got, want) {
		t.Errorf("progress while a tool runs = %q, want it to end %q", got, want)
	}
}

// Piped or redirected, the output never holds the waiting line.
func TestProgressNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, w := range []io.Writer{&buf, f} {
		p := newProgress(w, 8000)
		if p.tty {
			t.Errorf("newProgress(%T) takes it for a terminal", w)
		}
		p.Observe(context.Background(), toolwire.ModelCallEvent{Turn: 1, Request: &llm.Request{}})
		p.draw(0)
		p.stop()
	}
	b, _ := os.ReadFile(f.Name())
	if got := buf.String() + string(b); got != "" {
		t.Errorf("progress written to a file = %q, want nothing", got)
	}
}

// --log lines never share a line with the run's output when both reach
// one place: the waiting line is erased and a partial line of the
// model's text ended before a log line; after it, the waiting line is
// drawn again below. Written elsewhere, the output is left as it is.
func TestProgressLogLines(t *testing.T) {
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()
	var out bytes.Buffer // stdout and stderr, as on one terminal
	p := &progress{w: &out, window: 8000, tty: true, now: clock.now}
	logs := p.logWriter(&out)
	p.Observe(ctx, toolwire.ModelCallEvent{Turn: 1, Request: &llm.Request{}})
	p.draw(0)
	io.WriteString(logs, "level=WARN msg=slow\n")
	p.draw(1)
	p.Observe(ctx, toolwire.TextEvent{Turn: 1, Text: "Hel"})
	io.WriteString(logs, "level=INFO msg=turn\n")
	p.Observe(ctx, toolwire.TextEvent{Turn: 1, Text: "lo"})
	p.stop()
	want := "\r\x1b[K⠋ waiting for the model (0 s)" +
		"\r\x1b[Klevel=WARN msg=slow\n" +
		"\r\x1b[K⠙ waiting for the model (0 s)" +
		"\r\x1b[K\n── turn 1\nHel\nlevel=INFO msg=turn\nlo\n"
	if got := out.String(); got != want {
		t.Errorf("progress and log lines on one terminal =\n%q\nwant\n%q", got, want)
	}
	for _, l := range strings.Split(strings.ReplaceAll(out.String(), "\r\x1b[K", "\n"), "\n") {
		if strings.Contains(l, "level=") && !strings.HasPrefix(l, "level=") {
			t.Errorf("a log line shares a line with the run's output: %q", l)
		}
	}

	// Apart, stdout keeps the model's text whole.
	var stdout, stderr bytes.Buffer
	p = newProgress(&stdout, 8000)
	logs = p.logWriter(&stderr)
	p.Observe(ctx, toolwire.TextEvent{Turn: 1, Text: "Hel"})
	io.WriteString(logs, "level=INFO msg=turn\n")
	p.Observe(ctx, toolwire.TextEvent{Turn: 1, Text: "lo"})
	p.stop()
	if got, want := stdout.String(), "\n── turn 1\nHello\n"; got != want {
		t.Errorf("stdout with the log on its own = %q, want %q", got, want)
	}
	if got, want := stderr.String(), "level=INFO msg=turn\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}
