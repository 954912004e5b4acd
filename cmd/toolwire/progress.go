package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/units"
	"github.com/toolwire/toolwire/tool"
)

// progress writes a run as it happens, for the person at the terminal:
// each turn's text as it streams, each call and each result as the model
// reads it, and the turn's budget. It is a toolwire.Hook, installed with
// the run's other hooks; runAgent writes the lines before and after the
// run with line. On a terminal, while nothing streams, a spinner line
// shows what the run waits for and for how long ("waiting for the model
// (12 s)"), redrawn in place and erased before the next output; written
// to anything else, there is no such line.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	window   int              // the context window, for the budget line
	turn     int              // the turn whose heading was written
	midLine  bool             // text was written without its newline
	status   string           // what the run waits for; "" when it does not
	since    time.Time        // when it began to
	now      func() time.Time // the clock; nil for time.Now
	spinning bool
	done     chan struct{}
	wg       sync.WaitGroup
}

// newProgress returns the progress of a run written to w; window is the
// model's context window. On a terminal it starts the spinner, which
// stop ends.
func newProgress(w io.Writer, window int) *progress {
	p := &progress{w: w, window: window}
	if isTerminal(w) {
		p.tty = true
		p.done = make(chan struct{})
		p.wg.Add(1)
		go p.spin()
	}
	return p
}

var _ toolwire.Hook = (*progress)(nil)

// Observe writes what e shows a person.
func (p *progress) Observe(_ context.Context, e toolwire.Event) {
	switch e := e.(type) {
	case toolwire.ModelCallEvent:
		p.waiting("waiting for the model")
	case toolwire.TextEvent:
		p.heading(e.Turn)
		p.text(e.Text)
	case toolwire.CallEvent:
		p.heading(e.Turn)
		approval := ""
		if e.Approval {
			approval = "  (needs approval)"
		}
		p.line(fmt.Sprintf("→ %s %s  [%s]%s", e.Call.Name, string(e.Call.Input), e.Call.ID, approval))
		p.waiting("running " + e.Call.Name)
	case toolwire.ToolProgressEvent:
		p.waiting("running " + e.Tool + ": " + progressText(e.Progress))
	case toolwire.ResultEvent:
		p.line(fmt.Sprintf("← %s %s: %s", e.Result.Name, e.Result.Status, e.Result.Text()))
	case toolwire.TurnEvent:
		r := e.Report
		p.heading(r.Turn)
		p.line(fmt.Sprintf("   budget: %s of %s tokens in the history, %s left · shaped: %s · fitted: %s · model usage: %s in, %s out",
			units.Count(r.Tokens), units.Count(p.window), units.Count(r.Headroom), yesNo(r.Truncated), yesNo(r.Fitted), units.Count(r.Usage.InputTokens), units.Count(r.Usage.OutputTokens)))
		p.waiting("waiting for the model")
	}
}

// heading writes the heading of turn n, once, before its first line.
func (p *progress) heading(n int) {
	p.mu.Lock()
	same := p.turn == n
	p.turn = n
	p.mu.Unlock()
	if !same {
		p.line("")
		p.line(fmt.Sprintf("── turn %d", n))
	}
}

var frames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (p *progress) spin() {
	defer p.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		p.draw(i)
	}
}

// draw draws frame i of the spinner line, in place of the last.
func (p *progress) draw(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.status != "" && !p.midLine {
		secs := int(p.clock().Sub(p.since) / time.Second)
		fmt.Fprintf(p.w, "\r\033[K%s %s (%d s)", frames[i%len(frames)], p.status, secs)
		p.spinning = true
	}
}

// clear erases the spinner line; p.mu is held.
func (p *progress) clear() {
	if p.spinning {
		fmt.Fprint(p.w, "\r\033[K")
		p.spinning = false
	}
	p.status = ""
}

// waiting sets what the spinner says the run waits for, from now on.
func (p *progress) waiting(status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.status, p.since = status, p.clock()
	}
}

func (p *progress) clock() time.Time {
	if p.now == nil {
		return time.Now()
	}
	return p.now()
}

// text writes s, the model's text as it streams, without a newline.
func (p *progress) text(s string) {
	s = printable(s)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprint(p.w, s)
	p.midLine = !strings.HasSuffix(s, "\n")
}

// line writes s and a newline. Like text, it shows the control
// characters of s (a model's, a tool's, an agent file's) as escapes.
func (p *progress) line(s string) {
	s = printable(s)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
	fmt.Fprintln(p.w, s)
}

// stop ends the spinner; it may be called twice.
func (p *progress) stop() {
	p.mu.Lock()
	p.clear()
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
	done := p.done
	p.done = nil
	p.mu.Unlock()
	if done != nil {
		close(done)
		p.wg.Wait()
	}
}

// logWriter returns w for the run's log lines (--log). When w and the
// progress reach one place — the same writer, or two terminals, which
// are one screen — a log line would run into the waiting line or into a
// partial line of the model's text: so each write first erases the
// waiting line (drawn again below it on the next tick) and ends a
// partial line. Elsewhere (a file, a pipe) w is returned as it is, and
// the model's text stays whole.
func (p *progress) logWriter(w io.Writer) io.Writer {
	if w != p.w && !(p.tty && isTerminal(w)) {
		return w
	}
	return progressLog{p: p, w: w}
}

// progressLog is a log writer that shares its place with a progress.
type progressLog struct {
	p *progress
	w io.Writer
}

func (l progressLog) Write(b []byte) (int, error) {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spinning {
		fmt.Fprint(p.w, "\r\033[K")
		p.spinning = false
	}
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
	return l.w.Write(b)
}

// progressText renders what a tool said of its progress: "2/3 refunds read".
func progressText(p tool.Progress) string {
	s := fmt.Sprintf("%g", p.Progress)
	if p.Total > 0 {
		s += fmt.Sprintf("/%g", p.Total)
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
}
