package transcript

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/internal/callid"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

// UnansweredAction says what Repair does with a tool call that has no
// result.
type UnansweredAction int

const (
	// AnswerInterrupted (the default) answers the call with an error result
	// of type interrupted whose summary says the outcome is unknown.
	AnswerInterrupted UnansweredAction = iota
	// StripCall removes the call from its assistant message (and the
	// message, if nothing else is left in it).
	StripCall
)

// OrphanAction says what Repair does with a tool result whose call is not
// in the transcript.
type OrphanAction int

const (
	// OrphanToNote (the default) keeps the result's content as a user
	// message that says where it came from.
	OrphanToNote OrphanAction = iota
	// DropOrphan deletes the result.
	DropOrphan
)

// DefaultPlaceholder is the text Repair puts where a provider requires
// non-empty text and there is none.
const DefaultPlaceholder = "(empty)"

// Policy chooses among the repairs Repair can make. A nil *Policy, and each
// zero field, mean the default.
type Policy struct {
	// Unanswered: answer unanswered calls as interrupted (default) or strip
	// them.
	Unanswered UnansweredAction
	// Orphans: turn orphan results into notes (default) or drop them.
	Orphans OrphanAction
	// Placeholder replaces whitespace-only text and fills messages that must
	// not be empty; "" means DefaultPlaceholder.
	Placeholder string
	// Duplicates: for a call with two different real results in its run
	// of results, report the conflict (default) or keep the first or the
	// last and turn the other into a note. A placeholder result beside a
	// real one, and a second result after the call's run, are repaired
	// whatever this says (see [Repair]).
	Duplicates DuplicateAction
}

// DuplicateAction says what Repair does with a call that has two
// different real results, both in the run of results right after it.
type DuplicateAction int

const (
	// ReportDuplicates (the default) leaves both results and reports the
	// conflict in a [RepairError]: Repair does not guess which is right.
	ReportDuplicates DuplicateAction = iota
	// KeepFirst keeps the first result and turns the other into a user
	// note.
	KeepFirst
	// KeepLast keeps the last result and turns the other into a user
	// note.
	KeepLast
)

// Action names what a repair did.
type Action string

// The actions of a [Change].
const (
	ActionAnswer          Action = "answer"           // added an interrupted result for an unanswered call
	ActionStripCall       Action = "strip-call"       // removed an unanswered call
	ActionMove            Action = "move"             // moved results next to their call, or a message after them
	ActionNote            Action = "note"             // turned an orphan result into a user note
	ActionDrop            Action = "drop"             // removed a part or a message
	ActionRewriteID       Action = "rewrite-id"       // changed a call id, on the call and its result
	ActionRenameTool      Action = "rename-tool"      // changed a tool name everywhere it appears
	ActionMerge           Action = "merge"            // merged messages into one
	ActionReplaceText     Action = "replace-text"     // replaced empty or whitespace-only text
	ActionInsert          Action = "insert"           // inserted a message, or a part (a placeholder thought signature)
	ActionRelabel         Action = "relabel"          // gave an image the media type its bytes are
	ActionLiftImage       Action = "lift-image"       // moved images out of a tool result
	ActionReshape         Action = "reshape"          // moved a part to a message of the right role
	ActionDisableThinking Action = "disable-thinking" // turned extended thinking off
)

// A Change is one repair: which rule it satisfies, where (the dotted path
// in the original request body), what was done and why.
type Change struct {
	Rule   RuleID
	Path   string
	Action Action
	Reason string
}

func (c Change) String() string {
	return fmt.Sprintf("%s: %s: %s: %s", c.Path, c.Rule, c.Action, c.Reason)
}

// RepairError reports what Repair could not fix without guessing: a
// conflicting duplicate result (same call id, different content), a Gemini
// call that needs a thought signature, an unknown role, an empty
// transcript. Problems lists each in the form of a violation.
type RepairError struct {
	// Problems are what Repair would have to guess at, each with the rule
	// it concerns.
	Problems []Violation
	// Remaining are the other violations the returned transcript still
	// has, usually consequences of the problems.
	Remaining []Violation
}

func (e *RepairError) Error() string {
	var b strings.Builder
	b.WriteString("transcript: cannot repair without guessing:")
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	if len(e.Remaining) > 0 {
		fmt.Fprintf(&b, "\n  (and %d violation(s) that remain because of it)", len(e.Remaining))
	}
	return b.String()
}

// unrepairable reports whether rule can only be fixed by information the
// transcript does not have.
func (d *dialect) unrepairableRule(rule RuleID) bool { return slices.Contains(d.unrepairable, rule) }

// Repair returns msgs changed so that they pass [Check] for dialect d, and
// the list of changes, each with the rule it satisfies. A transcript Check
// accepts is returned as is, with no changes. Repair never invents an
// outcome: an unanswered call gets an error result of type interrupted
// saying that the outcome is unknown (or is stripped, by policy); results
// move to directly after their call, in call order, and messages that were
// wedged between move after them; orphan results become user notes (or are
// dropped, by policy); exact duplicates are dropped; of two results for
// one call, a placeholder (an interrupted or cancelled envelope, the text
// another framework writes for a missing result, or an error result that
// only says the call was aborted) gives way to the real one, a second result standing after the call's run of results is a note
// like an orphan, and two different real results in the run are a
// conflict that Repair reports (or settles, by policy); ids are rewritten with
// a stable, collision-free mapping applied to call and result; empty text
// is dropped or replaced; system messages move where the dialect needs
// them; Gemini turns are merged where needed.
//
// When something cannot be fixed without guessing (see [RepairError]),
// Repair returns the transcript with every other repair made, the changes,
// and a *RepairError. msgs is not modified; the result may share parts
// with it. Repair runs in time linear in the size of the transcript.
func Repair(msgs []llm.Message, d Dialect, p *Policy) ([]llm.Message, []Change, error) {
	r, changes, err := RepairRequest(Request{Messages: msgs}, d, p)
	return r.Messages, changes, err
}

// RepairRequest is [Repair] for a whole request: it also renames tools
// whose names the dialect rejects (consistently in definitions, calls and
// results) and turns Anthropic extended thinking off when, once the
// messages are repaired, the assistant turn the request continues still
// lacks its thinking block (ANT-THINKING-FIRST): a signed thinking block
// cannot be made up. It changes no other setting of the request.
func RepairRequest(req Request, d Dialect, p *Policy) (Request, []Change, error) {
	rules := rulesOf(d)
	if rules == nil {
		return req, nil, &RepairError{Problems: CheckRequest(req, d)}
	}
	before := check(req, rules, true) // its violations say only what to repair
	vs := before.out
	if Accepted(vs) {
		return req, nil, nil
	}
	pol := Policy{}
	if p != nil {
		pol = *p
	}
	if pol.Placeholder == "" {
		pol.Placeholder = DefaultPlaceholder
	}
	rp := &repairer{d: rules, pol: pol, req: req, orig: before.layout()}
	rp.load()
	rp.shape()
	rp.system()
	rp.content()
	if rules.arrange != nil {
		rules.arrange(rp)
	}
	rp.names()
	rp.dupTools()
	rp.pair() // and post
	rp.strict()
	out := req
	out.Messages = rp.built
	out.Tools = rp.tools
	// The repaired request is checked quietly too: its warnings are not
	// reported, and what is (see reported) is checked again, explained.
	after := before.recheck(out).out
	if out.Thinking && rules.thinking != "" && hasRule(after, rules.thinking) {
		rp.thinkingOff(vs)
		out.Thinking = false
		after = before.recheck(out).out
	}
	if slices.ContainsFunc(after, reported) {
		after = CheckRequest(out, d)
	}
	problems := rp.problems
	var remaining []Violation
	for _, v := range after {
		switch {
		case !reported(v):
		case rules.unrepairableRule(v.Rule):
			problems = append(problems, v)
		default:
			remaining = append(remaining, v)
		}
	}
	if len(problems)+len(remaining) > 0 {
		return out, rp.changes, &RepairError{Problems: problems, Remaining: remaining}
	}
	return out, rp.changes, nil
}

// reported reports whether a violation of the repaired request goes in
// the RepairError: warnings do not, nor does an unknown role, which is
// among the repairer's problems already.
func reported(v Violation) bool { return !v.Warning && v.Rule != ruleRole }

// thinkingOff records turning extended thinking off, the fix for the
// dialect's thinking rule once the messages are repaired: the request's
// settings change only when nothing else can fix it. vs are the
// violations of the request before repair; the change has the path of the
// message that lacked its thinking block there, else that of the setting.
func (rp *repairer) thinkingOff(vs []Violation) {
	path := "thinking"
	for _, v := range vs {
		if v.Rule == rp.d.thinking {
			path = v.Path
		}
	}
	rp.change(rp.d.thinking, path, ActionDisableThinking, "extended thinking is turned off for this request, the only fix: the assistant turn the request continues (a tool loop) does not start with a thinking block, and a signed thinking block cannot be made up")
}

// hasRule reports whether vs hold a violation of rule.
func hasRule(vs []Violation, rule RuleID) bool {
	for _, v := range vs {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

// wpart is a part being repaired, with where it came from (om, op: message
// and part index in the original; om < 0 for parts Repair made).
type wpart struct {
	p      llm.Part
	om, op int
}

// wmsg is a message being repaired.
type wmsg struct {
	role    llm.Role
	parts   []wpart
	om      int  // original index, or -1
	changed bool // parts differ from the original message's
}

// A repairer repairs one request in stages, each reading the dialect's
// rules: shape, system messages, empty content, the dialect's arrangement
// of turns, tool names, tool definitions, pairing (which writes the
// result, through post), strict mode.
type repairer struct {
	d        *dialect
	pol      Policy
	req      Request
	orig     *Map // where the original messages are in the body
	w        []wmsg
	tools    []llm.ToolSpec
	changes  []Change
	problems []Violation
	built    []llm.Message             // the result, which rebuild makes through post
	opaque   map[string]bool           // call ids of opaque calls, made on first use
	answers  map[string]llm.ToolResult // tool name -> the result of its unanswered calls (interrupted), made on first use
}

func (rp *repairer) change(rule RuleID, path string, a Action, reason string) {
	rp.changes = append(rp.changes, Change{Rule: rule, Path: path, Action: a, Reason: reason})
}

// origPath is the original path of a part (or of its message when op < 0).
func (rp *repairer) origPath(om, op int) string {
	if om < 0 {
		return ""
	}
	l := rp.orig
	if op >= 0 {
		if p := l.path(l.part(om, op)); p != "" {
			return p
		}
	}
	if p := l.path(l.msg(om)); p != "" {
		return p
	}
	return fmt.Sprintf("message %d", om)
}

func (rp *repairer) msgPath(m wmsg) string {
	if m.om < 0 {
		for _, p := range m.parts {
			if p.om >= 0 {
				return rp.origPath(p.om, -1)
			}
		}
		return ""
	}
	return rp.origPath(m.om, -1)
}

// load copies the messages into rp.w, their parts into one array.
func (rp *repairer) load() {
	rp.w = make([]wmsg, len(rp.req.Messages))
	total := 0
	for _, m := range rp.req.Messages {
		total += len(m.Parts)
	}
	flat := make([]wpart, total)
	for i, m := range rp.req.Messages {
		parts := flat[:len(m.Parts):len(m.Parts)]
		flat = flat[len(m.Parts):]
		for j, p := range m.Parts {
			parts[j] = wpart{p: p, om: i, op: j}
		}
		rp.w[i] = wmsg{role: m.Role, parts: parts, om: i}
	}
	rp.tools = rp.req.Tools
}

// message returns m as an llm message: the original one when m is
// unchanged.
func (rp *repairer) message(m *wmsg) llm.Message {
	if !m.changed && m.om >= 0 && len(m.parts) == len(rp.req.Messages[m.om].Parts) {
		return rp.req.Messages[m.om]
	}
	parts := make([]llm.Part, len(m.parts))
	for j, p := range m.parts {
		parts[j] = p.p
	}
	return llm.Message{Role: m.role, Parts: parts}
}

// ---- stage 1: the llm shape ----

func (rp *repairer) shape() {
	if !slices.ContainsFunc(rp.w, func(m wmsg) bool { return !m.role.Valid() || !wellFormed(m) }) {
		return // the loop below would copy every message as it is
	}
	out := make([]wmsg, 0, len(rp.w))
	for _, m := range rp.w {
		if !m.role.Valid() {
			rp.problems = append(rp.problems, Violation{Rule: ruleRole, Path: rp.msgPath(m), Message: fmt.Sprintf("message %d has role %q; Repair does not guess which role was meant", m.om, m.role)})
			out = append(out, m)
			continue
		}
		if wellFormed(m) {
			out = append(out, m)
			continue
		}
		if rp.d.split != nil && mixesCalls(m) {
			out = rp.d.split(rp, m, out)
			continue
		}
		var before, after []wmsg
		keep := m.parts[:0:0]
		var calls, results, images []wpart
		for _, p := range m.parts {
			// A part out of place is dropped (to == nil) or moved to a
			// message of its own role (to).
			var to *[]wpart
			action, reason := Action(""), ""
			switch pp := p.p.(type) {
			case nil:
				action, reason = ActionDrop, "dropped a nil part"
			case llm.Reasoning:
				if m.role != llm.RoleAssistant {
					action, reason = ActionDrop, fmt.Sprintf("dropped reasoning from a %s message (reasoning belongs to assistant messages)", m.role)
				}
			case llm.ToolCall:
				if m.role != llm.RoleAssistant {
					action, reason, to = ActionReshape, fmt.Sprintf("moved tool call %s out of a %s message into an assistant message before it", quoteID(pp.ID), m.role), &calls
				}
			case llm.ToolResult:
				if m.role != llm.RoleTool {
					action, reason, to = ActionReshape, fmt.Sprintf("moved the result of %s out of a %s message into a tool message before it", quoteID(pp.CallID), m.role), &results
				}
			case llm.Image:
				if m.role == llm.RoleSystem {
					action, reason, to = ActionReshape, "moved an image out of a system message into a user message after it", &images
				}
			}
			if action == "" {
				keep = append(keep, p)
				continue
			}
			rp.change(ruleShape, rp.origPath(p.om, p.op), action, reason)
			if to != nil {
				*to = append(*to, p)
			}
			m.changed = true
		}
		m.parts = keep
		if len(calls) > 0 {
			before = append(before, wmsg{role: llm.RoleAssistant, parts: calls, om: -1, changed: true})
		}
		if len(results) > 0 {
			before = append(before, wmsg{role: llm.RoleTool, parts: results, om: -1, changed: true})
		}
		if len(images) > 0 {
			after = append(after, wmsg{role: llm.RoleUser, parts: images, om: -1, changed: true})
		}
		if m.role == llm.RoleTool {
			// Results first, then text and images.
			var res, rest []wpart
			for _, p := range m.parts {
				if _, ok := p.p.(llm.ToolResult); ok {
					res = append(res, p)
				} else {
					rest = append(rest, p)
				}
			}
			if len(res) == 0 {
				if len(rest) > 0 {
					rp.change(ruleShape, rp.msgPath(m), ActionReshape, "a tool message without results became a user message")
					m.role = llm.RoleUser
					m.changed = true
				}
			} else if !isPrefix(res, m.parts) {
				rp.change(ruleShape, rp.msgPath(m), ActionMove, "moved text and images of a tool message after its results")
				m.parts = append(res, rest...)
				m.changed = true
			}
		}
		out = append(out, before...)
		if len(m.parts) > 0 || !m.changed {
			out = append(out, m)
		}
		out = append(out, after...)
	}
	rp.w = out
}

// wellFormed reports whether m needs no shape repair.
func wellFormed(m wmsg) bool {
	results := 0
	for _, p := range m.parts {
		switch p.p.(type) {
		case nil:
			return false
		case llm.ToolCall, llm.Reasoning:
			if m.role != llm.RoleAssistant {
				return false
			}
		case llm.ToolResult:
			if m.role != llm.RoleTool {
				return false
			}
			results++
		case llm.Image:
			if m.role == llm.RoleSystem {
				return false
			}
		}
	}
	if m.role == llm.RoleTool {
		other := false // results come first
		for _, p := range m.parts {
			if _, ok := p.p.(llm.ToolResult); !ok {
				other = true
			} else if other {
				return false
			}
		}
		return results > 0
	}
	return true
}

func isPrefix(res, all []wpart) bool {
	for k := range res {
		if _, ok := all[k].p.(llm.ToolResult); !ok {
			return false
		}
	}
	return true
}

// ---- stage 2: system messages ----

func (rp *repairer) system() {
	if rp.d.lateSystem == "" || rp.d.keepsLateSystem != nil && rp.d.keepsLateSystem(rp.req.Model) {
		return // the dialect, or the model, takes system messages where they are
	}
	first := len(rp.w)
	for i, m := range rp.w {
		if m.role != llm.RoleSystem {
			first = i
			break
		}
	}
	late := false
	for _, m := range rp.w[first:] {
		late = late || m.role == llm.RoleSystem
	}
	if !late {
		return
	}
	var moved []wmsg
	rest := make([]wmsg, 0, len(rp.w)-first)
	for _, m := range rp.w[first:] {
		if m.role == llm.RoleSystem {
			rp.change(rp.d.lateSystem, rp.msgPath(m), ActionMove, "moved a system message from the middle of the conversation to "+rp.d.systemName+" (after the system text already there)")
			moved = append(moved, m)
			continue
		}
		rest = append(rest, m)
	}
	out := append(rp.w[:first:first], moved...)
	rp.w = append(out, rest...)
}

// ---- stage 3: empty content ----

func (rp *repairer) content() {
	k := 0 // rp.w[:k] are the messages kept, in place
	for i := range rp.w {
		m := &rp.w[i]
		if !rp.contentMsg(m) {
			continue
		}
		rp.w[k] = *m
		k++
	}
	rp.w = rp.w[:k]
}

// contentMsg makes the content of m acceptable to the dialect: its text
// (the dialect's text rule), and messages with nothing the dialect can
// express. It reports whether m stays; a message that goes is recorded as
// a change. The content stage applies it to every message, and rebuild
// again to each message pairing makes or changes: dropping a result or a
// call can leave a message whose content was fine while the result or
// call was there (ANT-TEXT-WHITESPACE, an empty message). Applied to its
// own output it changes nothing.
func (rp *repairer) contentMsg(m *wmsg) bool {
	content := false // m holds a part the dialect can express
	switch {
	case rp.d.text != nil:
		content = rp.d.text(rp, m) > 0
	case rp.d.emptyRule != "":
		content = slices.ContainsFunc(m.parts, func(p wpart) bool {
			return expressible(p.p, rp.d) && !signatureOnly(p.p) && !emptyPart(p.p)
		})
	}
	if content || rp.d.emptyRule == "" {
		return true
	}
	rule := rp.d.emptyRule
	switch m.role {
	case llm.RoleUser:
		rp.change(rule, rp.msgPath(*m), ActionReplaceText, fmt.Sprintf("the user message had no content: it now reads %q", rp.pol.Placeholder))
		m.parts = append(m.parts[:len(m.parts):len(m.parts)], wpart{p: llm.Text{Text: rp.pol.Placeholder}, om: m.om, op: -1})
		m.changed = true
	case llm.RoleAssistant, llm.RoleSystem:
		if rp.d.emptyAssistant && m.role == llm.RoleAssistant && !m.changed {
			break // an empty assistant message is accepted (a warning)
		}
		if rp.d.emptyDrop != "" {
			rule = rp.d.emptyDrop
		}
		rp.change(rule, rp.msgPath(*m), ActionDrop, fmt.Sprintf("dropped the %s message, which had no content", m.role))
		return false
	}
	return true
}

// ---- stage 4: pairing ----

type fate uint8

const (
	fateKeep     fate = iota // stays where it is
	fateConsumed             // moved into its call's rebuilt turn
	fateDup                  // exact duplicate: dropped
	fateNote                 // orphan turned into a note
	fateGone                 // orphan dropped
	fateConflict             // conflicting duplicate: left in place, reported
	fateExternal             // answers a call of a stored response (Responses) or of cached contents (Gemini)
	fateStandIn              // a placeholder beside a real result of its call: dropped
)

type callRef struct {
	m, k   int // position in rp.w
	turn   int
	id     string
	name   string
	res    int // index in results, or -1
	prevID int // previous call with the same id, or -1
}

type resRef struct {
	m, k  int
	call  int // paired call, or -1
	fate  fate
	dupOf int // call this duplicates, for fateDup, fateConflict, fateStandIn and a note of a second result
	owner int // turn that consumed it
}

type turn struct {
	first, last int // its messages in rp.w (Anthropic: consecutive assistants)
	c0, c1      int // its calls are pr.calls[c0:c1]
	rebuild     bool
}

// turnWhy says why a turn is rebuilt: the rule and a phrase for the change.
type turnWhy struct {
	rule RuleID
	text string
}

type pairing struct {
	calls    []callRef
	results  []resRef
	turns    []turn
	first    []int           // message -> index in results of its first result, if it has one (see walk)
	why      map[int]turnWhy // rebuilt turn -> why
	conflict []bool          // turn -> one of its calls has conflicting results
	mark     []int           // call -> turn that found it answered in place
	kept     []int           // the array of the last residual's kept, reused
}

// A resWalk finds the results among the parts of one message, which
// come in results in part order: at(k), asked for each part k in order,
// returns the index of the result at part k.
type resWalk struct {
	pr      *pairing
	m, next int
}

// walk returns a resWalk over the parts of message m.
func (pr *pairing) walk(m int) resWalk { return resWalk{pr: pr, m: m, next: pr.first[m]} }

// at returns the index of the result at part k, if part k is one.
func (w *resWalk) at(k int) (int, bool) {
	if w.next < len(w.pr.results) {
		if r := w.pr.results[w.next]; r.m == w.m && r.k == k {
			w.next++
			return w.next - 1, true
		}
	}
	return -1, false
}

// pair pairs every result with a call, decides the fate of the others,
// rewrites ids, judges each turn, and rebuilds the messages.
func (rp *repairer) pair() {
	pr := &pairing{first: make([]int, len(rp.w))}
	calls, results, starts := 0, 0, 0
	for i := range rp.w {
		if rp.w[i].role == llm.RoleAssistant && (rp.d.turnPerAssistant || hasCallPart(rp.w[i])) {
			starts++ // the assistant messages that may start a turn (see below)
		}
		for _, p := range rp.w[i].parts {
			switch p.p.(type) {
			case llm.ToolCall:
				calls++
			case llm.ToolResult:
				results++
			}
		}
	}
	pr.calls = make([]callRef, 0, calls)
	pr.results = make([]resRef, 0, results)
	pr.turns = make([]turn, 0, starts)
	last := make(map[string]int, calls) // call id -> the last call with it
	// With Gemini cachedContent, the results before the first assistant
	// message may answer a call in the cache (GEM-CACHED-PREFIX).
	prefix := 0
	if rp.req.CachedContent {
		if prefix = slices.IndexFunc(rp.w, func(m wmsg) bool { return m.role == llm.RoleAssistant }); prefix < 0 {
			prefix = len(rp.w)
		}
	}
	cur := -1
	prevIn := -1 // the turn of message i-1, or -1
	run := -1    // the turn whose run of results message i is in, or -1
	for i := range rp.w {
		m := &rp.w[i]
		in := -1 // the turn of message i
		pr.first[i] = len(pr.results)
		if m.role != llm.RoleTool {
			run = -1
		}
		switch m.role {
		case llm.RoleAssistant:
			// Where the dialect merges consecutive assistant messages into
			// one turn, this one joins the turn before (unless the dialect
			// says it splits it).
			merge := rp.d.mergeTurns && i > 0 && prevIn >= 0 && rp.w[i-1].role == llm.RoleAssistant &&
				!(rp.d.splitsTurn != nil && pr.turns[prevIn].c1 > pr.turns[prevIn].c0 && rp.d.splitsTurn(m))
			opens := !merge && (hasCallPart(*m) || rp.d.turnPerAssistant) // m starts a turn
			if merge {
				cur = prevIn
				pr.turns[cur].last = i
			} else if opens {
				pr.turns = append(pr.turns, turn{first: i, last: i, c0: len(pr.calls), c1: len(pr.calls)})
				cur = len(pr.turns) - 1
			}
			if opens || merge {
				in = cur
				run = cur
			}
			for k, p := range m.parts {
				tc, ok := p.p.(llm.ToolCall)
				if !ok {
					continue
				}
				ci := len(pr.calls)
				prev := -1
				if x, ok := last[tc.ID]; ok && tc.ID != "" {
					prev = x
				}
				pr.calls = append(pr.calls, callRef{m: i, k: k, turn: cur, id: tc.ID, name: tc.Name, res: -1, prevID: prev})
				pr.turns[cur].c1 = ci + 1
				if tc.ID != "" {
					last[tc.ID] = ci
				}
			}
		case llm.RoleTool:
			for k, p := range m.parts {
				r, ok := p.p.(llm.ToolResult)
				if !ok {
					continue
				}
				ri := len(pr.results)
				pr.results = append(pr.results, resRef{m: i, k: k, call: -1, dupOf: -1, owner: -1})
				rp.match(pr, ri, r, last, cur, run, i < prefix)
			}
		}
		prevIn = in
	}
	pr.conflict = make([]bool, len(pr.turns))
	for _, r := range pr.results {
		if r.fate == fateConflict && r.dupOf >= 0 {
			pr.conflict[pr.calls[r.dupOf].turn] = true
		}
	}
	pr.mark = make([]int, len(pr.calls))
	for i := range pr.mark {
		pr.mark[i] = -1
	}
	rp.rewriteIDs(pr)
	for t := range pr.turns {
		rp.judge(pr, t)
	}
	rp.rebuild(pr)
}

// match pairs result ri with a call, or decides its fate. run is the turn
// whose run of results (the tool messages right after it) ri is in, or -1;
// cached says that ri stands before the first assistant message of a
// request that continues cached contents, which may hold its call.
func (rp *repairer) match(pr *pairing, ri int, r llm.ToolResult, last map[string]int, cur, run int, cached bool) {
	res := &pr.results[ri]
	cand, dup := -1, -1
	if x, ok := last[r.CallID]; ok && r.CallID != "" {
		t := pr.calls[x].turn
		for y := x; y >= 0 && pr.calls[y].turn == t; y = pr.calls[y].prevID {
			if pr.calls[y].res < 0 {
				cand = y // the earliest unanswered one in that turn
			} else if dup < 0 || y < dup {
				dup = y
			}
		}
	}
	byName := cand < 0 && dup < 0 && cur >= 0 && (r.CallID == "" || rp.d.byName)
	if byName {
		pending, only := 0, -1
		for ci := pr.turns[cur].c0; ci < pr.turns[cur].c1; ci++ {
			c := pr.calls[ci]
			if r.CallID != "" && c.id != "" {
				continue
			}
			if c.res >= 0 {
				if (r.Name == "" || c.name == r.Name) && dup < 0 {
					dup = ci
				}
				continue
			}
			if c.name == r.Name {
				cand = ci
				break
			}
			pending++
			only = ci
		}
		if cand < 0 && r.Name == "" && pending == 1 {
			cand = only
		}
	}
	switch {
	case cand >= 0:
		res.call = cand
		pr.calls[cand].res = ri
	case dup >= 0 && pr.calls[dup].res >= 0:
		rp.second(pr, ri, r, dup, run == pr.calls[dup].turn)
	case rp.d.storedCalls && (rp.req.PreviousResponse || rp.opaqueCall(r.CallID)), cached:
		res.fate = fateExternal // the call is stored (or cached), or one the llm form does not model
	case rp.pol.Orphans == DropOrphan:
		res.fate = fateGone
	default:
		res.fate = fateNote
	}
}

// opaqueCall reports whether id is the call id of an llm.Opaque call of
// the dialect (a Responses tool_search_call the client runs), which a
// result may answer.
func (rp *repairer) opaqueCall(id string) bool {
	if id == "" {
		return false
	}
	if rp.opaque == nil {
		rp.opaque = map[string]bool{}
		for _, m := range rp.w {
			for _, p := range m.parts {
				if o, ok := p.p.(llm.Opaque); ok && o.CallID != "" && expressible(o, rp.d) {
					rp.opaque[o.CallID] = true
				}
			}
		}
	}
	return rp.opaque[id]
}

// second decides the fate of result ri, a second result for call dup,
// which its run of results holds when inRun. Of the two, a placeholder
// gives way to a real result; two real ones are a conflict, settled by
// the policy, unless the second stands after the run, where it is a note.
func (rp *repairer) second(pr *pairing, ri int, r llm.ToolResult, dup int, inRun bool) {
	res := &pr.results[ri]
	res.dupOf = dup
	fi := pr.calls[dup].res
	first := &pr.results[fi]
	fr := rp.w[first.m].parts[first.k].p.(llm.ToolResult)
	// keep makes ri the call's result, and gives the first fate f.
	keep := func(f fate) {
		first.fate, first.call, first.dupOf = f, -1, dup
		res.call, pr.calls[dup].res = dup, ri
	}
	pf, pr2 := placeholder(fr), placeholder(r)
	name := pr.calls[dup].name
	agree := func(n string) bool { return n == "" || name == "" || n == name }
	switch {
	case sameResult(fr, r):
		res.fate = fateDup
	case rp.d.byName && rp.sharedID(pr, dup):
		// Gemini pairs a response with the first unanswered call with its
		// id: which result stands where decides what each answers.
		res.fate = fateConflict
		rp.problems = append(rp.problems, Violation{Rule: rp.d.duplicate, Path: rp.origPath(rp.w[res.m].parts[res.k].om, rp.w[res.m].parts[res.k].op),
			Message: fmt.Sprintf("call %s (%s) shares its id with another call of its turn and has two results (the first at %s); Gemini pairs them by position, and Repair does not guess which answers which: give the calls distinct ids", quoteID(pr.calls[dup].id), name, rp.origPath(rp.w[first.m].parts[first.k].om, rp.w[first.m].parts[first.k].op))})
	case !agree(fr.Name) || !agree(r.Name):
		// A result that names another function than the call: the ids
		// pair it with a call (Gemini's may be shared) that its name
		// says it does not answer. Which is which is a guess.
		res.fate = fateConflict
		other := r.Name
		if agree(other) {
			other = fr.Name
		}
		rp.problems = append(rp.problems, Violation{Rule: rp.d.duplicate, Path: rp.origPath(rp.w[res.m].parts[res.k].om, rp.w[res.m].parts[res.k].op),
			Message: fmt.Sprintf("call %s (%s) has two results, one of them for %s (the first at %s); Repair does not guess which call each answers: give the calls distinct ids", quoteID(pr.calls[dup].id), name, other, rp.origPath(rp.w[first.m].parts[first.k].om, rp.w[first.m].parts[first.k].op))})
	case pf && !pr2:
		keep(fateStandIn)
	case pr2:
		res.fate = fateStandIn
	case !inRun:
		res.fate = fateNote
	case rp.pol.Duplicates == KeepFirst:
		res.fate = fateNote
	case rp.pol.Duplicates == KeepLast:
		keep(fateNote)
	default:
		rp.conflict(pr, ri, dup)
	}
}

// sharedID reports whether another call of ci's turn has its id.
func (rp *repairer) sharedID(pr *pairing, ci int) bool {
	c := pr.calls[ci]
	t := pr.turns[c.turn]
	for k := t.c0; k < t.c1; k++ {
		if k != ci && c.id != "" && pr.calls[k].id == c.id {
			return true
		}
	}
	return false
}

// conflict leaves result ri, a second result of call dup that differs from
// the first, in place, and reports it as a problem.
func (rp *repairer) conflict(pr *pairing, ri, dup int) {
	res := &pr.results[ri]
	first := pr.results[pr.calls[dup].res]
	res.fate = fateConflict
	rp.problems = append(rp.problems, Violation{Rule: rp.d.duplicate, Path: rp.origPath(rp.w[res.m].parts[res.k].om, rp.w[res.m].parts[res.k].op),
		Message: fmt.Sprintf("call %s (%s) has two results with different content (the first at %s); Repair does not choose between them: remove the wrong one, or have Repair keep the first or the last (Policy.Duplicates; toolwire check --fix --duplicates first|last)", quoteID(pr.calls[dup].id), pr.calls[dup].name, rp.origPath(rp.w[first.m].parts[first.k].om, rp.w[first.m].parts[first.k].op))})
}

// placeholder reports whether r stands in for a result the transcript does
// not have: a toolwire envelope of type interrupted or cancelled (what
// Repair itself answers an unanswered call with); a result whose only
// content is the text another framework writes for a missing result
// (placeholderTexts), whatever its status; or an error result whose only
// content is a short text saying that the call was aborted, interrupted or
// cancelled. Any other result without an error status is real: Chat and
// Responses results have no error flag, and "aborted the deploy" may be a
// real outcome there.
func placeholder(r llm.ToolResult) bool {
	if len(r.Content) != 1 {
		return false
	}
	t, ok := r.Content[0].(llm.Text)
	if !ok {
		return false
	}
	if env, err := toolresult.Parse([]byte(t.Text)); err == nil {
		return env.Error != nil && (env.Error.Type == toolresult.Interrupted || env.Error.Type == toolresult.Cancelled)
	}
	if len(t.Text) > 400 {
		return false
	}
	if placeholderTexts.MatchString(strings.TrimSpace(t.Text)) {
		return true
	}
	return r.Status == llm.StatusError && len(t.Text) <= 200 && abortedText.MatchString(t.Text)
}

// abortedText matches a text that says a call was stopped before it
// finished.
var abortedText = regexp.MustCompile(`(?i)\b(abort(ed)?|interrupt(ed)?|cancell?ed)\b`)

// placeholderTexts matches the whole text that agent frameworks write as
// the result of a call that never finished, so that a history they
// patched gives way to the real result when one turns up:
//
//   - "aborted": the OpenAI Codex CLI's output for a call whose output is
//     missing;
//   - "Tool execution aborted", "[Tool execution was interrupted]":
//     opencode, for a tool stopped by the user and for a pending tool
//     when it replays its history;
//   - "Tool call NAME with id ID was cancelled - another message came in
//     before it could be completed.": LangChain's deepagents
//     PatchToolCallsMiddleware (and CloudWeGo eino's copy of it), for a
//     dangling call;
//   - "[Request interrupted by user for tool use]": Claude Code, when the
//     user stops a tool;
//   - and their kin: "interrupted", "cancelled", "Tool execution was
//     cancelled", "Tool call was interrupted".
var placeholderTexts = regexp.MustCompile(`(?i)^\[?(?:` +
	`aborted|interrupted|cancell?ed|` +
	`tool (?:execution|call) (?:was )?(?:aborted|interrupted|cancell?ed)(?: by (?:the )?user)?|` +
	`request interrupted by user(?: for tool use)?|` +
	`tool call \S+ with id \S+ was cancell?ed - another message came in before it could be completed` +
	`)\.?\]?$`)

func sameResult(a, b llm.ToolResult) bool {
	if a.CallID != b.CallID || a.Status != b.Status || (a.Name != b.Name && a.Name != "" && b.Name != "") {
		return false
	}
	return reflect.DeepEqual(a.Content, b.Content)
}

// rewriteIDs gives every call an id the dialect accepts, unique where the
// dialect needs it, and carries it to the paired result.
//
// A call reuses an id exactly when an earlier call has the same original
// id (c.prevID >= 0): new ids are never original ids, and the first call
// with an id keeps it unless the id itself is bad, which it is then for
// every call that has it. The set of ids in use is only made when an id
// must change.
//
// A dialect that keeps ids (Gemini) leaves them as they are, and a result
// without one is paired by name; it gets its call's id only when no other
// call of the turn has that id. Gemini matches a response with an id to
// the first unanswered call with that id, so an id its turn shares could
// pair it with another call than the one it answers.
func (rp *repairer) rewriteIDs(pr *pairing) {
	ids := rp.d.ids
	var used map[string]bool
	var shared []bool // call -> another call of its turn has its id; made on first use
	for ci := range pr.calls {
		c := &pr.calls[ci]
		rule := RuleID("")
		switch {
		case ids.keep:
		case c.id == "":
			rule = ids.missing
		case ids.valid != nil && !ids.valid(c.id):
			rule = ids.invalid
		case ids.tooLong != "" && longerThan(c.id, ids.max):
			rule = ids.tooLong
		case c.prevID >= 0 && (!ids.reusedTurn || pr.calls[c.prevID].turn == c.turn):
			rule = ids.reused
		}
		newID := c.id
		if rule != "" {
			if used == nil {
				used = rp.callIDs(pr)
			}
			orig := rp.w[c.m].parts[c.k]
			newID = newCallID(c.id, ids, orig.om, orig.op, used)
			what := "id " + strconv.Quote(c.id)
			if c.id == "" {
				what = "no id"
			}
			reason := fmt.Sprintf("call of %s had %s; it is now %q", c.name, what, newID)
			if c.res >= 0 {
				reason += ", and so is its result's call id"
			}
			rp.change(rule, rp.origPath(rp.w[c.m].parts[c.k].om, rp.w[c.m].parts[c.k].op), ActionRewriteID, reason)
			tc := rp.w[c.m].parts[c.k].p.(llm.ToolCall)
			tc.ID = newID
			rp.w[c.m].parts[c.k].p = tc
			rp.w[c.m].changed = true
			c.id = newID
		}
		if c.res >= 0 {
			r := pr.results[c.res]
			tr := rp.w[r.m].parts[r.k].p.(llm.ToolResult)
			if tr.CallID != newID && ids.keep && tr.CallID == "" {
				if shared == nil {
					shared = sharedTurnIDs(pr)
				}
				if shared[ci] {
					newID = "" // leave it to match by name
				}
			}
			if tr.CallID != newID && (!ids.keep || tr.CallID == "") {
				if rule == "" {
					rp.change(ids.result,
						rp.origPath(rp.w[r.m].parts[r.k].om, rp.w[r.m].parts[r.k].op), ActionRewriteID,
						fmt.Sprintf("the result had no call id; it answers the only pending call of %s, %s", c.name, quoteID(newID)))
				}
				tr.CallID = newID
				rp.w[r.m].parts[r.k].p = tr
				rp.w[r.m].changed = true
			}
			if ids.nameMatch != "" && tr.Name != c.name {
				rp.change(ids.nameMatch, rp.origPath(rp.w[r.m].parts[r.k].om, rp.w[r.m].parts[r.k].op), ActionRewriteID,
					fmt.Sprintf("the function response for %s named %q; it now names the call's function %q", quoteID(c.id), tr.Name, c.name))
				tr.Name = c.name
				rp.w[r.m].parts[r.k].p = tr
				rp.w[r.m].changed = true
			}
		}
	}
}

// sharedTurnIDs reports for each call of pr whether another call of its
// turn has the same (non-empty) id.
func sharedTurnIDs(pr *pairing) []bool {
	shared := make([]bool, len(pr.calls))
	for ci, c := range pr.calls {
		if c.prevID >= 0 && pr.calls[c.prevID].turn == c.turn {
			shared[ci], shared[c.prevID] = true, true
		}
	}
	return shared
}

// callIDs returns the set of ids of the calls and results of pr.
func (rp *repairer) callIDs(pr *pairing) map[string]bool {
	used := make(map[string]bool, len(pr.calls))
	for _, c := range pr.calls {
		used[c.id] = true
	}
	for _, r := range pr.results {
		used[rp.w[r.m].parts[r.k].p.(llm.ToolResult).CallID] = true
	}
	return used
}

// newCallID gives the call at part op of original message om, whose id
// old the dialect refuses or an earlier call has, a new id not in used,
// and adds it to used. It follows internal/callid, the scheme the encoders
// use when converting (docs/dialect-mapping.md): a call without an id gets
// the prefix and its position ("toolu_3_1"); an id with bytes the dialect
// refuses (Anthropic) has them replaced and a hash of the original after
// it; an id too long is cut with the hash; and "_2", "_3", ... keep it
// apart from every other id. The same transcript always gets the same ids.
func newCallID(old string, ids idRules, om, op int, used map[string]bool) string {
	base := old
	switch {
	case old == "":
		base = callid.Made(ids.prefix, om, op)
	case ids.valid != nil && !ids.valid(old):
		base = callid.Sanitize(old, strings.TrimSuffix(ids.prefix, "_"))
	case longerThan(old, ids.max):
		base = callid.Shorten(old, ids.max)
	}
	return callid.Unique(base, used, ids.max)
}

// residual is what a tool message becomes given the fates of its results.
type residual struct {
	kept     []int // result indices staying in place (valid until the next residual)
	note     bool  // notes follow
	trailing bool  // its text and images stay with it
	vanish   bool
	owner    int // the turn that consumed its first consumed result, which takes its trailing parts along unless they stay; or -1
}

func (rp *repairer) residual(pr *pairing, m int) residual {
	r := residual{kept: pr.kept[:0], owner: -1}
	consumed := false
	hasTrailing := false
	w := pr.walk(m)
	for k, p := range rp.w[m].parts {
		ri, ok := w.at(k)
		if !ok {
			if expressible(p.p, rp.d) {
				hasTrailing = true
			}
			continue
		}
		switch pr.results[ri].fate {
		case fateKeep, fateConflict, fateExternal:
			r.kept = append(r.kept, ri)
		case fateNote:
			r.note = true
		case fateConsumed:
			consumed = true
			if r.owner < 0 {
				r.owner = pr.results[ri].owner
			}
		}
	}
	r.trailing = hasTrailing && (len(r.kept) > 0 || r.note || !consumed)
	r.vanish = len(r.kept) == 0 && !r.note && !r.trailing
	pr.kept = r.kept
	return r
}

// judge decides whether turn t can stay as it is: each of its calls has a
// result, and the results stand where the dialect's pairing wants them,
// with nothing else among them.
func (rp *repairer) judge(pr *pairing, t int) {
	T := &pr.turns[t]
	if (T.c1 - T.c0) == 0 {
		return
	}
	bad := func(rule RuleID, text string) {
		if !T.rebuild {
			T.rebuild = true
			if pr.why == nil {
				pr.why = map[int]turnWhy{}
			}
			pr.why[t] = turnWhy{rule: rule, text: text}
		}
	}
	for ci := T.c0; ci < T.c1; ci++ {
		c := pr.calls[ci]
		if c.res < 0 {
			bad(rp.d.unanswered, "a call had no result")
			continue
		}
		if rp.d.resultImages != "" {
			r := pr.results[c.res]
			if hasImage(rp.w[r.m].parts[r.k].p.(llm.ToolResult).Content) {
				bad(rp.d.resultImages, "a result held an image")
			}
		}
	}
	if pr.conflict[t] {
		bad(rp.d.duplicate, "a call had conflicting results")
	}
	if T.rebuild {
		rp.consume(pr, t)
		return
	}
	// mine marks the calls of t answered in place: pr.mark[ci] == t.
	mineN := 0
	mine := func(ci int) bool { return pr.mark[ci] == t }
	setMine := func(ci int) { pr.mark[ci] = t; mineN++ }
	// foreign reports whether kept result ri is not one of t's, or one of
	// a call already answered here.
	foreign := func(ri int) bool {
		ci := pr.results[ri].call
		return ci < 0 || pr.calls[ci].turn != t || mine(ci) || pr.results[ri].fate != fateKeep
	}
	word := rp.d.resultWord()
	among := func() string { return "another " + word + " sat among its " + word + "s" }
	switch rp.d.pairing {
	case pairRun:
		// The tool messages right after the turn.
	run:
		for j := T.last + 1; j < len(rp.w); j++ {
			if rp.w[j].role != llm.RoleTool {
				break
			}
			res := rp.residual(pr, j)
			if res.vanish {
				continue
			}
			if len(res.kept) == 0 {
				break
			}
			for _, ri := range res.kept {
				if foreign(ri) {
					bad(rp.d.foreign, among())
					break run
				}
				setMine(pr.results[ri].call)
			}
			if res.trailing || res.note {
				break
			}
		}
	case pairNextTurn:
		// The user turn after it: consecutive user and tool messages.
		text := false
	turn:
		for j := T.last + 1; j < len(rp.w); j++ {
			m := rp.w[j]
			if m.role == llm.RoleAssistant || m.role == llm.RoleSystem {
				break
			}
			if m.role == llm.RoleUser {
				text = true
				continue
			}
			res := rp.residual(pr, j)
			for _, ri := range res.kept {
				if text && rp.d.resultFirst != "" {
					bad(rp.d.resultFirst, "text came before a result in the next user turn")
					break turn
				}
				if foreign(ri) {
					bad(rp.d.foreign, among())
					break turn
				}
				setMine(pr.results[ri].call)
			}
			if res.trailing || res.note {
				text = true
			}
		}
	case pairAfter:
		for ci := T.c0; ci < T.c1; ci++ {
			setMine(ci)
		}
	}
	if !T.rebuild && mineN != (T.c1-T.c0) {
		bad(rp.d.late, "its results did not directly follow it")
	}
	if T.rebuild {
		rp.consume(pr, t)
	}
}

// consume gives the results of turn t, which is rebuilt, to the turn.
func (rp *repairer) consume(pr *pairing, t int) {
	T := pr.turns[t]
	for ci := T.c0; ci < T.c1; ci++ {
		if ri := pr.calls[ci].res; ri >= 0 {
			pr.results[ri].fate = fateConsumed
			pr.results[ri].owner = t
		}
	}
}

// rebuild writes the repaired messages, through post, into rp.built.
func (rp *repairer) rebuild(pr *pairing) {
	trailing := make([]bool, len(rp.w)) // tool message -> its own text and images stay with it
	var ownedTrail map[int][]int        // turn -> messages whose trailing parts it takes
	extra := 0                          // messages out has beyond len(rp.w): a tool message per rebuilt turn, a note after kept results
	for t := range pr.turns {
		if pr.turns[t].rebuild {
			extra++
		}
	}
	for i := range rp.w {
		if rp.w[i].role != llm.RoleTool {
			continue
		}
		res := rp.residual(pr, i)
		trailing[i] = res.trailing
		if len(res.kept) > 0 && res.note {
			extra++
		}
		if !trailing[i] && res.owner >= 0 {
			if ownedTrail == nil {
				ownedTrail = map[int][]int{}
			}
			ownedTrail[res.owner] = append(ownedTrail[res.owner], i)
		}
	}
	// The repaired messages go through post to the llm messages build
	// returns, a few at a time through out.
	ps := rp.newPost(len(rp.w) + extra + 1) // + 1: a user turn post may insert
	var out []wmsg
	t := 0 // the next turn, in the order of their first messages
	for i := 0; i < len(rp.w); i++ {
		for t < len(pr.turns) && pr.turns[t].first < i {
			t++
		}
		role := rp.w[i].role
		switch {
		case t < len(pr.turns) && pr.turns[t].first == i && pr.turns[t].rebuild:
			out = rp.emitTurn(pr, t, ownedTrail[t], out[:0])
			i = pr.turns[t].last
		case role == llm.RoleTool:
			out = rp.emitResidual(pr, i, trailing[i], out[:0])
		default:
			ps.take(&rp.w[i])
			continue
		}
		for k := range out {
			if out[k].changed && !rp.contentMsg(&out[k]) {
				continue
			}
			ps.take(&out[k])
		}
	}
	rp.built, rp.w = ps.finish(), nil
}

func (rp *repairer) emitTurn(pr *pairing, t int, trail []int, out []wmsg) []wmsg {
	T := pr.turns[t]
	var results []wpart
	var lifted []wpart
	var answered, wedged []string
	stripped := map[[2]int]bool{}
	lastMsg := T.last
	maxAt := lastMsg
	for ci := T.c0; ci < T.c1; ci++ {
		c := pr.calls[ci]
		callPart := rp.w[c.m].parts[c.k]
		if c.res < 0 {
			if rp.pol.Unanswered == StripCall {
				stripped[[2]int{c.m, c.k}] = true
				rp.change(rp.d.unanswered, rp.origPath(callPart.om, callPart.op), ActionStripCall, fmt.Sprintf("removed the call %s (%s), which had no result", quoteID(c.id), c.name))
				continue
			}
			results = append(results, wpart{p: rp.interrupted(c.id, c.name), om: callPart.om, op: -1})
			rp.change(rp.d.unanswered, rp.origPath(callPart.om, callPart.op), ActionAnswer, fmt.Sprintf("the call %s (%s) had no result: added an error result of type interrupted that says its outcome is unknown", quoteID(c.id), c.name))
			continue
		}
		r := pr.results[c.res]
		if r.m > maxAt {
			maxAt = r.m
		}
		p := rp.w[r.m].parts[r.k]
		if c.id != "" {
			answered = append(answered, c.id)
		} else {
			answered = append(answered, c.name+" (no id)")
		}
		if rp.d.resultImages != "" {
			tr := p.p.(llm.ToolResult)
			if hasImage(tr.Content) {
				var keep []llm.Part
				var imgs []wpart
				for _, cp := range tr.Content {
					if _, ok := cp.(llm.Image); ok {
						imgs = append(imgs, wpart{p: cp, om: p.om, op: -1})
					} else {
						keep = append(keep, cp)
					}
				}
				if len(keep) == 0 {
					keep = []llm.Part{llm.Text{Text: "(the result is an image; it follows in the next user message)"}}
				}
				tr.Content = keep
				p.p = tr
				lifted = append(lifted, wpart{p: llm.Text{Text: fmt.Sprintf("[images from the result of tool call %s (%s)]", quoteID(c.id), c.name)}, om: p.om, op: -1})
				lifted = append(lifted, imgs...)
				rp.change(rp.d.resultImages, rp.origPath(p.om, p.op), ActionLiftImage, fmt.Sprintf("moved %d image(s) from the result of %s into a user message after the tool messages", len(imgs), quoteID(c.id)))
			}
		}
		results = append(results, p)
	}
	// The assistant messages, without stripped calls.
	for mi := T.first; mi <= T.last; mi++ {
		m := rp.w[mi]
		if len(stripped) > 0 {
			keep := m.parts[:0:0]
			for k, p := range m.parts {
				if !stripped[[2]int{mi, k}] {
					keep = append(keep, p)
				}
			}
			if len(keep) != len(m.parts) {
				m.parts, m.changed = keep, true
			}
			if len(keep) == 0 {
				rp.change(rp.d.unanswered, rp.msgPath(m), ActionDrop, "dropped the assistant message, left empty by stripping its calls")
				continue
			}
		}
		out = append(out, m)
	}
	for j := lastMsg + 1; j < maxAt; j++ {
		if rp.w[j].role != llm.RoleTool || len(rp.residual(pr, j).kept) > 0 {
			if p := rp.msgPath(rp.w[j]); p != "" {
				wedged = append(wedged, p)
			}
		}
	}
	inPlace := true // one message right after the calls, in call order
	prevM, prevK := lastMsg+1, -1
	for ci := T.c0; ci < T.c1; ci++ {
		if ri := pr.calls[ci].res; ri >= 0 {
			r := pr.results[ri]
			if r.m != prevM || r.k < prevK {
				inPlace = false
			}
			prevK = r.k
		}
	}
	why := pr.why[t]
	if len(answered) > 0 && (len(wedged) > 0 || !inPlace || rp.d.resultImages != "" && why.rule == rp.d.resultImages) {
		reason := fmt.Sprintf("put the results of %s in one tool message directly after their calls, in call order (%s)", strings.Join(answered, ", "), why.text)
		if len(wedged) > 0 {
			reason += fmt.Sprintf("; moved %s after them", strings.Join(wedged, ", "))
		}
		rp.change(why.rule, rp.msgPath(rp.w[T.first]), ActionMove, reason)
	}
	if len(results) == 0 {
		return out
	}
	tm := wmsg{role: llm.RoleTool, parts: results, om: -1, changed: true}
	tm.parts = append(tm.parts, lifted...)
	for _, j := range trail {
		w := pr.walk(j)
		for k, p := range rp.w[j].parts {
			if _, isRes := w.at(k); !isRes {
				tm.parts = append(tm.parts, p)
			}
		}
	}
	return append(out, tm)
}

// interrupted answers an unanswered call with an error of type
// interrupted that says the outcome is unknown. Its envelope depends on
// the tool's name only, and is rendered once per name.
func (rp *repairer) interrupted(id, name string) llm.ToolResult {
	r, ok := rp.answers[name]
	if !ok {
		r = interruptedResult(name)
		if rp.answers == nil {
			rp.answers = map[string]llm.ToolResult{}
		}
		rp.answers[name] = r
	}
	r.CallID = id
	r.Content = slices.Clone(r.Content) // the results share the text, not the slice
	return r
}

// interruptedResult is the result of an unanswered call of tool name,
// without its call id.
func interruptedResult(name string) llm.ToolResult {
	env := toolresult.Failure(toolresult.Interrupted, name+" was called, but no result was recorded: the run stopped before the outcome was known. Whether it took effect is unknown.")
	env.Suggestion = toolresult.Options("check whether it took effect before calling it again", "ask the user how to proceed")
	env.Meta.Source = "toolwire transcript repair"
	return env.Result("", name)
}

func (rp *repairer) emitResidual(pr *pairing, i int, trailingStays bool, out []wmsg) []wmsg {
	m := rp.w[i]
	if rp.stays(pr, i, trailingStays) {
		return append(out, m)
	}
	var kept, notes, trailing []wpart
	changed := false
	w := pr.walk(i)
	for k, p := range m.parts {
		ri, ok := w.at(k)
		if !ok {
			if trailingStays {
				trailing = append(trailing, p)
			}
			continue
		}
		r := pr.results[ri]
		if r.fate == fateKeep || r.fate == fateConflict || r.fate == fateExternal {
			kept = append(kept, p)
			continue
		}
		tr := p.p.(llm.ToolResult)
		switch r.fate {
		case fateDup:
			rp.change(rp.d.duplicate, rp.origPath(p.om, p.op), ActionDrop, fmt.Sprintf("dropped an exact duplicate of the result of %s", quoteID(tr.CallID)))
		case fateStandIn:
			rp.change(rp.d.duplicate, rp.origPath(p.om, p.op), ActionDrop, fmt.Sprintf("dropped a placeholder result of %s, which says only that the call was stopped: the call has a real result, %s", quoteID(tr.CallID), rp.resultPath(pr, r.dupOf)))
		case fateGone:
			rp.change(rp.d.orphan, rp.origPath(p.om, p.op), ActionDrop, fmt.Sprintf("dropped the result of %s, whose call is not in the transcript", quoteID(tr.CallID)))
		case fateNote:
			text, rule := noteText(tr), rp.d.orphan
			reason := fmt.Sprintf("the result of %s has no call in the transcript: kept its content as a user note", quoteID(tr.CallID))
			if r.dupOf >= 0 {
				text, rule, reason = secondNoteText(tr), rp.d.duplicate, rp.secondReason(pr, r)
			}
			notes = append(notes, wpart{p: llm.Text{Text: text}, om: p.om, op: p.op})
			for _, cp := range tr.Content {
				if img, ok := cp.(llm.Image); ok {
					notes = append(notes, wpart{p: img, om: p.om, op: p.op})
				}
			}
			rp.change(rule, rp.origPath(p.om, p.op), ActionNote, reason)
		}
		changed = true
	}
	if !changed && trailingStays == (len(trailing) > 0) && len(kept)+len(trailing) == len(m.parts) {
		return append(out, m)
	}
	if len(kept) > 0 {
		out = append(out, wmsg{role: llm.RoleTool, parts: append(kept, trailing...), om: m.om, changed: true})
		trailing = nil
	}
	if len(notes)+len(trailing) > 0 {
		out = append(out, wmsg{role: llm.RoleUser, parts: append(notes, trailing...), om: -1, changed: true})
	}
	return out
}

// stays reports whether tool message i is emitted unchanged: all its
// results stay in place and so do its other parts, if it has any.
func (rp *repairer) stays(pr *pairing, i int, trailingStays bool) bool {
	w := pr.walk(i)
	for k := range rp.w[i].parts {
		ri, ok := w.at(k)
		if !ok {
			if !trailingStays {
				return false
			}
			continue
		}
		switch pr.results[ri].fate {
		case fateKeep, fateConflict, fateExternal:
		default:
			return false
		}
	}
	return true
}

// resultPath returns where the result call ci keeps is in the original.
func (rp *repairer) resultPath(pr *pairing, ci int) string {
	r := pr.results[pr.calls[ci].res]
	p := rp.w[r.m].parts[r.k]
	return rp.origPath(p.om, p.op)
}

// secondReason says why r, a second result of its call, became a note.
func (rp *repairer) secondReason(pr *pairing, r resRef) string {
	c := pr.calls[r.dupOf]
	kept := rp.resultPath(pr, r.dupOf)
	switch {
	case rp.pol.Duplicates == KeepLast && before(r, pr.results[c.res]):
		return fmt.Sprintf("call %s (%s) has two different results; by the Duplicates policy the last, %s, is kept: kept this one's content as a user note", quoteID(c.id), c.name, kept)
	case rp.pol.Duplicates == KeepFirst && !rp.afterRun(pr, r):
		return fmt.Sprintf("call %s (%s) has two different results; by the Duplicates policy the first, %s, is kept: kept this one's content as a user note", quoteID(c.id), c.name, kept)
	}
	return fmt.Sprintf("a second result of call %s (%s), after the results that follow the call (its result is %s): kept its content as a user note, as for a result without a call", quoteID(c.id), c.name, kept)
}

// before reports whether result a comes before result b.
func before(a, b resRef) bool { return a.m < b.m || (a.m == b.m && a.k < b.k) }

// afterRun reports whether result r stands after the run of results of
// the call it duplicates.
func (rp *repairer) afterRun(pr *pairing, r resRef) bool {
	t := pr.turns[pr.calls[r.dupOf].turn]
	for j := t.last + 1; j < r.m; j++ {
		if rp.w[j].role != llm.RoleTool {
			return true
		}
	}
	return false
}

// secondNoteText is the note a second result of a call becomes.
func secondNoteText(r llm.ToolResult) string {
	return noteHead(r, "[toolwire: a second result of a call answered earlier in this conversation, kept as a note")
}

func noteText(r llm.ToolResult) string {
	return noteHead(r, "[toolwire: a tool result with no matching call in this conversation, kept as a note")
}

// noteHead writes the note a result becomes: head, what identifies the
// result, and its text.
func noteHead(r llm.ToolResult, head string) string {
	var b strings.Builder
	b.WriteString(head)
	if r.CallID != "" {
		b.WriteString("; call id " + r.CallID)
	}
	if r.Name != "" {
		b.WriteString("; tool " + r.Name)
	}
	if r.Status != "" && r.Status != llm.StatusSuccess {
		b.WriteString("; status " + string(r.Status))
	}
	b.WriteString("]")
	for _, p := range r.Content {
		if t, ok := p.(llm.Text); ok && t.Text != "" {
			b.WriteString("\n")
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ---- stage 5: the dialect's fix-ups after pairing ----

// A post takes the repaired messages in order, as rebuild emits them,
// applies the fix-ups that need the repaired order, and writes the llm
// messages Repair returns: the dialect's items hook edits each assistant
// message, and with firstUser the messages start with a user turn. Its
// changes come after all of pairing's.
type post struct {
	rp      *repairer
	out     []llm.Message
	changes []Change
	first   int  // index in out of the first message that is not a system message, or -1
	firstM  wmsg // that message
	// startCall: the model turn the messages start with (the first
	// message, and the assistant messages right after it) makes calls;
	// startOpen: the messages so far are that turn's.
	startCall, startOpen bool
	// The state of the items hook (Responses): item ids so far, and
	// whether to clear the item ids of calls (OAI-RS-REASONING-PAIR).
	seen     map[string]bool
	clearIDs bool
	edit     wmsg // the copy of a message the items hook edits
	// The window of messages the dialect's final hook may fix: out[from:],
	// the messages after the last one the dialect's finalFrom starts it
	// after, whose parts (with where they came from) parts holds. Only
	// these are kept: the hook fixes the end of the conversation.
	from  int
	parts [][]wpart
}

func (rp *repairer) newPost(n int) *post {
	return &post{rp: rp, out: make([]llm.Message, 0, n), first: -1}
}

func (ps *post) change(rule RuleID, path string, a Action, reason string) {
	ps.changes = append(ps.changes, Change{Rule: rule, Path: path, Action: a, Reason: reason})
}

// take takes the next repaired message; it does not keep m.
func (ps *post) take(m *wmsg) {
	d := ps.rp.d
	if ps.first < 0 && m.role != llm.RoleSystem {
		ps.first, ps.firstM = len(ps.out), *m
		ps.startOpen = m.role == llm.RoleAssistant
	}
	if ps.startOpen {
		if m.role == llm.RoleAssistant {
			ps.startCall = ps.startCall || hasCallPart(*m)
		} else if m.role != llm.RoleSystem {
			ps.startOpen = false
		}
	}
	if d.items != nil && m.role == llm.RoleAssistant {
		ps.edit = *m // items edits it; a field, so that the copy is not an allocation per message
		d.items(ps, &ps.edit)
		m = &ps.edit
	}
	ps.out = append(ps.out, ps.rp.message(m))
	switch {
	case d.final == nil:
	case d.finalFrom(m):
		ps.from, ps.parts = len(ps.out), ps.parts[:0]
	default:
		ps.parts = append(ps.parts, m.parts)
	}
}

// partsOf returns the parts of message i of out, i >= ps.from, with where
// they came from.
func (ps *post) partsOf(i int) []wpart { return ps.parts[i-ps.from] }

// set replaces part k of message i of out (i >= ps.from) with p (nil:
// drops it). The message may be the input's: it gets new parts.
func (ps *post) set(i, k int, p llm.Part) {
	m := ps.out[i]
	parts := make([]llm.Part, 0, len(m.Parts))
	wparts := make([]wpart, 0, len(m.Parts))
	for j, q := range m.Parts {
		w := ps.partsOf(i)[j]
		if j == k {
			if p == nil {
				continue
			}
			q, w.p = p, p
		}
		parts = append(parts, q)
		wparts = append(wparts, w)
	}
	ps.out[i] = llm.Message{Role: m.Role, Parts: parts}
	ps.parts[i-ps.from] = wparts
}

// insert inserts p, made by Repair, before part k of message i of out
// (i >= ps.from).
func (ps *post) insert(i, k int, p llm.Part) {
	m := ps.out[i]
	parts := make([]llm.Part, 0, len(m.Parts)+1)
	parts = append(append(append(parts, m.Parts[:k]...), p), m.Parts[k:]...)
	old := ps.partsOf(i)
	wparts := make([]wpart, 0, len(parts))
	wparts = append(append(append(wparts, old[:k]...), wpart{p: p, om: -1, op: -1}), old[k:]...)
	ps.out[i] = llm.Message{Role: m.Role, Parts: parts}
	ps.parts[i-ps.from] = wparts
}

// finish returns the messages, and puts the changes after rp's.
func (ps *post) finish() []llm.Message {
	if rp := ps.rp; rp.d.final != nil {
		rp.d.final(ps)
	}
	if rp := ps.rp; rp.d.firstUser != "" && ps.startCall && !rp.req.CachedContent {
		ps.change(rp.d.firstUser, rp.msgPath(ps.firstM), ActionInsert, fmt.Sprintf("the contents started with a function-call turn: inserted a user turn reading %q before it", rp.pol.Placeholder))
		u := wmsg{role: llm.RoleUser, parts: []wpart{{p: llm.Text{Text: rp.pol.Placeholder}, om: -1, op: -1}}, om: -1, changed: true}
		ps.out = append(ps.out, llm.Message{})
		copy(ps.out[ps.first+1:], ps.out[ps.first:])
		ps.out[ps.first] = rp.message(&u)
	}
	ps.rp.changes = append(ps.rp.changes, ps.changes...)
	return ps.out
}

// hasResultPart reports whether m holds a tool result.
func hasResultPart(m wmsg) bool {
	return slices.ContainsFunc(m.parts, func(p wpart) bool { _, ok := p.p.(llm.ToolResult); return ok })
}

func hasCallPart(m wmsg) bool {
	for _, p := range m.parts {
		if _, ok := p.p.(llm.ToolCall); ok {
			return true
		}
	}
	return false
}

// ---- stage 6: tool names ----

// names renames the tools whose names the dialect rejects, in
// definitions, calls and results alike.
func (rp *repairer) names() {
	bad := rp.d.badName
	var rename map[string]string
	var used map[string]bool
	var order, where []string
	consider := func(name, path string) {
		if _, done := rename[name]; done {
			return
		}
		if used == nil {
			used = rp.toolNames()
			rename = map[string]string{}
		}
		rename[name] = newToolName(name, rp.d.toolName, used)
		order = append(order, name)
		where = append(where, path)
	}
	for k, t := range rp.tools {
		if bad(t.Name, true) {
			consider(t.Name, rp.d.pathOfTool(k)+".name")
		}
	}
	for i := range rp.w {
		for _, p := range rp.w[i].parts {
			tc, ok := p.p.(llm.ToolCall)
			if !ok || !bad(tc.Name, false) {
				continue
			}
			path := rp.origPath(p.om, p.op)
			if path != "" {
				path += "." + rp.d.callName
			}
			consider(tc.Name, path)
		}
	}
	if len(rename) == 0 {
		return
	}
	for k, old := range order {
		rp.change(rp.d.nameRule, where[k], ActionRenameTool, fmt.Sprintf("renamed tool %q to %q in definitions, calls and results (the dialect rejects the name); map it back when dispatching calls", old, rename[old]))
	}
	if len(rp.tools) > 0 {
		tools := make([]llm.ToolSpec, len(rp.tools))
		copy(tools, rp.tools)
		for k := range tools {
			if n, ok := rename[tools[k].Name]; ok {
				tools[k].Name = n
			}
		}
		rp.tools = tools
	}
	for i := range rp.w {
		m := &rp.w[i]
		for k, p := range m.parts {
			switch pp := p.p.(type) {
			case llm.ToolCall:
				if n, ok := rename[pp.Name]; ok {
					pp.Name = n
					m.parts[k].p = pp
					m.changed = true
				}
			case llm.ToolResult:
				if n, ok := rename[pp.Name]; ok {
					pp.Name = n
					m.parts[k].p = pp
					m.changed = true
				}
			}
		}
	}
}

// toolNames returns the set of tool names the request uses, in
// definitions and calls.
func (rp *repairer) toolNames() map[string]bool {
	used := map[string]bool{}
	for _, t := range rp.tools {
		used[t.Name] = true
	}
	for _, m := range rp.w {
		for _, p := range m.parts {
			if tc, ok := p.p.(llm.ToolCall); ok {
				used[tc.Name] = true
			}
		}
	}
	return used
}

// newToolName derives a name the dialect takes from old, not in used,
// and adds it to used: at most 64 bytes, "_2", "_3", ... against
// collisions.
func newToolName(old string, nr nameRules, used map[string]bool) string {
	b := make([]byte, 0, len(old))
	for i := 0; i < len(old); i++ {
		c := old[i]
		if callid.Safe(c) || strings.IndexByte(nr.extra, c) >= 0 {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	if len(b) == 0 {
		b = append(b, "tool"...)
	}
	if nr.letterFirst && !(b[0] == '_' || ('a' <= b[0] && b[0] <= 'z') || ('A' <= b[0] && b[0] <= 'Z')) {
		b = append([]byte{'_'}, b...)
	}
	base := string(b)
	if len(base) > 64 {
		base = base[:64]
	}
	name := base
	for n := 2; used[name]; n++ {
		suffix := "_" + strconv.Itoa(n)
		cut := base
		if len(cut)+len(suffix) > 64 {
			cut = cut[:64-len(suffix)]
		}
		name = cut + suffix
	}
	used[name] = true
	return name
}

// ---- stage 7: tool definitions ----

// dupTools drops a tool definition that repeats an earlier one exactly,
// where the dialect rejects a name defined twice (ANT-DUP-TOOL,
// GEM-DUP-TOOL); two different definitions under one name are left for
// the caller, who knows which one calls mean. Where a repeated name is a
// warning (OpenAI), the tools are left alone.
func (rp *repairer) dupTools() {
	dt := rp.d.dupTool
	if dt.warning || dt.rule == "" {
		return
	}
	var tools []llm.ToolSpec
	for k, t := range rp.tools {
		if x := firstTool(rp.tools, k); x >= 0 && sameSpec(t, rp.tools[x]) {
			if tools == nil {
				tools = append(make([]llm.ToolSpec, 0, len(rp.tools)), rp.tools[:k]...)
			}
			rp.change(dt.rule, rp.d.pathOfTool(k)+".name", ActionDrop, fmt.Sprintf("dropped the second definition of tool %q, the same as tools.%d", t.Name, x))
			continue
		}
		if tools != nil {
			tools = append(tools, t)
		}
	}
	if tools != nil {
		rp.tools = tools
	}
}

// strict turns strict mode off for OpenAI tools whose schema strict mode
// rejects: rewriting the schema would change what the tool accepts.
func (rp *repairer) strict() {
	if !rp.d.strict {
		return
	}
	var tools []llm.ToolSpec
	for k, t := range rp.tools {
		if !t.Strict {
			continue
		}
		vs := CheckStrictSchema(t.Name, t.Parameters, "")
		if len(vs) == 0 {
			continue
		}
		if tools == nil {
			tools = make([]llm.ToolSpec, len(rp.tools))
			copy(tools, rp.tools)
		}
		tools[k].Strict = false
		rp.change(vs[0].Rule, rp.d.pathOfTool(k)+".strict", ActionDrop, fmt.Sprintf("turned strict mode off for tool %s: its schema breaks %d strict-mode rule(s) (first: %s); fix the schema to turn it back on", t.Name, len(vs), vs[0].Rule))
	}
	if tools != nil {
		rp.tools = tools
	}
}
