package transcript

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolwire/toolwire/llm"
)

// Anthropic is Anthropic Messages.
const Anthropic Dialect = "anthropic"

// Rule IDs of Anthropic Messages (docs/provider-rules.md).
const (
	ruleAntResultNext    RuleID = "ANT-RESULT-NEXT"
	ruleAntResultFirst   RuleID = "ANT-RESULT-FIRST"
	ruleAntNoOrphan      RuleID = "ANT-NO-ORPHAN-RESULT"
	ruleAntUniqueID      RuleID = "ANT-UNIQUE-TOOLUSE-ID"
	ruleAntSingleResult  RuleID = "ANT-SINGLE-RESULT"
	ruleAntIDPattern     RuleID = "ANT-ID-PATTERN"
	ruleAntToolName      RuleID = "ANT-TOOLNAME"
	ruleAntToolUseName   RuleID = "ANT-TOOLUSE-NAME"
	ruleAntTextNonEmpty  RuleID = "ANT-TEXT-NONEMPTY"
	ruleAntTextSpace     RuleID = "ANT-TEXT-WHITESPACE"
	ruleAntUserNonEmpty  RuleID = "ANT-USER-NONEMPTY"
	ruleAntNonEmpty      RuleID = "ANT-NONEMPTY"
	ruleAntFirstUser     RuleID = "ANT-FIRST-USER"
	ruleAntSystemRole    RuleID = "ANT-SYSTEM-ROLE"
	ruleAntThinkingFirst RuleID = "ANT-THINKING-FIRST"
	ruleAntMaxMessages   RuleID = "ANT-MAX-MESSAGES"
	ruleAntPrefillSpace  RuleID = "ANT-PREFILL-TRAILING-WS"
	ruleAntThinkingTool  RuleID = "ANT-THINKING-TOOLCHOICE"
	ruleAntImageType     RuleID = "ANT-IMAGE-MEDIA-TYPE"
	ruleAntNoMessages    RuleID = "ANT-EMPTY-MESSAGES" // [DERIVED]
	ruleAntDupTool       RuleID = "ANT-DUP-TOOL"       // [DERIVED]
)

// The provider's error texts, with placeholders for fill.
const (
	tmplAntResultNext   = "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	tmplAntNoOrphan     = "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
	tmplAntUniqueID     = "messages.{i}.content.{j}: `tool_use` ids must be unique"
	tmplAntSingle       = "each tool_use must have a single result. Found multiple `tool_result` blocks with id {id}"
	tmplAntIDPattern    = "messages.{i}.content.{j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
	tmplAntToolName     = "tools.{k}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
	tmplAntToolUseName  = "messages.{i}.content.{j}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
	tmplAntTextNonEmpty = "messages: text content blocks must be non-empty"
	tmplAntTextSpace    = "messages: text content blocks must contain non-whitespace text"
	tmplAntUserNonEmpty = "messages.{i}: user messages must have non-empty content"
	tmplAntNonEmpty     = "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
	tmplAntFirstUser    = `messages: first message must use the "user" role`
	tmplAntImageType    = "messages.{i}.content.{j}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
	tmplAntThinkingTool = "Thinking may not be enabled when tool_choice forces tool use."
	tmplAntPrefillSpace = "messages: final assistant content cannot end with trailing whitespace"
	tmplAntSystemRole   = "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role."
	tmplAntThinking     = "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

	// tmplAntDupTool is not in docs/provider-rules.md; the text is
	// Anthropic's own, quoted in anthropics/claude-code#10687 and
	// eclipse-theia/theia#16122.
	tmplAntDupTool = "tools: Tool names must be unique."
)

// anthropic is Anthropic Messages: consecutive messages of one role are
// one turn; the tool_result blocks of a turn's tool_use blocks open the
// next user turn, and the tool_use blocks end theirs; system prompts go to
// the top-level "system" field; ids match ^[a-zA-Z0-9_-]+$.
var anthropic = &dialect{
	name:      Anthropic,
	array:     "messages",
	system:    "system",
	reasoning: true,
	member:    memberContent,

	pairing:          pairNextTurn,
	mergeTurns:       true,
	turnPerAssistant: true,
	splitsTurn:       antSplitsTurn,
	unanswered:       ruleAntResultNext,
	orphan:           ruleAntNoOrphan,
	duplicate:        ruleAntSingleResult,
	late:             ruleAntResultNext,
	foreign:          ruleAntNoOrphan,
	resultFirst:      ruleAntResultFirst,

	ids: idRules{prefix: "toolu_", max: 64, valid: idOK, invalid: ruleAntIDPattern,
		missing: ruleAntIDPattern, reused: ruleAntUniqueID, reusedTurn: true, result: ruleAntNoOrphan},
	badName:  func(name string, def bool) bool { return !nameOK(name, 128) },
	nameRule: ruleAntToolName,
	toolPath: "tools.%d",
	callName: "name",

	emptyRule:       ruleAntUserNonEmpty,
	emptyDrop:       ruleAntTextNonEmpty,
	emptyAssistant:  true,
	text:            antText,
	lateSystem:      ruleAntSystemRole,
	systemName:      "the top-level system field",
	keepsLateSystem: func(model string) bool { return antMidSystem(model) == antAccepts },
	dupTool: dupToolRule{rule: ruleAntDupTool, providerError: tmplAntDupTool,
		say: "; tool names must be unique in a request"},
	thinking:     ruleAntThinkingFirst,
	unrepairable: []RuleID{ruleAntNoMessages, ruleAntMaxMessages, ruleAntDupTool, ruleAntThinkingTool, ruleAntImageType},

	check:      checkAnthropic,
	checkTools: checkAnthropicTools,
	arrange:    antCallsLast,
	final:      antTrimPrefill,
	finalFrom:  func(m *wmsg) bool { return m.role != llm.RoleAssistant }, // a prefill is the last assistant turn
}

// antTurn is a run of consecutive messages with the same wire role, which
// Anthropic merges into one turn (ANT-MERGE-CONSECUTIVE); a system message
// is a turn of its own. Its role is that of its first message (see
// checker.turnRole).
type antTurn struct {
	start, end int // message indices [start, end)
}

// turnRole is the wire role of t: user (user and tool messages),
// assistant, or system.
func (c *checker) turnRole(t antTurn) llm.Role { return antRole(c.msgs[t.start].Role) }

func antRole(r llm.Role) llm.Role {
	if r == llm.RoleTool {
		return llm.RoleUser
	}
	return r
}

// antTurnAt returns the turn that starts at message i; at the end of the
// messages, the empty turn {len(c.msgs), len(c.msgs)}.
func (c *checker) antTurnAt(i int) antTurn {
	end := i
	if i < len(c.msgs) {
		end = i + 1
		if r := antRole(c.msgs[i].Role); r != llm.RoleSystem {
			for end < len(c.msgs) && antRole(c.msgs[end].Role) == r {
				end++
			}
		}
	}
	return antTurn{start: i, end: end}
}

// antTurns returns the turns of the messages after the leading system
// messages (which go to the system field).
func (c *checker) antTurns() []antTurn {
	first := firstNonSystem(c.msgs)
	turns := make([]antTurn, 0, len(c.msgs)-first)
	for t := c.antTurnAt(first); t.start < len(c.msgs); t = c.antTurnAt(t.end) {
		turns = append(turns, t)
	}
	return turns
}

// checkAnthropic pairs the tool_use blocks of each assistant turn with the
// tool_result blocks at the start of the next user turn, and checks ids,
// names, text blocks, system messages and extended thinking.
func checkAnthropic(c *checker) {
	first := firstNonSystem(c.msgs)
	n := len(c.msgs) - first // every message after the leading system ones is an entry
	if n == 0 {
		c.add(Violation{Rule: ruleAntNoMessages, Path: "messages", Message: "the request has no messages (system prompts go to the top-level system field); Anthropic needs at least one user message"})
	}
	if n > 100000 {
		c.add(Violation{Rule: ruleAntMaxMessages, Path: "messages", Message: c.sprintf("the request has %d messages; Anthropic allows at most 100,000", n)})
	}
	if first < len(c.msgs) && antRole(c.msgs[first].Role) == llm.RoleAssistant {
		c.add(Violation{Rule: ruleAntFirstUser, Path: c.msgPath(first), Warning: true,
			Message:       c.sprintf("the first message %s is an assistant message; the API used to require a user message first and still recommends one", c.msgPath(first)),
			ProviderError: tmplAntFirstUser})
	}
	// System prompts: empty text blocks.
	for i := 0; i < first; i++ {
		for j, p := range c.msgs[i].Parts {
			if t, ok := p.(llm.Text); ok && t.Text == "" {
				c.add(Violation{Rule: ruleAntTextNonEmpty, Path: "system", Message: c.sprintf("system message %d, part %d is an empty text block", i, j), ProviderError: tmplAntTextNonEmpty})
			}
		}
	}
	// tool_use id -> its first use. The map is made here, not taken from
	// the checker (idPlaces, which Chat's check uses): through the checker
	// it cost Check 1% (callgrind, Check 10k).
	ids := make(map[string][2]int, c.calls)
	type call struct {
		i, j     int
		id       string
		answered bool
	}
	var prev []call // calls of the previous turn, when it was an assistant turn
	var buf []call  // the array of prev, reused: only the turn after prev's reads it
	// The turns one by one, each with the turn after it.
	for next := c.antTurnAt(first); next.start < len(c.msgs); {
		turn := next
		next = c.antTurnAt(turn.end) // none after the last: the empty turn at the end
		expect := prev
		prev = nil
		switch c.turnRole(turn) {
		case llm.RoleSystem:
			c.antSystem(turn.start, next)
		case llm.RoleAssistant:
			calls := buf[:0]
			before, ti, tj := 0, -1, -1 // calls before the last text after a call; the first such text
			for i := turn.start; i < turn.end; i++ {
				c.antContent(i, i == len(c.msgs)-1)
				for j, p := range c.msgs[i].Parts {
					switch p := p.(type) {
					case llm.ToolCall:
						calls = append(calls, call{i: i, j: j, id: p.ID})
						c.antCall(i, j, p, ids, turn.start)
					case llm.Text:
						if len(calls) > 0 && p.Text != "" {
							before = len(calls)
							if ti < 0 {
								ti, tj = i, j
							}
						}
					}
				}
			}
			callIDs := func(n int) []string {
				out := make([]string, n)
				for k := range out {
					out[k] = calls[k].id
				}
				return out
			}
			if ti >= 0 {
				c.antTextAfterCall(ti, tj, callIDs(before), next.start)
			}
			if len(calls) > 0 && (next.start == len(c.msgs) || c.turnRole(next) != llm.RoleUser) {
				c.antUnanswered(calls[0].i, callIDs(len(calls)), next.start)
			}
			prev, buf = calls, calls[:0]
		case llm.RoleUser:
			text := false
			for i := turn.start; i < turn.end; i++ {
				c.antContent(i, false)
				for j, p := range c.msgs[i].Parts {
					r, ok := p.(llm.ToolResult)
					if !ok {
						if expressible(p, c.d) {
							text = true
						}
						continue
					}
					path := func() string { return c.partPath(i, j) }
					wi := func() string { x, _ := c.partWire(i, j); return x }
					wj := func() string { _, y := c.partWire(i, j); return y }
					k := -1
					for n := range expect {
						if expect[n].id == r.CallID && r.CallID != "" {
							k = n
							break
						}
					}
					switch {
					case k < 0:
						why := "the previous message is not an assistant message with tool_use blocks"
						if len(expect) > 0 {
							why = fmt.Sprintf("the previous assistant turn (%s) has no tool_use with that id", c.msgPath(expect[0].i))
						}
						c.add(Violation{Rule: ruleAntNoOrphan, Path: path(),
							Message:       c.sprintf("the tool_result %s answers %s, but %s; a tool_result must answer a tool_use of the message right before it", path(), quoteID(r.CallID), why),
							ProviderError: c.fill(tmplAntNoOrphan, "{i}", wi(), "{j}", wj(), "{id}", r.CallID)})
						continue
					case expect[k].answered:
						c.add(Violation{Rule: ruleAntSingleResult, Path: path(),
							Message:       c.sprintf("the tool_result %s answers %s a second time; each tool_use takes one tool_result", path(), r.CallID),
							ProviderError: c.fill(tmplAntSingle, "{id}", r.CallID)})
						continue
					}
					expect[k].answered = true
					if text {
						c.antResultFirst(i, j, r.CallID, expect[k].i)
					}
				}
			}
			var missing []string
			at := -1
			for _, cl := range expect {
				if !cl.answered {
					missing = append(missing, cl.id)
					if at < 0 {
						at = cl.i
					}
				}
			}
			if len(missing) > 0 {
				c.antUnanswered(at, missing, turn.start)
			}
		}
	}
	c.antPrefill(first)
	if c.req.Thinking {
		c.antThinking(c.antTurns())
		c.antThinkingTool()
	}
}

// antThinkingTool checks ANT-THINKING-TOOLCHOICE: with extended thinking
// on, tool_choice may only be auto or none; any and tool force a call.
func (c *checker) antThinkingTool() {
	tc := c.req.ToolChoice
	forced := `{"type": "any"}`
	switch {
	case tc.Name != "":
		forced = fmt.Sprintf(`{"type": "tool", "name": %q}`, tc.Name)
	case tc.Mode != llm.ToolRequired:
		return
	}
	c.add(Violation{Rule: ruleAntThinkingTool, Path: "tool_choice",
		Message:       c.sprintf("extended thinking is on and tool_choice is %s, which forces a tool call; with thinking, Anthropic takes only auto or none: let the model choose (auto), or turn thinking off for this request", forced),
		ProviderError: tmplAntThinkingTool})
}

// antPrefill checks ANT-PREFILL-TRAILING-WS: when the messages end with an
// assistant turn (a prefill the model continues), the last block of that
// turn, if it is text, may not end in white space. A whitespace-only text
// that is its message's only content is ANT-TEXT-WHITESPACE's.
func (c *checker) antPrefill(first int) {
	i, j := lastAntBlock(c.msgs, first, c.d)
	if i < 0 {
		return
	}
	t, ok := c.msgs[i].Parts[j].(llm.Text)
	if !ok || !endsInSpace(t.Text) || blank(t.Text) && antBlocks(c.msgs[i], c.d) == 1 {
		return
	}
	c.add(Violation{Rule: ruleAntPrefillSpace, Path: c.partPath(i, j),
		Message:       c.sprintf("the request ends with an assistant message (a prefill the model continues), and its text %s ends in white space; Anthropic rejects that: trim it", c.partPath(i, j)),
		ProviderError: tmplAntPrefillSpace})
}

// lastAntBlock returns the message and part index of the last block of
// the assistant turn the messages (from first) end with, or -1, -1 when
// they do not end with one or it has no block.
func lastAntBlock(msgs []llm.Message, first int, d *dialect) (int, int) {
	for i := len(msgs) - 1; i >= first && msgs[i].Role == llm.RoleAssistant; i-- {
		for j := len(msgs[i].Parts) - 1; j >= 0; j-- {
			if expressible(msgs[i].Parts[j], d) {
				return i, j
			}
		}
	}
	return -1, -1
}

// antBlocks returns the number of blocks of m that Anthropic can express.
func antBlocks(m llm.Message, d *dialect) int {
	n := 0
	for _, p := range m.Parts {
		if expressible(p, d) {
			n++
		}
	}
	return n
}

// endsInSpace reports whether s ends in white space.
func endsInSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && unicode.IsSpace(r)
}

// antSystem checks ANT-SYSTEM-ROLE for the system message i after the
// conversation started, followed by turn next. Whether the Messages API
// takes it depends on the model (the model families below): models before
// Claude 4.1 reject it, Claude Opus 4.8, Opus 5, Fable 5 and Mythos 5
// accept it where Anthropic documents it (after a user message, and last
// or before an assistant message), and for any other model, or none named,
// it is a warning.
func (c *checker) antSystem(i int, next antTurn) {
	path := c.msgPath(i)
	model := c.req.Model
	switch antMidSystem(model) {
	case antRejects:
		c.add(Violation{Rule: ruleAntSystemRole, Path: path,
			Message:       c.sprintf("%s is a system message after the conversation started; %s takes system text only in the top-level system field", path, model),
			ProviderError: tmplAntSystemRole})
	case antUnknown:
		named := "the request names no model"
		if model != "" {
			named = fmt.Sprintf("toolwire does not know whether %s does", model)
		}
		c.add(Violation{Rule: ruleAntSystemRole, Path: path, Warning: true,
			Message:       c.sprintf("%s is a system message after the conversation started; Claude Opus 4.8, Opus 5, Fable 5 and Mythos 5 accept one, older models reject it, and %s (the top-level system field is safe with every model)", path, named),
			ProviderError: tmplAntSystemRole})
	case antAccepts:
		prev := llm.Role("")
		if i > 0 {
			prev = antRole(c.msgs[i-1].Role)
		}
		after := llm.Role("")
		if next.start < len(c.msgs) {
			after = c.turnRole(next)
		}
		if prev == llm.RoleUser && (after == "" || after == llm.RoleAssistant) || prev == llm.RoleAssistant && c.endsInServerTool(c.msgs[i-1]) {
			return
		}
		c.add(Violation{Rule: ruleAntSystemRole, Path: path, Warning: true,
			Message: c.sprintf("%s is a system message after the conversation started, which %s accepts where Anthropic documents it: after a user message (or an assistant message that ends in a server tool use), and last or before an assistant message", path, model)})
	}
}

// endsInServerTool reports whether the last block of m that Anthropic can
// express is one the llm form does not model, such as a server_tool_use.
func (c *checker) endsInServerTool(m llm.Message) bool {
	for j := len(m.Parts) - 1; j >= 0; j-- {
		if expressible(m.Parts[j], c.d) {
			_, ok := m.Parts[j].(llm.Opaque)
			return ok
		}
	}
	return false
}

// antUnanswered reports the calls ids of message i, which the turn at
// message next (len(c.msgs): none) does not answer.
func (c *checker) antUnanswered(i int, ids []string, next int) {
	v := Violation{Rule: ruleAntResultNext, Path: c.msgPath(i)}
	if !c.quiet { // the explanation and the provider's text have paths and lists of ids
		after := "the end of the transcript"
		if next < len(c.msgs) {
			after = c.describe(next)
		}
		v.Message = fmt.Sprintf("the assistant message %s has tool_use %s without a tool_result in the next user turn (%s); every tool_use needs its tool_result at the start of the very next message", v.Path, strings.Join(ids, ", "), after)
		v.ProviderError = fill(tmplAntResultNext, "{i}", c.wireIndex(i), "{ids}", strings.Join(ids, ", "))
	}
	c.add(v)
}

// antResultFirst reports ANT-RESULT-FIRST for the result of call id at
// part j of message i, after text in its user turn; the call is in message
// at. (A method of its own: written in checkAnthropic's loop over every
// part, it made Check 1% slower.)
func (c *checker) antResultFirst(i, j int, id string, at int) {
	v := Violation{Rule: ruleAntResultFirst, Path: c.partPath(i, j)}
	if !c.quiet { // the texts have paths
		v.Message = fmt.Sprintf("the tool_result %s for %s comes after text or images in the same user turn (consecutive user messages are merged into one turn); tool_result blocks must come first", v.Path, id)
		// Anthropic reports this case with the RESULT-NEXT text.
		v.ProviderError = fill(tmplAntResultNext, "{i}", c.wireIndex(at), "{ids}", id)
	}
	c.add(v)
}

// antTextAfterCall reports ANT-RESULT-NEXT for text at part j of message
// i, which follows the tool_use blocks ids in the same assistant turn: the
// Messages API wants an assistant turn's tool_use blocks last, directly
// before the tool_result blocks of the next message, and takes a text
// block after them as a missing result, even when the next message holds
// every one (the recorded 400 names the next message, next).
func (c *checker) antTextAfterCall(i, j int, ids []string, next int) {
	at := c.wireIndex(i)
	if next < len(c.msgs) {
		at = c.wireIndex(next)
	}
	c.add(Violation{Rule: ruleAntResultNext, Path: c.partPath(i, j),
		Message:       c.sprintf("%s is text after tool_use %s in the same assistant turn; the tool_use blocks must end the assistant turn, directly before their tool_result blocks: move the text before the first tool_use", c.partPath(i, j), strings.Join(ids, ", ")),
		ProviderError: c.fill(tmplAntResultNext, "{i}", at, "{ids}", strings.Join(ids, ", "))})
}

// antCall checks one tool_use block, in the assistant turn that starts at
// message turn; ids maps each id to its first use.
func (c *checker) antCall(i, j int, tc llm.ToolCall, ids map[string][2]int, turn int) {
	path := func() string { return c.partPath(i, j) }
	wi := func() string { x, _ := c.partWire(i, j); return x }
	wj := func() string { _, y := c.partWire(i, j); return y }
	if !idOK(tc.ID) {
		c.add(Violation{Rule: ruleAntIDPattern, Path: path() + ".id",
			Message:       c.sprintf("tool_use id %s does not match ^[a-zA-Z0-9_-]+$ (ids from other providers may hold '.', ':', '|' or '/')", quoteID(tc.ID)),
			ProviderError: c.fill(tmplAntIDPattern, "{i}", wi(), "{j}", wj())})
	} else if at, dup := ids[tc.ID]; dup && at[0] >= turn {
		// ANT-UNIQUE-TOOLUSE-ID: every recorded 400 points at a second
		// use in one assistant message (consecutive ones are merged).
		c.add(Violation{Rule: ruleAntUniqueID, Path: path() + ".id",
			Message:       c.sprintf("tool_use id %s is already used at %s, in the same assistant turn; tool_use ids must be unique within an assistant message", tc.ID, c.partPath(at[0], at[1])),
			ProviderError: c.fill(tmplAntUniqueID, "{i}", wi(), "{j}", wj())})
	} else if dup {
		// An id an earlier turn used, each use answered by its own
		// tool_result, was answered 200 (ANT-UNIQUE-TOOLUSE-ID).
		c.add(Violation{Rule: ruleAntUniqueID, Path: path() + ".id", Warning: true,
			Message: c.sprintf("tool_use id %s is already used at %s, in an earlier assistant turn; the Messages API accepts an id that a later assistant message reuses (a tool_result answers a tool_use of the message before it), but other providers pair results with calls by id across the whole request: give each call its own id", tc.ID, c.partPath(at[0], at[1]))})
		ids[tc.ID] = [2]int{i, j} // a third use in this turn is a duplicate in it
	} else {
		ids[tc.ID] = [2]int{i, j}
	}
	switch l := len(tc.Name); {
	case !nameOK(tc.Name, 128):
		c.add(Violation{Rule: ruleAntToolUseName, Path: path() + ".name",
			Message:       c.sprintf("tool_use %s names the tool %q; names must match ^[a-zA-Z0-9_-]{1,64}$", quoteID(tc.ID), tc.Name),
			ProviderError: c.fill(tmplAntToolUseName, "{i}", wi(), "{j}", wj())})
	case l > 64:
		c.add(Violation{Rule: ruleAntToolUseName, Path: path() + ".name", Warning: true,
			Message: c.sprintf("tool_use %s names a tool of %d characters; the API accepts up to 128 now, but the documented limit is 64", quoteID(tc.ID), l)})
	}
}

// antContent checks the text blocks of message i.
func (c *checker) antContent(i int, final bool) {
	m := &c.msgs[i]
	blocks, empty := 0, 0 // the blocks Anthropic can express, and the empty texts among them
	for j, p := range m.Parts {
		switch p := p.(type) {
		case llm.Text:
			blocks++
			if p.Text == "" {
				empty++
			}
		case llm.Image:
			blocks++
			c.antImage(i, j, -1, p)
		case llm.ToolResult:
			blocks++
			for k, q := range p.Content {
				if img, ok := q.(llm.Image); ok {
					c.antImage(i, j, k, img)
				}
			}
		default:
			if expressible(p, c.d) {
				blocks++
			}
		}
	}
	if blocks > 0 && empty == blocks && m.Role == llm.RoleUser {
		// content: "" (or empty text blocks only): the message is empty,
		// as the recorded 400 for a user message "" says.
		c.add(Violation{Rule: ruleAntNonEmpty, Path: c.msgPath(i),
			Message:       c.sprintf("the user message %s has no content: its text is empty", c.msgPath(i)),
			ProviderError: c.fill(tmplAntNonEmpty, "{i}", c.wireIndex(i))})
		return
	}
	if blocks == 0 {
		switch m.Role {
		case llm.RoleUser, llm.RoleTool:
			c.add(Violation{Rule: ruleAntUserNonEmpty, Path: c.msgPath(i),
				Message:       c.sprintf("the user message %s has no content", c.msgPath(i)),
				ProviderError: c.fill(tmplAntUserNonEmpty, "{i}", c.wireIndex(i))})
		case llm.RoleAssistant:
			if !final {
				c.add(Violation{Rule: ruleAntNonEmpty, Path: c.msgPath(i), Warning: true,
					Message:       c.sprintf("the assistant message %s has no content; only a final assistant message may be empty (the current API accepts it, older versions reject it)", c.msgPath(i)),
					ProviderError: c.fill(tmplAntNonEmpty, "{i}", c.wireIndex(i))})
			}
		}
		return
	}
	if empty == 0 && blocks > 1 {
		return // no empty text, and no text alone in its message
	}
	for j, p := range m.Parts {
		t, ok := p.(llm.Text)
		if !ok {
			continue
		}
		switch {
		case t.Text == "":
			c.add(Violation{Rule: ruleAntTextNonEmpty, Path: c.partPath(i, j),
				Message:       c.sprintf("%s is an empty text block; drop it", c.partPath(i, j)),
				ProviderError: tmplAntTextNonEmpty})
		case blocks == 1 && blank(t.Text):
			c.add(Violation{Rule: ruleAntTextSpace, Path: c.partPath(i, j),
				Message:       c.sprintf("%s is whitespace only and the only content of its message", c.partPath(i, j)),
				ProviderError: tmplAntTextSpace})
		}
	}
}

// antImage checks ANT-IMAGE-MEDIA-TYPE for image img, part j of message i
// (k < 0), or part k of the tool result there: the media type of an image
// given inline (base64) is jpeg, png, gif or webp.
func (c *checker) antImage(i, j, k int, img llm.Image) {
	mt, inline := inlineType(img)
	if !inline || !strings.HasPrefix(mt, "image/") || antImageType(mt) {
		return
	}
	path := c.partPath(i, j)
	if k >= 0 {
		path += ".content." + strconv.Itoa(k)
	}
	wi, wj := c.partWire(i, j)
	if k >= 0 {
		wj += ".content." + strconv.Itoa(k)
	}
	c.add(Violation{Rule: ruleAntImageType, Path: path + ".source.media_type",
		Message:       c.sprintf("the image %s is %q; Anthropic takes image/jpeg, image/png, image/gif and image/webp: convert it, or label it with the type its bytes are", path, mt),
		ProviderError: c.fill(tmplAntImageType, "{i}", wi, "{j}", wj)})
}

// antImageTypes are the media types of the images Anthropic takes.
var antImageTypes = [...]string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// antImageType reports whether Anthropic takes an image of media type mt.
func antImageType(mt string) bool {
	for _, t := range antImageTypes {
		if mt == t {
			return true
		}
	}
	return false
}

// inlineType returns the media type of img when its bytes are in the
// request (Data, or a data URL, which the encoders write as base64).
func inlineType(img llm.Image) (string, bool) {
	if len(img.Data) > 0 {
		return img.MediaType, true
	}
	rest, ok := strings.CutPrefix(img.URL, "data:")
	if !ok {
		return "", false
	}
	end := strings.IndexAny(rest, ";,")
	if end < 0 {
		return "", false
	}
	return rest[:end], true
}

// sniffImage returns the media type of the image types Anthropic takes
// that data starts like, or "".
func sniffImage(data []byte) string {
	s := string(data[:min(len(data), 12)])
	switch {
	case strings.HasPrefix(s, "\x89PNG\r\n\x1a\n"):
		return "image/png"
	case strings.HasPrefix(s, "\xff\xd8\xff"):
		return "image/jpeg"
	case strings.HasPrefix(s, "GIF87a"), strings.HasPrefix(s, "GIF89a"):
		return "image/gif"
	case len(s) == 12 && s[:4] == "RIFF" && s[8:] == "WEBP":
		return "image/webp"
	}
	return ""
}

// onlyResults reports whether user turn t holds tool results and nothing
// else Anthropic can express: a step of a tool loop, not a new question.
func (c *checker) onlyResults(t antTurn) bool {
	results := 0
	for i := t.start; i < t.end; i++ {
		for _, p := range c.msgs[i].Parts {
			if _, ok := p.(llm.ToolResult); ok {
				results++
			} else if expressible(p, c.d) {
				return false
			}
		}
	}
	return results > 0
}

// antThinking checks ANT-THINKING-FIRST. With extended thinking on, the
// assistant turn the request continues must start with a thinking block.
// A tool loop is one assistant turn: its steps (assistant messages, merged
// where consecutive) are separated by user messages that hold only tool
// results, and it starts after the last user message that is more than
// tool results (system messages in between do not end it). The request
// continues the turn when it ends with such results for the calls of the
// turn's last step; then the turn's first assistant message must start
// with a thinking or redacted_thinking block. Later steps need none:
// without interleaved thinking Claude thinks only at the start of a turn.
func (c *checker) antThinking(turns []antTurn) {
	n := len(turns)
	if n < 2 || c.turnRole(turns[n-1]) != llm.RoleUser || c.turnRole(turns[n-2]) != llm.RoleAssistant || !c.onlyResults(turns[n-1]) {
		return
	}
	k := n - 2 // the assistant turn the request continues
	called := false
	for i := turns[k].start; i < turns[k].end; i++ {
		called = called || hasCall(c.msgs[i])
	}
	if !called {
		return
	}
	// Walk back over the earlier steps of the loop; system turns between
	// do not end it.
	before := func(k int) int {
		k--
		for k >= 0 && c.turnRole(turns[k]) == llm.RoleSystem {
			k--
		}
		return k
	}
	for {
		u := before(k)
		if u < 0 || c.turnRole(turns[u]) != llm.RoleUser || !c.onlyResults(turns[u]) {
			break
		}
		b := before(u)
		if b < 0 || c.turnRole(turns[b]) != llm.RoleAssistant {
			break
		}
		k = b
	}
	a := turns[k]
	// The first block of the turn's first (merged) assistant message.
	found, at := "", a.start
	for i := a.start; i < a.end && found == ""; i++ {
		for _, p := range c.msgs[i].Parts {
			if !expressible(p, c.d) {
				continue
			}
			switch p := p.(type) {
			case llm.Reasoning:
				return
			case llm.ToolCall:
				found = "tool_use"
			case llm.Image:
				found = "image"
			case llm.Opaque:
				found = p.Kind
			default:
				found = "text"
			}
			at = i
			break
		}
	}
	if found == "" {
		found = "nothing"
	}
	c.add(Violation{Rule: ruleAntThinkingFirst, Path: c.msgPath(at) + ".content.0",
		Message:       c.sprintf("extended thinking is on and the request continues the assistant turn that starts at %s (a tool loop: the last user message holds only tool results), but that message does not start with its thinking block; only the first assistant message of a turn needs one: replay its signed thinking block first, or turn thinking off for this request", c.msgPath(at)),
		ProviderError: c.fill(tmplAntThinking, "{i}", c.wireIndex(at), "{found}", found)})
}

func checkAnthropicTools(c *checker) {
	for k, t := range c.req.Tools {
		path := c.d.pathOfTool(k)
		switch {
		case !nameOK(t.Name, 128):
			c.add(Violation{Rule: ruleAntToolName, Path: path + ".name",
				Message:       c.sprintf("tool %q: names must match ^[a-zA-Z0-9_-]{1,128}$", t.Name),
				ProviderError: c.fill(tmplAntToolName, "{k}", strconv.Itoa(k))})
		case len(t.Name) > 64:
			c.add(Violation{Rule: ruleAntToolName, Path: path + ".name", Warning: true,
				Message: c.sprintf("tool %q is %d characters long; the API accepts up to 128, the documentation says 64", t.Name, len(t.Name))})
		}
		if t.Strict {
			for _, v := range CheckStrictSchema(t.Name, t.Parameters, path+".input_schema") {
				v.Warning = true
				v.ProviderError = ""
				v.Message += " (OpenAI's strict subset; Anthropic publishes no list, so this is a portability warning)"
				c.add(v)
			}
		}
	}
}

// ---- Repair ----

// Text after tool_use.

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
func antCallsLast(rp *repairer) {
	// Moving text can leave a later message of a turn empty, and it goes:
	// the messages after it move up, once, as the runs are repaired.
	n, from := 0, 0 // rp.w[:n] stay, and so do rp.w[from:a] after them
	for a := 0; a < len(rp.w); {
		if rp.w[a].role != llm.RoleAssistant {
			a++
			continue
		}
		b := a + 1
		for b < len(rp.w) && rp.w[b].role == llm.RoleAssistant {
			b++
		}
		run := rp.w[a:b]
		switch {
		case !antTextAfterCall(run):
		case b < len(rp.w) && antAnswered(run, rp.w[b]):
			run = rp.antMoveText(run)
		default:
			// Unanswered: the turns pairing makes of the run, split where
			// antSplitsTurn says; in each, only text in the message of a
			// call can follow it, so none of its messages goes. From the
			// last, as the changes have always been listed.
			var starts []int
			calls := false
			for i := range run {
				if i == 0 || calls && antSplitsTurn(&run[i]) {
					starts = append(starts, i)
					calls = false
				}
				calls = calls || hasCallPart(run[i])
			}
			end := len(run)
			for k := len(starts) - 1; k >= 0; k-- {
				if turn := run[starts[k]:end]; antTextAfterCall(turn) {
					rp.antMoveText(turn)
				}
				end = starts[k]
			}
		}
		if n == from { // no message has gone yet: all stand in place
			n = a + len(run)
		} else {
			n += copy(rp.w[n:], rp.w[from:a])
			n += copy(rp.w[n:], run)
		}
		a, from = b, b
	}
	n += copy(rp.w[n:], rp.w[from:])
	rp.w = rp.w[:n]
}

// antTextAfterCall reports whether the assistant messages of turn hold
// non-empty text after a tool_use.
func antTextAfterCall(turn []wmsg) bool {
	call := false
	for i := range turn {
		for _, p := range turn[i].parts {
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
// turn before it and returns the messages of the turn that stay, a
// prefix of turn: a later message left empty goes.
func (rp *repairer) antMoveText(turn []wmsg) []wmsg {
	// The first tool_use of the turn.
	mc, pc := -1, -1
	for i := 0; i < len(turn) && mc < 0; i++ {
		for k, p := range turn[i].parts {
			if _, ok := p.p.(llm.ToolCall); ok {
				mc, pc = i, k
				break
			}
		}
	}
	var moved []wpart
	var ids []string // the calls the moved text followed
	keep := make([][]wpart, len(turn)-mc)
	for i := mc; i < len(turn); i++ {
		from := 0
		if i == mc {
			from = pc
		}
		m := &turn[i]
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
		return turn
	}
	first := &turn[mc]
	parts := make([]wpart, 0, len(first.parts)+len(moved))
	parts = append(parts, first.parts[:pc]...)
	parts = append(parts, moved...)
	parts = append(parts, keep[0]...)
	first.parts, first.changed = parts, true
	// Later messages of the turn keep what did not move; one left empty
	// goes (its text is in the first message now).
	out := turn[:mc+1]
	for i := mc + 1; i < len(turn); i++ {
		m := turn[i]
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
	return out
}

// antAnswered reports whether next, the message after the assistant
// turn, answers one of its calls.
func antAnswered(turn []wmsg, next wmsg) bool {
	ids := map[string]bool{}
	for i := range turn {
		for _, p := range turn[i].parts {
			if tc, ok := p.p.(llm.ToolCall); ok {
				ids[tc.ID] = true
			}
		}
	}
	for _, p := range next.parts {
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

// antTrimPrefill trims the white space that ends the text of the
// assistant turn the repaired messages end with (ANT-PREFILL-TRAILING-WS),
// and drops that text when nothing else is left of it.
func antTrimPrefill(ps *post) {
	rp := ps.rp
	i, k := lastAntBlock(ps.out, ps.from, rp.d)
	if i < 0 {
		return
	}
	t, ok := ps.out[i].Parts[k].(llm.Text)
	if !ok || !endsInSpace(t.Text) {
		return
	}
	w := ps.partsOf(i)[k]
	trimmed := strings.TrimRightFunc(t.Text, unicode.IsSpace)
	if trimmed == "" {
		ps.change(ruleAntPrefillSpace, rp.origPath(w.om, w.op), ActionDrop, "dropped the white space that ended the request's final assistant message (a prefill): Anthropic rejects a prefill that ends in white space")
		ps.set(i, k, nil)
		return
	}
	ps.change(ruleAntPrefillSpace, rp.origPath(w.om, w.op), ActionReplaceText, "trimmed the white space that ended the request's final assistant message (a prefill): Anthropic rejects a prefill that ends in white space")
	ps.set(i, k, llm.Text{Text: trimmed})
}

// antRelabel gives each image of m (and of its tool results) whose media
// type Anthropic does not take, and whose bytes are of a type it does
// (ANT-IMAGE-MEDIA-TYPE: a PNG labelled image/bmp, a JPEG labelled
// image/jpg), the type of its bytes. An image of another type is left as
// it is: converting it is not Repair's to do.
func antRelabel(rp *repairer, m *wmsg) {
	relabel := func(img llm.Image, path string) (llm.Image, bool) {
		mt, inline := inlineType(img)
		if !inline || len(img.Data) == 0 || !strings.HasPrefix(mt, "image/") || antImageType(mt) {
			return img, false // a data URL is not relabelled: its bytes are not at hand
		}
		got := sniffImage(img.Data)
		if got == "" {
			return img, false
		}
		rp.change(ruleAntImageType, path, ActionRelabel, fmt.Sprintf("the image was labelled %q, which Anthropic does not take, and its bytes are %s: it is now labelled so", mt, got))
		img.MediaType = got
		return img, true
	}
	var parts []wpart // made on the first change: m's parts may be the input's
	for k, p := range m.parts {
		np, changed := p.p, false
		switch q := p.p.(type) {
		case llm.Image:
			if img, ok := relabel(q, rp.origPath(p.om, p.op)); ok {
				np, changed = img, true
			}
		case llm.ToolResult:
			var content []llm.Part
			for n, c := range q.Content {
				img, ok := c.(llm.Image)
				if !ok {
					continue
				}
				if img, ok = relabel(img, rp.origPath(p.om, p.op)+".content."+strconv.Itoa(n)); ok {
					if content == nil {
						content = slices.Clone(q.Content)
					}
					content[n] = img
				}
			}
			if content != nil {
				q.Content = content
				np, changed = q, true
			}
		}
		if parts == nil && changed {
			parts = slices.Clone(m.parts)
		}
		if parts != nil {
			parts[k].p = np
		}
	}
	if parts != nil {
		m.parts, m.changed = parts, true
	}
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
		if !expressible(p.p, rp.d) {
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
		case expressible(p.p, rp.d):
			// another empty text: dropped
		default:
			parts = append(parts, p)
		}
	}
	rp.change(ruleAntNonEmpty, rp.msgPath(*m), ActionReplaceText, fmt.Sprintf("the user message had no content (its text was empty): it now reads %q", rp.pol.Placeholder))
	m.parts, m.changed = parts, true
	return true
}

// antText relabels images whose bytes are of another type than their
// media type says, drops empty text blocks and replaces a whitespace-only
// text block that is a message's only content. It returns the number of
// parts of m Anthropic can express.
func antText(rp *repairer, m *wmsg) int {
	antRelabel(rp, m)
	if rp.antEmptyUser(m) {
		return 1
	}
	empty := false
	for _, p := range m.parts {
		if t, ok := p.p.(llm.Text); ok && t.Text == "" {
			empty = true
			break
		}
	}
	if empty { // copy: the parts may be shared with the input
		keep := m.parts[:0:0]
		for _, p := range m.parts {
			if t, ok := p.p.(llm.Text); ok && t.Text == "" {
				rp.change(ruleAntTextNonEmpty, rp.origPath(p.om, p.op), ActionDrop, "dropped an empty text block")
				m.changed = true
				continue
			}
			keep = append(keep, p)
		}
		m.parts = keep
	}
	only, n := -1, 0
	for k, p := range m.parts {
		if expressible(p.p, rp.d) {
			only, n = k, n+1
		}
	}
	if m.role != llm.RoleSystem && n == 1 {
		if t, ok := m.parts[only].p.(llm.Text); ok && blank(t.Text) {
			p := m.parts[only]
			rp.change(ruleAntTextSpace, rp.origPath(p.om, p.op), ActionReplaceText, fmt.Sprintf("replaced whitespace-only text, the message's only content, with %q", rp.pol.Placeholder))
			parts := make([]wpart, len(m.parts))
			copy(parts, m.parts)
			parts[only] = wpart{p: llm.Text{Text: rp.pol.Placeholder}, om: p.om, op: p.op}
			m.parts = parts
			m.changed = true
		}
	}
	return n
}

// ---- Anthropic model families ----

// Anthropic's rules that depend on the model, as a table of model
// families (docs/provider-rules.md, "Anthropic model families"). A rule
// keyed on the model is an error for a family known to reject what it
// checks, nothing for a family known to accept it, and a warning for any
// other model, and when the request names none.

// antVerdict is what a model family does with a request shape.
type antVerdict uint8

const (
	antUnknown antVerdict = iota // no evidence either way: a warning
	antRejects
	antAccepts
)

// antFamily is a row of the table: the models of a family from a version
// on, up to the next row of the same family.
type antFamily struct {
	name         string // "opus", "sonnet", "haiku", "fable", "mythos"; "" before Claude 4 (claude-3-5-sonnet, claude-2.1, claude-instant-1.2)
	major, minor int    // the first version the row covers
	// midSystem is the verdict on a role "system" message after the
	// conversation started (ANT-SYSTEM-ROLE).
	midSystem antVerdict
}

// antFamilies is the table, each family's rows in ascending version.
// Evidence (docs/provider-rules.md, ANT-SYSTEM-ROLE): every model up to
// Claude 4.0 rejected a role "system" message with the "Unexpected role"
// error when the API had no such role (ChainForge#271, 2024;
// cursor-claude-connector#3, Claude Sonnet 4, July 2025). Anthropic
// documents mid-conversation system messages for Claude Opus 4.8, Opus 5,
// Fable 5 and Mythos 5 (the real-traffic recordings hold opus-4-8 bodies
// answered 200). For the families released between (Claude 4.1 to 4.7,
// Sonnet 4.5, Haiku 4.5) and for Sonnet 5 (reports disagree) there is no
// recorded answer: a warning.
var antFamilies = []antFamily{
	{name: "", major: 0, minor: 0, midSystem: antRejects}, // Claude 1, 2, Instant, 3, 3.5, 3.7
	{name: "opus", major: 4, minor: 0, midSystem: antRejects},
	{name: "opus", major: 4, minor: 1, midSystem: antUnknown},
	{name: "opus", major: 4, minor: 8, midSystem: antAccepts},
	{name: "opus", major: 4, minor: 9, midSystem: antUnknown},
	{name: "opus", major: 5, minor: 0, midSystem: antAccepts},
	{name: "sonnet", major: 4, minor: 0, midSystem: antRejects},
	{name: "sonnet", major: 4, minor: 1, midSystem: antUnknown},
	{name: "fable", major: 5, minor: 0, midSystem: antAccepts},
	{name: "mythos", major: 5, minor: 0, midSystem: antAccepts},
}

// antModel is a model name read into its family and version.
type antModel struct {
	name         string
	major, minor int
}

// parseAntModel reads a Claude model name: "claude-sonnet-4-5-20250929",
// "claude-opus-4-8", "claude-sonnet-4-0", "claude-3-5-sonnet-latest",
// "claude-2.1", "claude-instant-1.2", and the platforms' forms of them
// ("anthropic.claude-sonnet-4-5-20250929-v1:0" on Bedrock,
// "claude-sonnet-4@20250514" on Vertex AI, "anthropic/claude-sonnet-4.5"
// on gateways). It reports false for a name it cannot read.
func parseAntModel(model string) (antModel, bool) {
	s := strings.ToLower(model)
	k := strings.LastIndex(s, "claude-")
	if k < 0 {
		return antModel{}, false
	}
	s = s[k+len("claude-"):]
	if c := strings.IndexAny(s, ":@"); c >= 0 {
		s = s[:c]
	}
	toks := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '.' })
	num := func(i int) (int, bool) {
		if i >= len(toks) || len(toks[i]) > 2 {
			return 0, false // a date (20250514) is no version number
		}
		n, err := strconv.Atoi(toks[i])
		return n, err == nil
	}
	var m antModel
	i := 0
	if _, ok := num(0); !ok {
		// claude-sonnet-4-5, claude-instant-1.2
		m.name = toks[0]
		if m.name == "instant" {
			m.name = ""
		}
		i = 1
	}
	major, ok := num(i)
	if !ok {
		return antModel{}, false
	}
	m.major = major
	if minor, ok := num(i + 1); ok {
		m.minor = minor
	}
	switch {
	case m.major < 4:
		m.name = "" // claude-3-5-sonnet: one row for the families before Claude 4
	case m.name == "":
		return antModel{}, false // "claude-4-sonnet" is no Anthropic model name
	}
	return m, true
}

// antFamilyOf returns the row of the table that covers model, or false
// for a model the table does not know.
func antFamilyOf(model string) (antFamily, bool) {
	m, ok := parseAntModel(model)
	if !ok {
		return antFamily{}, false
	}
	found, at := antFamily{}, false
	for _, f := range antFamilies {
		if f.name == m.name && (f.major < m.major || f.major == m.major && f.minor <= m.minor) {
			found, at = f, true
		}
	}
	return found, at
}

// antMidSystem returns the verdict of model on a role "system" message
// after the conversation started.
func antMidSystem(model string) antVerdict {
	f, ok := antFamilyOf(model)
	if !ok {
		return antUnknown
	}
	return f.midSystem
}
