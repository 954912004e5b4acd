package transcript

import (
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/llm"
)

// ---- Anthropic: text after tool_use ----

// antCallsLast repairs text that follows a tool_use in the same Anthropic
// assistant turn (consecutive assistant messages are one turn), which the
// Messages API rejects as a tool_use without its tool_result
// (ANT-RESULT-NEXT): the turn's tool_use blocks must come last, directly
// before the tool_result blocks of the next message.
//
// Which way the text goes keeps the conversation's meaning. Text in the
// message of a tool_use was written in the same response as the call,
// before any result existed: it moves before the turn's first tool_use
// (after the thinking that opens the turn, if any). So does text in a later
// assistant message of the turn when the next message answers the turn's
// calls: it too was written before their results. When nothing answers
// them, a later assistant message is a response that came after results
// the transcript lost: it stays where it is, and pairing ends the turn
// before it, so that the calls' results go in between.
func (rp *repairer) antCallsLast() {
	if rp.d != Anthropic {
		return
	}
	for a := 0; a < len(rp.w); {
		if rp.w[a].role != llm.RoleAssistant {
			a++
			continue
		}
		b := a + 1
		for b < len(rp.w) && rp.w[b].role == llm.RoleAssistant {
			b++
		}
		if !rp.antTextAfterCall(a, b) {
			a = b
			continue
		}
		if rp.antAnswered(a, b) {
			a = rp.antMoveText(a, b)
			continue
		}
		// Unanswered: the turns pairing makes of the run, split where
		// antSplitsTurn says; in each, only text in the message of a call
		// can follow it. From the last, so that indices hold.
		var starts []int
		calls := false
		for i := a; i < b; i++ {
			if i == a || calls && antSplitsTurn(&rp.w[i]) {
				starts = append(starts, i)
				calls = false
			}
			calls = calls || hasCallPart(rp.w[i])
		}
		end := b
		for k := len(starts) - 1; k >= 0; k-- {
			if rp.antTextAfterCall(starts[k], end) {
				rp.antMoveText(starts[k], end)
			}
			end = starts[k]
		}
		a = b
	}
}

// antTextAfterCall reports whether the assistant messages rp.w[a:b] hold
// non-empty text after a tool_use.
func (rp *repairer) antTextAfterCall(a, b int) bool {
	call := false
	for i := a; i < b; i++ {
		for _, p := range rp.w[i].parts {
			switch p := p.p.(type) {
			case llm.ToolCall:
				call = true
			case llm.Text:
				if call && p.Text != "" {
					return true
				}
			}
		}
	}
	return false
}

// antMoveText moves the text after the first tool_use of the assistant
// turn rp.w[a:b] before it and returns the new end of the turn (messages
// left empty are dropped).
func (rp *repairer) antMoveText(a, b int) int {
	// The first tool_use of the turn.
	mc, pc := -1, -1
	for i := a; i < b && mc < 0; i++ {
		for k, p := range rp.w[i].parts {
			if _, ok := p.p.(llm.ToolCall); ok {
				mc, pc = i, k
				break
			}
		}
	}
	var moved []wpart
	var ids []string // the calls the moved text followed
	keep := make([][]wpart, b-mc)
	for i := mc; i < b; i++ {
		from := 0
		if i == mc {
			from = pc
		}
		m := &rp.w[i]
		for k, p := range m.parts {
			if k < from {
				continue
			}
			if tc, ok := p.p.(llm.ToolCall); ok {
				ids = append(ids, quoteID(tc.ID))
			}
			t, ok := p.p.(llm.Text)
			if ok && t.Text != "" {
				why := "it was written in the same response as the call, before any result existed"
				if i > mc {
					why = "the next message answers the turn's calls, so it was written before their results"
				}
				rp.change(ruleAntResultNext, rp.origPath(p.om, p.op), ActionMove, fmt.Sprintf(
					"moved text that followed tool_use %s in the same assistant turn before the turn's first tool_use: the Messages API wants the tool_use blocks last, directly before their tool_result blocks, and %s",
					strings.Join(ids, ", "), why))
				moved = append(moved, p)
				continue
			}
			keep[i-mc] = append(keep[i-mc], p)
		}
	}
	if len(moved) == 0 {
		return b
	}
	rp.dirty = true
	first := &rp.w[mc]
	parts := make([]wpart, 0, len(first.parts)+len(moved))
	parts = append(parts, first.parts[:pc]...)
	parts = append(parts, moved...)
	parts = append(parts, keep[0]...)
	first.parts, first.changed = parts, true
	// Later messages of the turn keep what did not move; one left empty
	// goes (its text is in the first message now).
	out := rp.w[:mc+1]
	for i := mc + 1; i < b; i++ {
		m := rp.w[i]
		if len(keep[i-mc]) == len(m.parts) {
			out = append(out, m)
			continue
		}
		if len(keep[i-mc]) == 0 {
			continue
		}
		m.parts, m.changed = keep[i-mc], true
		out = append(out, m)
	}
	end := len(out)
	rp.w = append(out, rp.w[b:]...)
	return end
}

// antAnswered reports whether the message after the assistant turn
// rp.w[a:b] answers one of its calls.
func (rp *repairer) antAnswered(a, b int) bool {
	if b >= len(rp.w) {
		return false
	}
	ids := map[string]bool{}
	for i := a; i < b; i++ {
		for _, p := range rp.w[i].parts {
			if tc, ok := p.p.(llm.ToolCall); ok {
				ids[tc.ID] = true
			}
		}
	}
	for _, p := range rp.w[b].parts {
		if r, ok := p.p.(llm.ToolResult); ok && ids[r.CallID] {
			return true
		}
	}
	return false
}

// antSplitsTurn reports whether assistant message m, which follows an
// assistant message of a turn that makes calls, starts a turn of its own
// in pairing rather than merging with it (Anthropic merges consecutive
// assistant messages): it holds text, which antCallsLast left after the
// calls because nothing answers them; the calls' results go before it.
func antSplitsTurn(m *wmsg) bool {
	for _, p := range m.parts {
		if t, ok := p.p.(llm.Text); ok && t.Text != "" {
			return true
		}
	}
	return false
}

// antEmptyUser fills a user message whose only content is empty text
// (content: "", ANT-NONEMPTY) with the placeholder text, in the place of
// its first empty text, and reports whether it did.
func (rp *repairer) antEmptyUser(m *wmsg) bool {
	if m.role != llm.RoleUser {
		return false
	}
	first := -1
	for k, p := range m.parts {
		if !expressible(p.p, Anthropic) {
			continue
		}
		if t, ok := p.p.(llm.Text); !ok || t.Text != "" {
			return false
		}
		if first < 0 {
			first = k
		}
	}
	if first < 0 {
		return false // no content at all: ANT-USER-NONEMPTY, in contentMsg
	}
	parts := make([]wpart, 0, len(m.parts))
	for k, p := range m.parts {
		switch {
		case k == first:
			parts = append(parts, wpart{p: llm.Text{Text: rp.pol.Placeholder}, om: p.om, op: p.op})
		case expressible(p.p, Anthropic):
			// another empty text: dropped
		default:
			parts = append(parts, p)
		}
	}
	rp.change(ruleAntNonEmpty, rp.msgPath(*m), ActionReplaceText, fmt.Sprintf("the user message had no content (its text was empty): it now reads %q", rp.pol.Placeholder))
	m.parts, m.changed = parts, true
	return true
}
