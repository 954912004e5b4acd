// Package transcript knows what each provider accepts in a conversation
// history: Check reports every rule a transcript breaks, with the rule IDs
// of docs/provider-rules.md, and Repair fixes what can be fixed without
// inventing outcomes.
//
// Each dialect's rules are one value of type dialect, in the dialect's own
// file (chat.go, responses.go, anthropic.go, gemini.go): where its body
// puts messages and parts, how it pairs calls with results, which ids and
// tool names it takes, the checks of its own it runs, and the tables of
// models its rules depend on. Layout, Check and Repair are written once
// and read that value; a new dialect is a new file and a line in
// [Dialects].
package transcript

import (
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/llm"
)

// Dialect names a provider API's request format. The dialects are
// OpenAIChat, OpenAIResponses, Anthropic and Gemini.
type Dialect string

// dialects is every dialect's rules, in the order of [Dialects].
var dialects = []*dialect{chat, responses, anthropic, gemini}

// Dialects returns every dialect, in a new slice.
func Dialects() []Dialect {
	out := make([]Dialect, len(dialects))
	for i, d := range dialects {
		out[i] = d.name
	}
	return out
}

// ParseDialect returns the dialect named s.
func ParseDialect(s string) (Dialect, error) {
	if d := rulesOf(Dialect(s)); d != nil {
		return d.name, nil
	}
	return "", fmt.Errorf("transcript: unknown dialect %q (want %s)", s, dialectNames(""))
}

// dialectNames lists every dialect: "a, b, c and d" with last "and".
func dialectNames(last string) string {
	names := Dialects()
	var b strings.Builder
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1 && last != "":
			b.WriteString(" " + last + " ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(n))
	}
	return b.String()
}

// rulesOf returns the rules of dialect d, or nil for an unknown dialect.
func rulesOf(d Dialect) *dialect {
	for _, x := range dialects {
		if x.name == d {
			return x
		}
	}
	return nil
}

// A dialect is what Layout, Check and Repair know of one provider API.
// The zero value of a field means the dialect has no such rule. Every
// dialect's value is in its own file, with its rule IDs, the provider's
// error texts and the checks and repairs that are its alone.
type dialect struct {
	name Dialect

	// ---- Where an llm transcript goes in the body (Layout).

	// array is the body's message array: "messages", "input", "contents".
	array string
	// system is the top-level field that takes the system messages before
	// the first other message ("system", "systemInstruction"), or "" when
	// they stay in the array.
	system string
	// systemParts: the system field holds its parts in a "parts" array.
	systemParts bool
	// reasoning: the body has a place for reasoning (its own provider's;
	// see expressible).
	reasoning bool
	// place lays out message m at entry w of the array: it returns the
	// message's location and the next free entry, and sets the location
	// of each part in parts (one per part of m, each preset to dropped).
	// nil means the default layout: an entry per message, its parts in
	// member, a Gemini thought signature with the part it signs
	// (Anthropic, Gemini).
	place  func(d *dialect, m llm.Message, w int, parts []loc) (msg loc, next int)
	member member

	// ---- Pairing calls with results (Check's dialect pass and Repair).

	// pairing says where the results of a turn's calls must stand.
	pairing pairShape
	// mergeTurns: consecutive assistant messages are one turn.
	mergeTurns bool
	// turnPerAssistant: every assistant message starts a turn, with calls
	// or without (Anthropic: its results are due in the message after it).
	turnPerAssistant bool
	// splitsTurn, when set, reports whether assistant message m, which
	// follows one of a turn that makes calls, starts a turn of its own
	// instead of joining it.
	splitsTurn func(m *wmsg) bool
	// byName: a result answers a call by id, else by the tool's name, or
	// by position (Gemini: ids are optional, and may be shared).
	byName bool
	// storedCalls: a result may answer a call the input does not hold
	// (Responses: one of a stored response, or a call the llm form does
	// not model).
	storedCalls bool
	// The rules of pairing: a call without a result (unanswered), a
	// result without a call (orphan), a call's second result
	// (duplicate), results that do not stand where pairing wants them
	// (late), another result among them (foreign), and text before them
	// in their turn (resultFirst).
	unanswered, orphan, duplicate, late, foreign, resultFirst RuleID
	// response is what the dialect calls a result in a change's reason
	// ("response"); "" means "result".
	response string
	// noMix is the rule a message that mixes calls and results breaks
	// when the dialect has its own (Gemini: one content holds either);
	// the dialect's check reports it, and split appends to out the
	// messages Repair makes of such a message m.
	noMix RuleID
	split func(rp *repairer, m wmsg, out []wmsg) []wmsg
	// firstUser is the rule that the messages start with a user turn
	// (Gemini: a function-call turn follows a user turn); Repair inserts
	// one.
	firstUser RuleID

	// ---- Ids, tool names, content.

	ids idRules
	// badName reports whether the dialect rejects a tool of that name, in
	// a definition (def) or in a call; toolName says how Repair makes a
	// name it takes, and nameRule is the rule it repairs.
	badName  func(name string, def bool) bool
	toolName nameRules
	nameRule RuleID
	// toolPath is the format of a tool definition's path ("tools.%d"),
	// and callName the path of a call's tool name below the call's.
	toolPath, callName string
	// emptyRule is the rule a message with no content breaks ("": the
	// dialect takes empty messages); emptyDrop, when set, is the one under
	// which Repair drops such an assistant or system message.
	emptyRule, emptyDrop RuleID
	// emptyAssistant: an assistant message with no content is accepted
	// (Repair leaves it as it is unless it emptied it itself).
	emptyAssistant bool
	// text, when set, repairs the text of m before the empty-content rule
	// applies and returns how many parts of m the dialect can express
	// (Anthropic: empty and whitespace-only text blocks).
	text func(rp *repairer, m *wmsg) int
	// resultImages is the rule that results hold no images; Repair moves
	// them into a user message after the results.
	resultImages RuleID
	// lateSystem is the rule a system message after the first other one
	// breaks when Repair moves it to the system field, systemName that
	// field as a change names it; keepsLateSystem reports whether the
	// request's model takes such messages where they are.
	lateSystem      RuleID
	systemName      string
	keepsLateSystem func(model string) bool
	// strict: the provider enforces OpenAI's strict mode on tools that
	// ask for it; Repair turns it off where a schema breaks it.
	strict bool
	// dupTool is what a tool defined twice under one name breaks.
	dupTool dupToolRule
	// unrepairable lists the rules of the dialect that only information
	// the transcript does not have can fix.
	unrepairable []RuleID

	// thinking is the rule extended thinking (Request.Thinking) adds;
	// when Repair's output still breaks it, Repair turns thinking off.
	thinking RuleID

	// ---- The dialect's own checks and repairs.

	// check runs the dialect's checks of the messages, and checkTools
	// those of the tool definitions.
	check      func(c *checker)
	checkTools func(c *checker)
	// arrange, when set, moves parts inside assistant turns before
	// pairing (Anthropic: text after a tool_use).
	arrange func(rp *repairer)
	// items, when set, fixes each repaired assistant message as Repair
	// writes it, knowing those before it (Responses: item ids).
	items func(ps *post, m *wmsg)
	// final, when set, fixes the repaired messages at the end of the
	// conversation once they are all written, before firstUser
	// (Anthropic: the text that ends a prefill; Gemini: thought
	// signatures of the current turn). It may fix only the messages after
	// the last one finalFrom reports (post.from on).
	final     func(ps *post)
	finalFrom func(m *wmsg) bool
}

// A pairShape says where the results of a turn's calls must stand.
type pairShape uint8

const (
	// pairRun: each in the run of tool messages right after the turn,
	// in any order (Chat Completions).
	pairRun pairShape = iota
	// pairAfter: anywhere after the call, paired by id (Responses).
	pairAfter
	// pairNextTurn: in the user turn right after the call's turn
	// (consecutive user messages are one turn), before its other content
	// when the dialect has resultFirst (Anthropic, Gemini).
	pairNextTurn
)

// idRules are a dialect's rules for call ids, and how Repair makes ids
// it accepts (with internal/callid, the scheme the encoders share).
type idRules struct {
	// keep: Repair never rewrites an id (Gemini's are optional, and
	// matched by name as well); it gives a result without one its call's
	// id where that id is its call's alone.
	keep bool
	// prefix starts a made id: "call_", "toolu_".
	prefix string
	// max is the longest id Repair makes, in characters.
	max int
	// valid, when set, reports whether the dialect takes id; invalid is
	// the rule an id it refuses breaks.
	valid   func(id string) bool
	invalid RuleID
	// missing is the rule a call without an id breaks, tooLong one whose
	// id is longer than max (when the dialect rejects it), reused a
	// second call with an earlier call's id.
	missing, tooLong, reused RuleID
	// reusedTurn: reused is an id used twice in one turn; an id a later
	// turn reuses is a warning, which Repair leaves (Anthropic).
	reusedTurn bool
	// result is the rule under which a result without a call id gets its
	// call's; nameMatch, when set, the rule that a result names its
	// call's tool (Repair makes it so).
	result, nameMatch RuleID
}

// nameRules say how Repair derives a tool name a dialect takes: bytes
// outside [a-zA-Z0-9_-] and extra become "_", and with letterFirst a name
// that does not start with a letter or "_" gets one.
type nameRules struct {
	extra       string
	letterFirst bool
}

// dupToolRule is what a tool defined under an earlier one's name breaks.
// A warning leaves the definitions alone; otherwise Repair drops an exact
// repeat.
type dupToolRule struct {
	rule    RuleID
	warning bool
	// providerError is the provider's text, with {name}; say ends the
	// message.
	providerError, say string
}

// resultWord is what the dialect calls a result.
func (d *dialect) resultWord() string {
	if d.response != "" {
		return d.response
	}
	return "result"
}

// pathOfTool returns the path of tool definition k.
func (d *dialect) pathOfTool(k int) string { return fmt.Sprintf(d.toolPath, k) }
