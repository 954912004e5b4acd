package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.temporal.io/sdk/client"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/temporal"
)

// follow prints the session's events after the event numbered after,
// as toolwire run prints a local run's, until it ends or waits for a
// decision: with the session store of --db (store, nil without it), the
// model's text as it streams, else each model call's text once it ended.
// It exits as toolwire run does: 0 when the model answered, 1 when the
// session stopped without an answer or waits. Ctrl-C stops following;
// the session goes on on the workers.
func follow(ctx context.Context, e *env, c client.Client, store session.Store, f flags, id string, after int) error {
	p := &printer{out: e.stdout}
	for ev, err := range temporal.Follow(ctx, c, id, after, &temporal.FollowOptions{Store: store}) {
		if err != nil {
			p.endLine()
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(e.stdout, "\nstopped following; the session goes on on the workers: toolwire resume %s %s follows it again\n", where(f), id)
				return &exitcode.Error{Code: exitcode.Rejected}
			}
			return exitcode.Envf("%v", err)
		}
		if done, err := p.show(f, id, ev); done {
			return err
		}
	}
	return nil
}

// printer prints a session's events; it knows whether the model's text
// as it streams left a line open.
type printer struct {
	out     io.Writer
	midLine bool
}

// text prints s, a piece of the model's text, and remembers whether it
// ended its line.
func (p *printer) text(s string) {
	if s == "" {
		return
	}
	fmt.Fprint(p.out, s)
	p.midLine = !strings.HasSuffix(s, "\n")
}

// endLine ends the line the streamed text left open.
func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

// show prints one event; done is set on the session's last event, with
// the error to exit with. The model's text is printed once: what its
// deltas gave (ev.Streamed bytes) is not printed again.
func (p *printer) show(f flags, id string, ev temporal.Event) (done bool, exit error) {
	out := p.out
	if ev.Type == "delta" {
		var d temporal.DeltaData
		decode(ev.Data, &d)
		if d.Restart {
			p.endLine()
			fmt.Fprintln(out, "(the model call was made again; its text from the start:)")
		}
		p.text(d.Text)
		return false, nil
	}
	switch ev.Type {
	case "text":
		var d struct{ Text string }
		decode(ev.Data, &d)
		p.text(rest(d.Text, ev.Streamed))
		p.endLine()
		return false, nil
	case "done":
		var d struct {
			Stop, Answer string
		}
		decode(ev.Data, &d)
		if ev.Streamed > 0 {
			// The answer streamed in its turn, as a local run shows it.
			p.text(rest(d.Answer, ev.Streamed))
		}
	}
	p.endLine()
	switch ev.Type {
	case "turn":
		var d struct{ Turn int }
		decode(ev.Data, &d)
		fmt.Fprintf(out, "\n── turn %d\n", d.Turn)
	case "call":
		var d struct {
			ID, Tool string
			Args     jsontext.Value
			Approval bool
		}
		decode(ev.Data, &d)
		approval := ""
		if d.Approval {
			approval = "  (needs approval)"
		}
		fmt.Fprintf(out, "→ %s %s  [%s]%s\n", d.Tool, d.Args, d.ID, approval)
	case "result":
		var d struct{ Tool, Status, Text string }
		decode(ev.Data, &d)
		fmt.Fprintf(out, "← %s %s: %s\n", d.Tool, d.Status, d.Text)
	case "decision":
		fmt.Fprintln(out, "decisions applied")
	case "approval":
		var d struct{ Calls []temporal.PendingCall }
		decode(ev.Data, &d)
		var ids []string
		fmt.Fprintln(out, "\npaused: waiting for a person's approval of")
		for _, p := range d.Calls {
			fmt.Fprintf(out, "  %s %s  [%s]\n", p.Tool, p.Args, p.ID)
			ids = append(ids, "--approve "+p.ID)
		}
		fmt.Fprintf(out, "decide with: toolwire resume %s %s %s (or --reject CALL --reason TEXT, --edit CALL --args JSON)\n", where(f), id, strings.Join(ids, " "))
		return true, &exitcode.Error{Code: exitcode.Rejected}
	case "done":
		var d struct {
			Stop, Message, Answer string
			Turns                 int
		}
		decode(ev.Data, &d)
		if d.Stop == "answered" {
			fmt.Fprintf(out, "\nanswer:\n%s\n", d.Answer)
			return true, nil
		}
		fmt.Fprintf(out, "\nstopped (%s): %s\n", d.Stop, d.Message)
		if d.Answer != "" {
			fmt.Fprintln(out, d.Answer)
		}
		return true, &exitcode.Error{Code: exitcode.Rejected}
	}
	return false, nil
}

// rest is text without the first n bytes, which streamed already.
func rest(text string, n int) string {
	if n < 0 || n > len(text) {
		return text
	}
	return text[n:]
}

// where is the flags that name the session's cluster, for a command to
// give next.
func where(f flags) string {
	s := "--temporal " + f.one("temporal")
	if ns := f.one("namespace"); ns != "" {
		s += " --namespace " + ns
	}
	return s
}

// decode reads an event's data; the workflow wrote it, so a field it
// lacks stays zero.
func decode(b jsontext.Value, v any) {
	_ = json.Unmarshal(b, v, json.MatchCaseInsensitiveNames(true), json.RejectUnknownMembers(false))
}
