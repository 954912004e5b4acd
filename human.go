package toolwire

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// decide applies a person's decisions to n: the calls that wait for
// approval, and a new message. See [Decisions].
func (a *Agent) decide(n *State, d Decisions) error {
	id := n.ID
	switch n.Next.Kind {
	case AwaitApproval:
		if err := a.decideCalls(n, d); err != nil {
			return err
		}
		n.Next.Room = a.room(n)
		if d.Message != "" {
			n.Next.Then = append(slices.Clip(n.Next.Then), llm.User(d.Message))
		}
	case Done:
		if len(d.Calls) > 0 {
			return &ResumeError{Session: id, Problem: fmt.Sprintf("no call waits for a decision: the run has ended (%s)", n.Next.Stop.Reason)}
		}
		if strings.TrimSpace(d.Message) == "" {
			if retryable(n.Next.Stop.Reason) {
				return a.retry(n) // the failed model call, made again
			}
			return &ResumeError{Session: id, Problem: fmt.Sprintf("the run has ended (%s): nothing to resume; give a new message to ask the model again", n.Next.Stop.Reason)}
		}
		n.Messages = append(n.Messages, llm.User(d.Message))
		n.Next = Effect{Kind: CallModel}
	default:
		if len(d.Calls) > 0 {
			return &ResumeError{Session: id, Problem: "no call waits for a decision: the session is not paused for approval"}
		}
		switch {
		case d.Message == "":
		case n.Next.Kind == RunTools:
			n.Next.Then = append(slices.Clip(n.Next.Then), llm.User(d.Message))
		default:
			n.Messages = append(n.Messages, llm.User(d.Message))
			n.Next = Effect{Kind: CallModel, Refit: n.Next.Refit}
		}
		if n.Next.Kind == CallModel {
			// Prepared again: a state read back from a session holds the
			// whole history, not the one fitted for the call.
			n.Next.Request, n.Next.Offload = nil, nil
		}
	}
	return nil
}

// decideCalls applies d to the calls of n that wait for approval.
func (a *Agent) decideCalls(n *State, d Decisions) error {
	id := n.ID
	var waiting []string
	pending := map[string]bool{}
	for _, pc := range n.Next.Calls {
		if pc.Result == nil {
			waiting = append(waiting, pc.Call.ID+" ("+pc.Call.Name+")")
			pending[pc.Call.ID] = true
		}
	}
	for cid := range d.Calls {
		if !pending[cid] {
			return &ResumeError{Session: id, Problem: fmt.Sprintf("call %s does not wait for a decision; the calls waiting are %s", cid, strings.Join(waiting, ", "))}
		}
	}
	var missing []string
	for _, pc := range n.Next.Calls {
		if pc.Result == nil {
			if _, ok := d.Calls[pc.Call.ID]; !ok {
				missing = append(missing, pc.Call.ID+" ("+pc.Call.Name+")")
			}
		}
	}
	if len(missing) > 0 {
		return &ResumeError{Session: id, Problem: fmt.Sprintf("%s wait(s) for a decision: approve, reject (with a reason) or edit each", strings.Join(missing, ", "))}
	}
	for i := range n.Next.Calls {
		pc := &n.Next.Calls[i]
		dc, ok := d.Calls[pc.Call.ID]
		if !ok || pc.Result != nil {
			continue
		}
		switch dc.Kind {
		case Approved, Rejected:
		case Edited:
			if err := a.checkEdit(pc.Call.Name, dc.Args); err != nil {
				return &ResumeError{Session: id, Problem: fmt.Sprintf("the edited arguments of call %s (%s) %v", pc.Call.ID, pc.Call.Name, err), Err: ErrInvalidEdit}
			}
			v := jsontext.Value(slices.Clone(dc.Args))
			_ = v.Compact()
			pc.Call.Input = []byte(v)
		default:
			return &ResumeError{Session: id, Problem: fmt.Sprintf("call %s: the decision %q is not approve, reject or edit", pc.Call.ID, dc.Kind)}
		}
		pc.Approval = false // decided: it runs, and the approver says how
		pc.Decision = &Decision{Kind: dc.Kind, Reason: dc.Reason}
	}
	n.Next.Kind = RunTools
	return nil
}

// checkEdit validates edited arguments against the tool's schema.
func (a *Agent) checkEdit(name string, args jsontext.Value) error {
	if !jsontext.Value(args).IsValid() {
		return errors.New("are not valid JSON")
	}
	s := a.toolset().params[name]
	if s == nil {
		return nil
	}
	fes, err := s.Validate(args)
	if err != nil {
		return fmt.Errorf("are not valid JSON: %v", err)
	}
	if len(fes) > 0 {
		var msgs []string
		for _, fe := range fes {
			path := fe.Path
			if path == "" {
				path = "the arguments"
			}
			msgs = append(msgs, path+": "+fe.Message)
		}
		return errors.New("break the tool's schema: " + strings.Join(msgs, "; "))
	}
	return nil
}

// cancel answers the calls of the turn that are not answered yet as
// cancelled, so that the history stays whole, and ends the turn.
func (a *Agent) cancel(n *State, ch *Change) {
	if n.Next.Kind != RunTools && n.Next.Kind != AwaitApproval {
		return
	}
	for i := range n.Next.Calls {
		pc := &n.Next.Calls[i]
		if pc.Result == nil {
			r := cancelled(pc.Call)
			pc.Result = &r
		}
	}
	a.endTurn(n, false, ch)
}

// cancelled answers a call that the run's cancellation kept from running.
func cancelled(c llm.ToolCall) llm.ToolResult {
	env := toolresult.Failure(toolresult.Cancelled, "the run was cancelled before this call ran; it did not run")
	env.Summary = c.Name + " did not run: the run was cancelled"
	env.Suggestion = toolresult.Options("call " + c.Name + " again if it is still needed")
	return env.Result(c.ID, c.Name)
}

// retry makes the failed model call of a run that ended on it again.
func (a *Agent) retry(n *State) error {
	if n.Next.Kind != Done {
		return &ResumeError{Session: n.ID, Problem: fmt.Sprintf("nothing to retry: the run has not ended (it wants %s)", n.Next.Kind)}
	}
	if r := n.Next.Stop.Reason; !retryable(r) {
		return &ResumeError{Session: n.ID, Problem: fmt.Sprintf("nothing to retry: the run did not end on a failed model call (%s)", r)}
	}
	n.Guard.EmptyRetried, n.Guard.Refitted = false, false
	n.Next = Effect{Kind: CallModel}
	return nil
}

// retryable reports whether a run that ended for reason ended on a failed
// model call, which [Retry] makes again.
func retryable(reason StopReason) bool {
	return reason == ModelError || reason == ContextLength || reason == EmptyAnswer
}
