package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.temporal.io/sdk/client"

	"github.com/toolwire/toolwire/temporal"
)

// follow prints the session's events after the event numbered after, as
// toolwire run prints a local run's, until it ends or waits for a
// decision. It exits as toolwire run does: 0 when the model answered, 1
// when the session stopped without an answer or waits. Ctrl-C stops
// following; the session goes on on the workers.
func follow(ctx context.Context, e *env, c client.Client, f flags, id string, after int) error {
	for ev, err := range temporal.Watch(ctx, c, id, after, 0) {
		if err != nil {
			if errors.Is(err, context.Canceled) {
				fmt.Fprintf(e.stdout, "\nstopped following; the session goes on on the workers: toolwire resume %s %s follows it again\n", where(f), id)
				return &exitError{code: exitRejected}
			}
			return envError("%v", err)
		}
		if done, err := show(e, f, id, ev); done {
			return err
		}
	}
	return nil
}

// show prints one event; done is set on the session's last event, with
// the error to exit with.
func show(e *env, f flags, id string, ev temporal.Event) (done bool, exit error) {
	out := e.stdout
	switch ev.Type {
	case "turn":
		var d struct{ Turn int }
		decode(ev.Data, &d)
		fmt.Fprintf(out, "\n── turn %d\n", d.Turn)
	case "text":
		var d struct{ Text string }
		decode(ev.Data, &d)
		fmt.Fprintln(out, d.Text)
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
		return true, &exitError{code: exitRejected}
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
		return true, &exitError{code: exitRejected}
	}
	return false, nil
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
