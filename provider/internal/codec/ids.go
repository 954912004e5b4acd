package codec

import (
	"fmt"

	"github.com/toolwire/toolwire/internal/callid"
	"github.com/toolwire/toolwire/llm"
)

// IDRules say which tool-call ids a dialect accepts, for [PlanIDs], and how
// its warnings name them.
type IDRules struct {
	// Prefix starts the ids made for calls that have none: "toolu_",
	// "call_". A made id is Prefix, the call's message index, "_", its
	// part index, and "_2", "_3", ... if that id is taken (internal/callid,
	// the scheme transcript.Repair uses too).
	Prefix string
	// Valid reports whether the dialect accepts a non-empty id; nil
	// accepts every one. An empty id is never accepted.
	Valid func(id string) bool
	// Rewrite returns an id the dialect accepts for one Valid refuses; the
	// plan makes it unique. It is called only when Valid is set.
	Rewrite func(id string) string
	// Invalid says why Valid refuses an id, as warnings put it: "does not
	// match ^[a-zA-Z0-9_-]+$ (ANT-ID-PATTERN)".
	Invalid string
	// Missing is the rule that needs a call id, as warnings cite it:
	// "ANT-ID-PATTERN".
	Missing string
	// Call and Result name the wire elements in warnings: "tool_use" and
	// "tool_result".
	Call, Result string
}

// An IDPlan gives the tool calls and results of a transcript converted
// from another dialect the ids the target dialect accepts. It is stable
// (the same messages get the same ids), never gives an id that another
// call or result already has, and gives a call and its results the same
// id:
//
//   - a call without an id gets a new one;
//   - a result without a call id takes the id of an unanswered call of the
//     assistant message before it: the first id-less one with the
//     result's name (or, for a result without a name, the first id-less
//     one), else the first with an id that no result names and the
//     result's name (the pairing by name and position that Gemini, whose
//     ids are optional, makes); a result that answers none of them gets
//     an id of its own, and stays an orphan that transcript.Check reports;
//   - an id the dialect refuses is rewritten, the same way wherever it
//     appears.
//
// A nil *IDPlan changes nothing. An IDPlan is used by one Encode call.
type IDPlan struct {
	rules   IDRules
	rewrite map[string]string // refused id → its replacement
	called  map[string]bool   // refused ids that a call has
	pos     map[[2]int]posID  // (message, part) → the id of a call or result that had none
}

// posID is the id planned for a call or result that had none.
type posID struct {
	id     string
	call   string // a result's call: its name, or "" when it matched none
	orphan bool
}

// PlanIDs plans the ids of msgs by rules; it returns nil when every call and
// result already has an id the dialect accepts.
func PlanIDs(msgs []llm.Message, rules IDRules) *IDPlan {
	valid := func(id string) bool { return id != "" && (rules.Valid == nil || rules.Valid(id)) }
	// ids calls f with the id of every call and result.
	ids := func(f func(id string) bool) {
		for _, m := range msgs {
			for _, p := range m.Parts {
				var id string
				switch p := p.(type) {
				case llm.ToolCall:
					id = p.ID
				case llm.ToolResult:
					id = p.CallID
				default:
					continue
				}
				if !f(id) {
					return
				}
			}
		}
	}
	bad := false
	ids(func(id string) bool { bad = !valid(id); return !bad })
	if !bad {
		return nil // the usual case: nothing to plan, nothing allocated
	}
	taken := make(map[string]bool)
	ids(func(id string) bool {
		if valid(id) {
			taken[id] = true
		}
		return true
	})
	pl := &IDPlan{rules: rules, rewrite: make(map[string]string), called: make(map[string]bool), pos: make(map[[2]int]posID)}
	unique := func(base string) string { return callid.Unique(base, taken, 0) }
	rewrite := func(id string) {
		if _, ok := pl.rewrite[id]; !ok {
			pl.rewrite[id] = unique(rules.Rewrite(id))
		}
	}
	// named holds the call ids that results name: a call with such an id
	// is answered by them, not by a result without an id.
	named := make(map[string]bool)
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llm.ToolResult); ok && r.CallID != "" {
				named[r.CallID] = true
			}
		}
	}
	type pending struct {
		name, id string
		hadID    bool // the call had an id (no result names it)
	}
	var open []pending // the calls of the last assistant message that a result without an id may answer
	for i, m := range msgs {
		if m.Role == llm.RoleAssistant {
			open = open[:0]
		}
		for j, p := range m.Parts {
			switch p := p.(type) {
			case llm.ToolCall:
				switch {
				case p.ID == "":
					id := unique(callid.Made(rules.Prefix, i, j))
					pl.pos[[2]int{i, j}] = posID{id: id}
					open = append(open, pending{name: p.Name, id: id})
				case !valid(p.ID):
					rewrite(p.ID)
					pl.called[p.ID] = true
				}
				if p.ID != "" && !named[p.ID] {
					id := p.ID
					if nid, ok := pl.rewrite[id]; ok {
						id = nid
					}
					open = append(open, pending{name: p.Name, id: id, hadID: true})
				}
			case llm.ToolResult:
				switch {
				case p.CallID == "":
					k := -1
					for x, o := range open {
						if !o.hadID && (o.name == p.Name || p.Name == "") {
							k = x
							break
						}
					}
					for x, o := range open {
						if k < 0 && o.hadID && o.name == p.Name && p.Name != "" {
							k = x
						}
					}
					if k < 0 {
						pl.pos[[2]int{i, j}] = posID{id: unique(callid.Made(rules.Prefix, i, j)), orphan: true}
						continue
					}
					pl.pos[[2]int{i, j}] = posID{id: open[k].id, call: open[k].name}
					open = append(open[:k], open[k+1:]...)
				case !valid(p.CallID):
					rewrite(p.CallID)
				}
			}
		}
	}
	return pl
}

// Call returns the id to write for the call with the given id, part j of
// message i, and the warning to give for the change, or "".
func (pl *IDPlan) Call(i, j int, id string) (string, string) {
	if pl == nil {
		return id, ""
	}
	if x, ok := pl.pos[[2]int{i, j}]; ok {
		return x.id, fmt.Sprintf("tool call without an id; wrote id %q (%s)", x.id, pl.rules.Missing)
	}
	if nid, ok := pl.rewrite[id]; ok {
		return nid, fmt.Sprintf("tool call id %q %s; rewritten to %q in the %s and its %s", id, pl.rules.Invalid, nid, pl.rules.Call, pl.rules.Result)
	}
	return id, ""
}

// Result returns the id to write for the result with the given call id,
// part j of message i, and the warning to give for the change, or "".
func (pl *IDPlan) Result(i, j int, id string) (string, string) {
	if pl == nil {
		return id, ""
	}
	if x, ok := pl.pos[[2]int{i, j}]; ok {
		if x.orphan {
			return x.id, fmt.Sprintf("tool result without a call id, and no call without an id before it that it could answer; wrote id %q, which no call has (%s)", x.id, pl.rules.Missing)
		}
		return x.id, fmt.Sprintf("tool result without a call id; matched to id %q", x.id)
	}
	if nid, ok := pl.rewrite[id]; ok {
		if pl.called[id] {
			return nid, "" // the call's warning says it
		}
		return nid, fmt.Sprintf("the call id %q of this %s %s; rewritten to %q", id, pl.rules.Result, pl.rules.Invalid, nid)
	}
	return id, ""
}
