package toolwire

import (
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/tool"
)

// A Recovery is what resuming a session does with a tool call its run
// left in flight: the call started and its outcome is unknown, because
// the process died (kill -9, a crash) or the run was cancelled (Ctrl-C)
// while the tool ran.
type Recovery string

// The recoveries, one per idempotency level: the rule loses no result and
// repeats no side effect.
const (
	// Rerun: the call runs again. Its tool is level_2 (read-only), so a
	// second run changes nothing, and the model gets a real result.
	Rerun Recovery = "re-run"
	// RerunWithKey: the call runs again with the idempotency key of its
	// first attempt. Its tool is level_1: the service deduplicates on the
	// key, so the effect happens once.
	RerunWithKey Recovery = "re-run with its idempotency key"
	// MarkInterrupted: the call never runs again. Its tool is level_0 (or
	// declares no level): it is answered with an error of type
	// interrupted that says its outcome is unknown, and suggests checking
	// before calling again.
	MarkInterrupted Recovery = "mark interrupted"
)

// RecoveryOf returns what recovery does with an in-flight call of a tool
// of the given idempotency level. [Agent.Recover] follows it after a
// crash, a cancelled run follows it before it stops, and `toolwire
// sessions show` reports it.
func RecoveryOf(level tool.Idempotency) Recovery {
	switch level {
	case tool.Level2:
		return Rerun
	case tool.Level1:
		return RerunWithKey
	}
	return MarkInterrupted
}

// An InFlight is a call of a stored session that its run left in flight.
type InFlight struct {
	// Call is the record of the call's latest attempt: started, never
	// finished.
	Call session.Call
	// Recovery is what resuming the session will do with it.
	Recovery Recovery
}

// InFlightCalls returns the calls of tr whose latest attempt started and
// never finished, and that no stored message answers, in the order they
// were first recorded, each with what resuming the session will do with
// it ([RecoveryOf]).
func InFlightCalls(tr *session.Trace) []InFlight {
	answered := map[string]bool{}
	for _, m := range tr.Messages {
		if m.Role == llm.RoleTool {
			for _, r := range m.ToolResults() {
				answered[r.CallID] = true
			}
		}
	}
	latest := map[string]int{} // call id -> index in tr.Calls
	var order []string
	for i, c := range tr.Calls {
		j, seen := latest[c.ID]
		if !seen {
			order = append(order, c.ID)
		}
		if !seen || c.Attempt >= tr.Calls[j].Attempt {
			latest[c.ID] = i
		}
	}
	var out []InFlight
	for _, id := range order {
		c := tr.Calls[latest[id]]
		if c.Result != nil || answered[id] {
			continue
		}
		out = append(out, InFlight{Call: c, Recovery: RecoveryOf(c.Idempotency)})
	}
	return out
}
