package transcript

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolwire/toolwire/llm"
)

// A Request is what Check judges: the conversation and what else in the
// request body changes the rules.
type Request struct {
	// Messages is the conversation, system messages included.
	Messages []llm.Message
	// Tools are the tool definitions sent with the request.
	Tools []llm.ToolSpec
	// Thinking is set when Anthropic extended thinking is on
	// (ANT-THINKING-FIRST applies).
	Thinking bool
	// PreviousResponse is set when an OpenAI Responses request continues a
	// stored response or conversation (previous_response_id, conversation):
	// its function_call_output items may answer calls that are not in the
	// input, and the server already holds the reasoning items of its calls.
	PreviousResponse bool
	// ReasoningEffort is the OpenAI reasoning effort the request sets
	// (Responses reasoning.effort: "none", "low", ...), "" when it sets
	// none. Whether a model's calls come with reasoning items depends on it
	// (OAI-RS-REASONING-PAIR).
	ReasoningEffort string
	// Model is the model the request is for, as the body names it
	// ("claude-sonnet-4-5", "gpt-5"), or "" when unknown (a Gemini body
	// names it in the URL). Rules that depend on the model are keyed on it;
	// with no model they are warnings.
	Model string
}

// Check reports every rule of docs/provider-rules.md that msgs break in
// dialect d, in wire order. It is CheckRequest with only messages.
func Check(msgs []llm.Message, d Dialect) []Violation {
	return CheckRequest(Request{Messages: msgs}, d)
}

// CheckRequest reports every rule of docs/provider-rules.md that r breaks
// in dialect d: pairing and adjacency of calls and results, duplicates,
// orphans, ids and tool names, empty content, roles, system placement,
// reasoning placement, and the strict-mode schema of tool definitions. The
// violations come in wire order (sorted by path); portability rules are
// marked Warning. A request is accepted when [Accepted] says so.
//
// CheckRequest runs in time linear in the size of the transcript and does
// not modify r.
func CheckRequest(r Request, d Dialect) []Violation {
	vs, _ := check(r, d, false)
	return vs
}

// check is CheckRequest that also returns the lazyMap of r.Messages when
// it made one (to place a violation), or nil.
//
// With quick set, check leaves out warnings and stops at the first
// violation that is not a warning: the result is then not every
// violation, but it is accepted exactly when CheckRequest's is, and it
// still holds ANT-THINKING-FIRST when r breaks it (Repair needs both, and
// no more, to start and to verify its output).
func check(r Request, d Dialect, quick bool) ([]Violation, *lazyMap) {
	c := checker{msgs: r.Messages, d: d, req: r, quick: quick}
	switch d {
	case OpenAIChat, OpenAIResponses, Anthropic, Gemini:
	default:
		return []Violation{{Rule: "TW-DIALECT", Message: fmt.Sprintf("unknown dialect %q (want openai-chat, openai-responses, anthropic or gemini)", d)}}, nil
	}
	dialect := func() {
		switch d {
		case OpenAIChat:
			c.chat()
		case OpenAIResponses:
			c.responses()
		case Anthropic:
			c.anthropic()
		case Gemini:
			c.gemini()
		}
	}
	if quick {
		// Pairing errors are the common ones: look for them first.
		dialect()
		if !c.stopped() {
			c.shape()
		}
	} else {
		c.shape()
		dialect()
	}
	if !c.stopped() {
		c.tools()
	}
	if d == Anthropic && r.Thinking && !c.thinking {
		// Stopped before the end: check the turn in progress alone.
		c.antThinking()
	}
	SortViolations(c.out)
	return c.out, c.lay
}

// checker accumulates the violations of one request.
type checker struct {
	msgs []llm.Message
	d    Dialect
	req  Request
	lay  *lazyMap // made by layout when a violation needs a path
	out  []Violation
	// calls and results count the tool calls and results (shape), to size
	// the maps of ids.
	calls, results int
	answered       []bool // scratch of the Gemini check
	quick          bool   // stop at the first error (see check)
	shaped         bool   // shape ran to the end: calls and results are counted
	errors         int    // violations added that are not warnings
	thinking       bool   // antThinking ran
}

func (c *checker) add(v Violation) {
	c.out = append(c.out, v)
	if !v.Warning {
		c.errors++
	}
}

// warnings reports whether portability warnings are wanted: not in a
// quick check.
func (c *checker) warnings() bool { return !c.quick }

// stopped reports whether a quick check has found an error and can stop.
func (c *checker) stopped() bool { return c.quick && c.errors > 0 }

// layout returns where the messages go in the body, made on first use:
// an accepted transcript needs no paths.
func (c *checker) layout() *lazyMap {
	if c.lay == nil {
		c.lay = newLazyMap(c.msgs, c.d)
	}
	return c.lay
}

func (c *checker) msgPath(i int) string { l := c.layout(); return l.path(l.msgLoc(i)) }

func (c *checker) partPath(i, j int) string {
	l := c.layout()
	if p := l.path(l.partLoc(i, j)); p != "" {
		return p
	}
	return c.msgPath(i)
}

func (c *checker) wireIndex(i int) string { return strconv.Itoa(int(c.layout().msgLoc(i).msg)) }

func (c *checker) partWire(i, j int) (string, string) {
	x := c.layout().partLoc(i, j)
	return strconv.Itoa(int(x.msg)), strconv.Itoa(int(x.sub))
}

// describe names a message for explanations: "messages.3 (user)".
func (c *checker) describe(i int) string {
	if i >= len(c.msgs) {
		return "the end of the transcript"
	}
	p := c.msgPath(i)
	if p == "" {
		p = fmt.Sprintf("message %d", i)
	}
	return fmt.Sprintf("%s (%s)", p, c.msgs[i].Role)
}

// shape reports parts that the llm model does not allow where they are
// (TW-PART-PLACEMENT) and unknown roles (TW-ROLE).
func (c *checker) shape() {
	for i, m := range c.msgs {
		if c.stopped() {
			return
		}
		if !m.Role.Valid() {
			c.add(Violation{Rule: ruleRole, Path: c.msgPath(i), Message: fmt.Sprintf("message %d has role %q; want system, user, assistant or tool", i, m.Role)})
			continue
		}
		results := 0
		for j, p := range m.Parts {
			bad := ""
			//lint:ignore S1034 parts are asserted again only to explain a problem; binding would copy every part
			switch p.(type) {
			case nil:
				bad = "a nil part"
			case llm.ToolCall:
				c.calls++
				if m.Role != llm.RoleAssistant {
					tc := p.(llm.ToolCall)
					bad = fmt.Sprintf("tool call %s (%s) in a %s message; calls belong in assistant messages", tc.ID, tc.Name, m.Role)
				}
			case llm.Reasoning:
				if m.Role != llm.RoleAssistant {
					bad = fmt.Sprintf("reasoning in a %s message; reasoning belongs in assistant messages", m.Role)
				}
			case llm.ToolResult:
				results++
				c.results++
				if m.Role != llm.RoleTool {
					bad = fmt.Sprintf("the result of call %s in a %s message; results belong in tool messages", p.(llm.ToolResult).CallID, m.Role)
				}
			case llm.Text, llm.Image:
				if m.Role == llm.RoleTool && results < countResults(m.Parts[j:]) && c.d != Anthropic {
					bad = "text or image before a tool result in a tool message; it must come after the results"
				}
				if _, ok := p.(llm.Image); ok && m.Role == llm.RoleSystem {
					bad = "an image in a system message; system prompts hold text only"
				}
			}
			if bad != "" && !(c.d == Gemini && gemMixed(m)) { // GEM-NO-MIX, which gemini reports
				c.add(Violation{Rule: ruleShape, Path: c.partPath(i, j), Message: fmt.Sprintf("message %d, part %d: %s", i, j, bad)})
			}
		}
		if m.Role == llm.RoleTool && results == 0 {
			c.add(Violation{Rule: ruleShape, Path: c.msgPath(i), Message: fmt.Sprintf("message %d is a tool message without tool results; make it a user message", i)})
		}
	}
	c.shaped = true
}

// hint is a size hint for maps of call ids: the number of calls or of
// results, whichever is larger, once shape has counted them; else a guess
// from the number of messages.
func (c *checker) hint() int {
	if !c.shaped {
		return len(c.msgs)/4 + 1
	}
	return max(c.calls, c.results)
}

func hasCall(m llm.Message) bool {
	for _, p := range m.Parts {
		if _, ok := p.(llm.ToolCall); ok {
			return true
		}
	}
	return false
}

func countResults(parts []llm.Part) int {
	n := 0
	for _, p := range parts {
		if _, ok := p.(llm.ToolResult); ok {
			n++
		}
	}
	return n
}

// ---- OpenAI Chat Completions ----

var idListSep = ", "

func (c *checker) chat() {
	type call struct {
		j        int
		id, name string
		answered bool
	}
	var open []call // calls of the assistant message whose tool run is open
	var buf []call  // the array of open, reused: a run is closed before the next opens
	openMsg := -1
	seen := make(map[string][2]int, c.hint()) // tool_call_id -> message and part of its first result
	closeRun := func(next int) {
		if openMsg < 0 {
			return
		}
		var ids, names []string
		for _, cl := range open {
			if !cl.answered {
				ids = append(ids, cl.id)
				names = append(names, fmt.Sprintf("%s (%s)", cl.name, quoteID(cl.id)))
			}
		}
		if len(ids) > 0 {
			c.add(Violation{
				Rule: ruleCCAnswerAll, Path: c.msgPath(openMsg),
				Message: fmt.Sprintf("the assistant message %s calls %s, but no tool message answers %s before %s; every call needs a tool message with its tool_call_id directly after the assistant message",
					c.msgPath(openMsg), strings.Join(names, ", "), plural(len(ids), "it", "them"), c.describe(next)),
				ProviderError: fill(tmplCCAnswerAll, "{ids}", strings.Join(ids, idListSep)),
			})
		}
		open, openMsg = nil, -1
	}
	for i, m := range c.msgs {
		if c.stopped() {
			return
		}
		switch m.Role {
		case llm.RoleTool:
			results, trailing := 0, 0
			for j, p := range m.Parts {
				r, ok := p.(llm.ToolResult)
				if !ok {
					if expressible(p, OpenAIChat) {
						trailing++
					}
					if o, ok := p.(llm.Opaque); ok {
						c.typeless(i, j, -1, o)
					}
					continue
				}
				for k, q := range r.Content {
					if o, ok := q.(llm.Opaque); ok {
						c.typeless(i, j, k, o)
					}
				}
				results++
				w := func() string { x, _ := c.partWire(i, j); return x }
				path := func() string { return c.partPath(i, j) }
				if r.CallID == "" {
					c.add(Violation{Rule: ruleCCResultID, Path: path() + ".tool_call_id",
						Message:       fmt.Sprintf("the tool message %s has no tool_call_id, so it answers no call", path()),
						ProviderError: tmplCCResultID})
					continue
				}
				if hasImage(r.Content) {
					c.add(Violation{Rule: ruleCCToolImage, Path: path(),
						Message:       fmt.Sprintf("the result of %s at %s holds an image; Chat Completions tool messages hold text only (older models reject it, newer ones ignore the image): move the image into a user message after the tool messages", r.CallID, path()),
						ProviderError: fill(tmplCCToolImage, "{i}", w())})
				}
				found := false
				for k := range open {
					if open[k].id == r.CallID && !open[k].answered {
						open[k].answered, found = true, true
						break
					}
				}
				if first, dup := seen[r.CallID]; dup {
					a := int(c.layout().partLoc(first[0], first[1]).msg) // wire index of the first tool message
					c.add(Violation{Rule: ruleCCDupResult, Path: path() + ".tool_call_id",
						Message:       fmt.Sprintf("a second tool message answers %s (the first is messages.%d); each tool_call_id may be answered once in a request", r.CallID, a),
						ProviderError: fill(tmplCCDupResult, "{id}", r.CallID, "{a}", strconv.Itoa(a), "{b}", w())})
					continue
				}
				seen[r.CallID] = [2]int{i, j}
				if !found {
					why := "no assistant message with tool_calls comes directly before it (tool messages must follow the assistant message that made the call, with nothing between)"
					if openMsg >= 0 {
						why = fmt.Sprintf("%s is not one of the calls of the assistant message %s", r.CallID, c.msgPath(openMsg))
					}
					c.add(Violation{Rule: ruleCCNoOrphan, Path: path(),
						Message:       fmt.Sprintf("the tool message %s answers %s, but %s", path(), r.CallID, why),
						ProviderError: tmplCCNoOrphan})
				}
			}
			if results == 0 || trailing > 0 {
				closeRun(i + 1) // trailing parts go into a user message
			}
		case llm.RoleAssistant:
			closeRun(i)
			calls := buf[:0]
			text := false
			for j, p := range m.Parts {
				switch p := p.(type) {
				case llm.Text:
					text = true
				case llm.ToolCall:
					calls = append(calls, call{j: j, id: p.ID, name: p.Name})
					c.chatCallChecks(i, j, len(calls)-1, p)
				case llm.Opaque:
					// Content the llm form does not model (a refusal, audio,
					// a legacy function_call) is content.
					text = text || expressible(p, OpenAIChat)
					c.typeless(i, j, -1, p)
				}
			}
			if len(calls) > 128 {
				if c.warnings() {
					c.add(Violation{Rule: ruleCCMaxToolCalls, Path: c.msgPath(i) + ".tool_calls", Warning: true,
						Message:       fmt.Sprintf("the assistant message %s has %d tool calls; some OpenAI-compatible gateways allow at most 128", c.msgPath(i), len(calls)),
						ProviderError: fill(tmplCCMaxCalls, "{i}", c.wireIndex(i), "{n}", strconv.Itoa(len(calls)))})
				}
			}
			if !text && len(calls) == 0 {
				c.add(Violation{Rule: ruleCCNullContent, Path: c.msgPath(i) + ".content",
					Message:       fmt.Sprintf("the assistant message %s has neither text nor tool calls, so its content would be null", c.msgPath(i)),
					ProviderError: tmplCCNullContent})
			}
			if len(calls) > 0 {
				open, openMsg = calls, i
			}
			buf = calls[:0]
		default:
			closeRun(i)
			for j, p := range m.Parts {
				if o, ok := p.(llm.Opaque); ok {
					c.typeless(i, j, -1, o)
				}
			}
			if len(m.Parts) == 0 {
				c.add(Violation{Rule: ruleCCNullContent, Path: c.msgPath(i) + ".content",
					Message:       fmt.Sprintf("the %s message %s has no content", m.Role, c.msgPath(i)),
					ProviderError: tmplCCNullContent})
			}
		}
	}
	closeRun(len(c.msgs))
	if !anyEntry(c.msgs, c.d) {
		c.add(Violation{Rule: ruleCCEmptyMessages, Path: "messages", Message: "the request has no messages; Chat Completions needs at least one", ProviderError: tmplCCEmpty})
	}
}

// typeless reports p when it is a content part without a type
// (OAI-CC-PART-TYPE): the Chat codec decodes such a part as an llm.Opaque
// of its dialect with no Kind, and no repair can tell what it was. p is
// part j of message i, or (k >= 0) part k of the content of that result.
func (c *checker) typeless(i, j, k int, p llm.Opaque) {
	if p.Kind != "" || p.Provider != string(OpenAIChat) {
		return
	}
	path := c.partPath(i, j)
	w, sub := c.partWire(i, j)
	if k >= 0 {
		sub = strconv.Itoa(k)
		path += ".content." + sub
	}
	c.add(Violation{Rule: ruleCCPartType, Path: path + ".type",
		Message:       fmt.Sprintf("the content part %s has no \"type\"; every part of a content array names its type (text, image_url, input_audio, file, ...), and this one's cannot be guessed: fix the code that built it", path),
		ProviderError: fill(tmplCCPartType, "{i}", w, "{j}", sub)})
}

func (c *checker) chatCallChecks(i, j, n int, p llm.ToolCall) {
	path := func() string { return c.partPath(i, j) }
	if !nameOK(p.Name, 0) {
		c.add(Violation{Rule: ruleCCToolNamePat, Path: path() + ".function.name",
			Message:       fmt.Sprintf("tool call %s names the tool %q; names must match ^[a-zA-Z0-9_-]+$", quoteID(p.ID), p.Name),
			ProviderError: fill(tmplCCToolNameM, "{i}", c.wireIndex(i), "{n}", strconv.Itoa(n))})
	}
	if p.ID == "" {
		return // reported as unanswered: no tool message can name it
	}
	if l := len(p.ID); l > 40 {
		if c.warnings() {
			c.add(Violation{Rule: ruleCCIDLen, Path: path() + ".id", Warning: true,
				Message:       fmt.Sprintf("tool call id %s is %d characters; api.openai.com accepts it, but Azure OpenAI and some gateways allow at most 40", p.ID, l),
				ProviderError: fill(tmplCCIDLen, "{i}", c.wireIndex(i), "{k}", strconv.Itoa(n), "{n}", strconv.Itoa(l))})
		}
	}
}

// ---- OpenAI Responses ----

func (c *checker) responses() {
	type call struct {
		i, j     int
		id       string
		answered bool
	}
	byID := make(map[string]int, c.hint()) // call_id -> index in calls
	calls := make([]call, 0, c.hint())     // in order, for ANSWER-ALL
	items := map[string][2]int{}
	sawReasoning := false
	var opaqueCalls map[string]bool // call_ids of calls the llm form does not model (tool_search_call, ...)
	for _, m := range c.msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.Reasoning:
				sawReasoning = sawReasoning || expressible(p, OpenAIResponses)
			case llm.Opaque:
				if p.CallID != "" && expressible(p, OpenAIResponses) {
					if opaqueCalls == nil {
						opaqueCalls = map[string]bool{}
					}
					opaqueCalls[p.CallID] = true
				}
			}
		}
	}
	// Without reasoning items, a call of a reasoning model replayed with
	// its item id lacks the one the server holds with it.
	pairYes, pairKnown := false, true
	if !sawReasoning && !c.req.PreviousResponse {
		pairYes, pairKnown = reasons(c.req.Model, c.req.ReasoningEffort)
	}
	itemID := func(i, j int, id, kind string) {
		if id == "" {
			return
		}
		if first, dup := items[id]; dup {
			path := c.partPath(i, j)
			c.add(Violation{Rule: ruleRSDupItem, Path: path + ".id",
				Message:       fmt.Sprintf("the %s item %s has the id %s of an earlier item (%s); each item id may appear once", kind, path, id, c.partPath(first[0], first[1])),
				ProviderError: fill(tmplRSDupItem, "{id}", id)})
			return
		}
		items[id] = [2]int{i, j}
	}
	for i, m := range c.msgs {
		if c.stopped() {
			return
		}
		switch m.Role {
		case llm.RoleAssistant:
			hasReasoning := false
			for j, p := range m.Parts {
				switch p := p.(type) {
				case llm.Reasoning:
					if !expressible(p, OpenAIResponses) {
						continue
					}
					hasReasoning = true
					id := reasoningID(p)
					itemID(i, j, id, "reasoning")
					if nextItem(m.Parts, j+1) < 0 {
						c.add(Violation{Rule: ruleRSReasonFollow, Path: c.partPath(i, j),
							Message:       fmt.Sprintf("the reasoning item %s %sis the last item of its assistant turn; a reasoning item must be followed by the item the model produced after it (a function_call or message)", c.partPath(i, j), idSuffix(id)),
							ProviderError: fill(tmplRSReasonFollow, "{id}", id)})
					}
				case llm.ToolCall:
					path := func() string { return c.partPath(i, j) }
					itemID(i, j, p.ItemID, "function_call")
					if !nameOK(p.Name, 0) {
						c.add(Violation{Rule: ruleRSToolNamePat, Path: path() + ".name",
							Message: fmt.Sprintf("function_call %s names the tool %q; names must match ^[a-zA-Z0-9_-]+$", quoteID(p.ID), p.Name)})
					}
					if l := utf8.RuneCountInString(p.ID); l == 0 || l > 64 {
						c.add(Violation{Rule: ruleRSCallIDLen, Path: path() + ".call_id",
							Message:       fmt.Sprintf("function_call %s has a call_id of %d characters; call_id must be 1 to 64 characters", path(), l),
							ProviderError: callIDLenError(c.wireIndex(i), l)})
						continue
					}
					if k, dup := byID[p.ID]; dup {
						prev := calls[k]
						c.add(Violation{Rule: ruleRSDupCallID, Path: path() + ".call_id",
							Message: fmt.Sprintf("function_call %s reuses call_id %s of %s; outputs are paired with calls by call_id, so each must be unique", path(), p.ID, c.partPath(prev.i, prev.j))})
						continue
					}
					switch {
					case p.ItemID == "" || c.req.PreviousResponse:
					case sawReasoning && !hasReasoning:
						if c.warnings() {
							c.add(Violation{Rule: ruleRSReasonPair, Path: path(), Warning: true,
								Message: fmt.Sprintf("function_call %s (%s) has no reasoning item before it in its turn, while other turns carry reasoning items; if a reasoning model made this call, OpenAI rejects it without the reasoning item that preceded it", path(), p.ItemID)})
						}
					case sawReasoning:
					case pairYes:
						c.add(Violation{Rule: ruleRSReasonPair, Path: path(),
							Message:       fmt.Sprintf("function_call %s (%s) is replayed with its item id, and the input holds no reasoning item; %s reasons before each call (docs/provider-rules.md, OpenAI reasoning models), so the server holds the call with the reasoning item that came before it and rejects it alone: replay the reasoning items (include \"reasoning.encrypted_content\" with store false), or send the call without its id", path(), p.ItemID, c.req.Model),
							ProviderError: fill(tmplRSReasonPair, "{fc_id}", p.ItemID, "{rs_id}", "rs_…")})
					case !pairKnown && c.warnings():
						model := c.req.Model
						if model == "" {
							model = "the model is not named"
						} else {
							model = fmt.Sprintf("model %q is not in toolwire's table", model)
						}
						c.add(Violation{Rule: ruleRSReasonPair, Path: path(), Warning: true,
							Message: fmt.Sprintf("function_call %s (%s) is replayed with its item id, and the input holds no reasoning item; if a reasoning model made it, OpenAI rejects it without its reasoning item (%s)", path(), p.ItemID, model)})
					}
					byID[p.ID] = len(calls)
					calls = append(calls, call{i: i, j: j, id: p.ID})
				}
			}
		case llm.RoleTool:
			for j, p := range m.Parts {
				r, ok := p.(llm.ToolResult)
				if !ok {
					continue
				}
				path := func() string { return c.partPath(i, j) }
				if l := utf8.RuneCountInString(r.CallID); l == 0 || l > 64 {
					c.add(Violation{Rule: ruleRSCallIDLen, Path: path() + ".call_id",
						Message:       fmt.Sprintf("function_call_output %s has a call_id of %d characters; call_id must be 1 to 64 characters", path(), l),
						ProviderError: callIDLenError(strconv.Itoa(int(c.layout().partLoc(i, j).msg)), l)})
					continue
				}
				var cl *call
				if k, ok := byID[r.CallID]; ok {
					cl = &calls[k]
				}
				switch {
				case cl == nil && (c.req.PreviousResponse || opaqueCalls[r.CallID]):
					// May answer a call of the stored response, or answers a
					// call the llm form does not model (a tool_search_call
					// the client runs).
				case cl == nil:
					c.add(Violation{Rule: ruleRSNoOrphan, Path: path(),
						Message:       fmt.Sprintf("function_call_output %s answers %s, but no function_call with that call_id comes before it in input", path(), r.CallID),
						ProviderError: fill(tmplRSNoOrphan, "{id}", r.CallID)})
				case cl.answered:
					c.add(Violation{Rule: ruleRSDupCallID, Path: path(),
						Message: fmt.Sprintf("function_call_output %s answers %s a second time; each call takes one output", path(), r.CallID)})
				default:
					cl.answered = true
				}
			}
		}
	}
	for _, cl := range calls {
		if c.stopped() {
			return
		}
		if id := cl.id; !cl.answered {
			c.add(Violation{Rule: ruleRSAnswerAll, Path: c.partPath(cl.i, cl.j),
				Message:       fmt.Sprintf("function_call %s (%s) has no function_call_output with call_id %s", c.partPath(cl.i, cl.j), c.msgs[cl.i].Parts[cl.j].(llm.ToolCall).Name, id),
				ProviderError: fill(tmplRSAnswerAll, "{id}", id)})
		}
	}
}

// nextItem returns the index of the first part from which is a Responses
// item other than reasoning, or -1.
func nextItem(parts []llm.Part, from int) int {
	for j := from; j < len(parts); j++ {
		if _, ok := parts[j].(llm.Reasoning); !ok && expressible(parts[j], OpenAIResponses) {
			return j
		}
	}
	return -1
}

func callIDLenError(i string, l int) string {
	if l == 0 {
		return ""
	}
	return fill(tmplRSCallIDLen, "{i}", i, "{n}", strconv.Itoa(l))
}

// reasoningID returns the "id" of a Responses reasoning item kept whole in
// r.Data, or "".
func reasoningID(r llm.Reasoning) string {
	if len(r.Data) == 0 {
		return ""
	}
	var item struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(r.Data, &item) != nil {
		return ""
	}
	return item.ID
}

// ---- Anthropic Messages ----

// antTurn is a run of consecutive messages with the same wire role, which
// Anthropic merges into one turn (ANT-MERGE-CONSECUTIVE). Its role is
// that of its first message (see checker.turnRole).
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

func (c *checker) anthropic() {
	first := firstNonSystem(c.msgs)
	n := wireLen(c.msgs, c.d)
	if n == 0 {
		c.add(Violation{Rule: ruleAntNoMessages, Path: "messages", Message: "the request has no messages (system prompts go to the top-level system field); Anthropic needs at least one user message"})
	}
	if n > 100000 {
		c.add(Violation{Rule: ruleAntMaxMessages, Path: "messages", Message: fmt.Sprintf("the request has %d messages; Anthropic allows at most 100,000", n)})
	}
	if first < len(c.msgs) && antRole(c.msgs[first].Role) == llm.RoleAssistant {
		if c.warnings() {
			c.add(Violation{Rule: ruleAntFirstUser, Path: c.msgPath(first), Warning: true,
				Message:       fmt.Sprintf("the first message %s is an assistant message; the API used to require a user message first and still recommends one", c.msgPath(first)),
				ProviderError: tmplAntFirstUser})
		}
	}
	// System prompts: empty text blocks.
	for i := 0; i < first; i++ {
		for j, p := range c.msgs[i].Parts {
			if t, ok := p.(llm.Text); ok && t.Text == "" {
				c.add(Violation{Rule: ruleAntTextNonEmpty, Path: "system", Message: fmt.Sprintf("system message %d, part %d is an empty text block", i, j), ProviderError: tmplAntTextNonEmpty})
			}
		}
	}
	ids := make(map[string][2]int, c.hint()) // tool_use id -> its first use
	type call struct {
		i, j     int
		id       string
		answered bool
	}
	var prev []call // calls of the previous turn, when it was an assistant turn
	var buf []call  // the array of prev, reused: only the next turn reads prev
	prevTurn := -1
	// The turns are made one ahead as the loop goes; t counts them.
	var next antTurn // the turn after turn; start == len(c.msgs): none
	for t, turn := 0, c.nextAntTurn(first); turn.start < len(c.msgs); t, turn = t+1, next {
		if c.stopped() {
			return
		}
		next = c.nextAntTurn(turn.end)
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
						c.antCall(i, j, p, ids)
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
			if ti >= 0 {
				c.antTextAfterCall(ti, tj, callIDs(before, func(k int) string { return calls[k].id }), next.start)
			}
			if len(calls) > 0 && (next.start == len(c.msgs) || c.turnRole(next) != llm.RoleUser) {
				c.antUnanswered(calls[0].i, callIDs(len(calls), func(k int) string { return calls[k].id }), next.start)
			}
			prev, prevTurn, buf = calls, t, calls[:0]
			continue
		case llm.RoleUser:
			expect := prev
			if prevTurn != t-1 {
				expect = nil
			}
			text := false
			for i := turn.start; i < turn.end; i++ {
				c.antContent(i, false)
				for j, p := range c.msgs[i].Parts {
					r, ok := p.(llm.ToolResult)
					if !ok {
						if expressible(p, Anthropic) {
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
							Message:       fmt.Sprintf("the tool_result %s answers %s, but %s; a tool_result must answer a tool_use of the message right before it", path(), quoteID(r.CallID), why),
							ProviderError: fill(tmplAntNoOrphan, "{i}", wi(), "{j}", wj(), "{id}", r.CallID)})
						continue
					case expect[k].answered:
						c.add(Violation{Rule: ruleAntSingleResult, Path: path(),
							Message:       fmt.Sprintf("the tool_result %s answers %s a second time; each tool_use takes one tool_result", path(), r.CallID),
							ProviderError: fill(tmplAntSingle, "{id}", r.CallID)})
						continue
					}
					expect[k].answered = true
					if text {
						c.add(Violation{Rule: ruleAntResultFirst, Path: path(),
							Message: fmt.Sprintf("the tool_result %s for %s comes after text or images in the same user turn (consecutive user messages are merged into one turn); tool_result blocks must come first", path(), r.CallID),
							// Anthropic reports this case with the RESULT-NEXT text.
							ProviderError: fill(tmplAntResultNext, "{i}", c.wireIndex(expect[k].i), "{ids}", r.CallID)})
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
		prev, prevTurn = nil, -1
	}
	if c.req.Thinking {
		c.antThinking()
	}
}

// antSystem checks ANT-SYSTEM-ROLE for the system message i after the
// conversation started, followed by turn next. Whether the Messages API
// takes it depends on the model (models_anthropic.go): models before
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
			Message:       fmt.Sprintf("%s is a system message after the conversation started; %s takes system text only in the top-level system field", path, model),
			ProviderError: tmplAntSystemRole})
	case antUnknown:
		if !c.warnings() {
			return
		}
		named := "the request names no model"
		if model != "" {
			named = fmt.Sprintf("toolwire does not know whether %s does", model)
		}
		c.add(Violation{Rule: ruleAntSystemRole, Path: path, Warning: true,
			Message:       fmt.Sprintf("%s is a system message after the conversation started; Claude Opus 4.8, Opus 5, Fable 5 and Mythos 5 accept one, older models reject it, and %s (the top-level system field is safe with every model)", path, named),
			ProviderError: tmplAntSystemRole})
	case antAccepts:
		if !c.warnings() {
			return
		}
		prev := llm.Role("")
		if i > 0 {
			prev = antRole(c.msgs[i-1].Role)
		}
		after := llm.Role("")
		if next.start < len(c.msgs) {
			after = c.turnRole(next)
		}
		if prev == llm.RoleUser && (after == "" || after == llm.RoleAssistant) || prev == llm.RoleAssistant && endsInServerTool(c.msgs[i-1]) {
			return
		}
		c.add(Violation{Rule: ruleAntSystemRole, Path: path, Warning: true,
			Message: fmt.Sprintf("%s is a system message after the conversation started, which %s accepts where Anthropic documents it: after a user message (or an assistant message that ends in a server tool use), and last or before an assistant message", path, model)})
	}
}

// endsInServerTool reports whether the last block of m that Anthropic can
// express is one the llm form does not model, such as a server_tool_use.
func endsInServerTool(m llm.Message) bool {
	for j := len(m.Parts) - 1; j >= 0; j-- {
		if expressible(m.Parts[j], Anthropic) {
			_, ok := m.Parts[j].(llm.Opaque)
			return ok
		}
	}
	return false
}

func callIDs(n int, id func(int) string) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = id(k)
	}
	return out
}

// antUnanswered reports the calls ids of message i, which the turn at
// message next (len(c.msgs): none) does not answer.
func (c *checker) antUnanswered(i int, ids []string, next int) {
	after := "the end of the transcript"
	if next < len(c.msgs) {
		after = c.describe(next)
	}
	c.add(Violation{Rule: ruleAntResultNext, Path: c.msgPath(i),
		Message:       fmt.Sprintf("the assistant message %s has tool_use %s without a tool_result in the next user turn (%s); every tool_use needs its tool_result at the start of the very next message", c.msgPath(i), strings.Join(ids, ", "), after),
		ProviderError: fill(tmplAntResultNext, "{i}", c.wireIndex(i), "{ids}", strings.Join(ids, idListSep))})
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
		Message:       fmt.Sprintf("%s is text after tool_use %s in the same assistant turn; the tool_use blocks must end the assistant turn, directly before their tool_result blocks: move the text before the first tool_use", c.partPath(i, j), strings.Join(ids, ", ")),
		ProviderError: fill(tmplAntResultNext, "{i}", at, "{ids}", strings.Join(ids, idListSep))})
}

// antCall checks one tool_use block.
func (c *checker) antCall(i, j int, tc llm.ToolCall, ids map[string][2]int) {
	path := func() string { return c.partPath(i, j) }
	wi := func() string { x, _ := c.partWire(i, j); return x }
	wj := func() string { _, y := c.partWire(i, j); return y }
	if !idOK(tc.ID) {
		c.add(Violation{Rule: ruleAntIDPattern, Path: path() + ".id",
			Message:       fmt.Sprintf("tool_use id %s does not match ^[a-zA-Z0-9_-]+$ (ids from other providers may hold '.', ':', '|' or '/')", quoteID(tc.ID)),
			ProviderError: fill(tmplAntIDPattern, "{i}", wi(), "{j}", wj())})
	} else if at, dup := ids[tc.ID]; dup {
		first := c.partPath(at[0], at[1])
		c.add(Violation{Rule: ruleAntUniqueID, Path: path() + ".id",
			Message:       fmt.Sprintf("tool_use id %s is already used at %s; tool_use ids must be unique in the request", tc.ID, first),
			ProviderError: fill(tmplAntUniqueID, "{i}", wi(), "{j}", wj())})
	} else {
		ids[tc.ID] = [2]int{i, j}
	}
	switch l := len(tc.Name); {
	case !nameOK(tc.Name, 128):
		c.add(Violation{Rule: ruleAntToolUseName, Path: path() + ".name",
			Message:       fmt.Sprintf("tool_use %s names the tool %q; names must match ^[a-zA-Z0-9_-]{1,64}$", quoteID(tc.ID), tc.Name),
			ProviderError: fill(tmplAntToolUseName, "{i}", wi(), "{j}", wj())})
	case l > 64:
		if c.warnings() {
			c.add(Violation{Rule: ruleAntToolUseName, Path: path() + ".name", Warning: true,
				Message: fmt.Sprintf("tool_use %s names a tool of %d characters; the API accepts up to 128 now, but the documented limit is 64", quoteID(tc.ID), l)})
		}
	}
}

// antContent checks the text blocks of message i.
func (c *checker) antContent(i int, final bool) {
	m := c.msgs[i]
	blocks := 0
	content := false // a block that is not an empty text
	for _, p := range m.Parts {
		if expressible(p, Anthropic) {
			blocks++
			if t, ok := p.(llm.Text); !ok || t.Text != "" {
				content = true
			}
		}
	}
	if blocks > 0 && !content && m.Role == llm.RoleUser {
		// content: "" (or empty text blocks only): the message is empty,
		// as the recorded 400 for a user message "" says.
		c.add(Violation{Rule: ruleAntNonEmpty, Path: c.msgPath(i),
			Message:       fmt.Sprintf("the user message %s has no content: its text is empty", c.msgPath(i)),
			ProviderError: fill(tmplAntNonEmpty, "{i}", c.wireIndex(i))})
		return
	}
	if blocks == 0 {
		switch m.Role {
		case llm.RoleUser, llm.RoleTool:
			c.add(Violation{Rule: ruleAntUserNonEmpty, Path: c.msgPath(i),
				Message:       fmt.Sprintf("the user message %s has no content", c.msgPath(i)),
				ProviderError: fill(tmplAntUserNonEmpty, "{i}", c.wireIndex(i))})
		case llm.RoleAssistant:
			if !final {
				if c.warnings() {
					c.add(Violation{Rule: ruleAntNonEmpty, Path: c.msgPath(i), Warning: true,
						Message:       fmt.Sprintf("the assistant message %s has no content; only a final assistant message may be empty (the current API accepts it, older versions reject it)", c.msgPath(i)),
						ProviderError: fill(tmplAntNonEmpty, "{i}", c.wireIndex(i))})
				}
			}
		}
		return
	}
	for j, p := range m.Parts {
		t, ok := p.(llm.Text)
		if !ok {
			continue
		}
		switch {
		case t.Text == "":
			c.add(Violation{Rule: ruleAntTextNonEmpty, Path: c.partPath(i, j),
				Message:       fmt.Sprintf("%s is an empty text block; drop it", c.partPath(i, j)),
				ProviderError: tmplAntTextNonEmpty})
		case blocks == 1 && blank(t.Text):
			c.add(Violation{Rule: ruleAntTextSpace, Path: c.partPath(i, j),
				Message:       fmt.Sprintf("%s is whitespace only and the only content of its message", c.partPath(i, j)),
				ProviderError: tmplAntTextSpace})
		}
	}
}

// nextAntTurn returns the Anthropic turn that starts at message from:
// messages of one wire role, a system message alone. From len(c.msgs) on
// it returns an empty turn at len(c.msgs).
func (c *checker) nextAntTurn(from int) antTurn {
	if from >= len(c.msgs) {
		return antTurn{start: len(c.msgs), end: len(c.msgs)}
	}
	end := from + 1
	if r := antRole(c.msgs[from].Role); r != llm.RoleSystem {
		for end < len(c.msgs) && antRole(c.msgs[end].Role) == r {
			end++
		}
	}
	return antTurn{start: from, end: end}
}

// lastAntTurns returns the last two turns (fewer if there are fewer) of
// the Anthropic turns that anthropic builds from the front: runs of equal
// wire role, a system message always alone.
func (c *checker) lastAntTurns() []antTurn {
	var out [2]antTurn
	k := len(out)
	for end := len(c.msgs); k > 0; {
		t, ok := c.antTurnBefore(end)
		if !ok {
			break
		}
		k--
		out[k] = t
		end = t.start
	}
	return out[k:]
}

// antTurnBefore returns the Anthropic turn that ends at message end, as
// anthropic builds them from the front, or false when the messages before
// end are all leading system messages.
func (c *checker) antTurnBefore(end int) (antTurn, bool) {
	first := firstNonSystem(c.msgs[:end])
	if end <= first {
		return antTurn{}, false
	}
	start := end - 1
	if r := antRole(c.msgs[start].Role); r != llm.RoleSystem {
		for start > first && antRole(c.msgs[start-1].Role) == r {
			start--
		}
	}
	return antTurn{start: start, end: end}, true
}

// onlyResults reports whether user turn t holds tool results and nothing
// else Anthropic can express: a step of a tool loop, not a new question.
func (c *checker) onlyResults(t antTurn) bool {
	results := 0
	for i := t.start; i < t.end; i++ {
		for _, p := range c.msgs[i].Parts {
			if _, ok := p.(llm.ToolResult); ok {
				results++
			} else if expressible(p, Anthropic) {
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
func (c *checker) antThinking() {
	c.thinking = true
	turns := c.lastAntTurns()
	n := len(turns)
	if n < 2 || c.turnRole(turns[n-1]) != llm.RoleUser || c.turnRole(turns[n-2]) != llm.RoleAssistant || !c.onlyResults(turns[n-1]) {
		return
	}
	a := turns[n-2]
	called := false
	for i := a.start; i < a.end; i++ {
		called = called || hasCall(c.msgs[i])
	}
	if !called {
		return
	}
	// Walk back over the earlier steps of the loop.
	for {
		u, ok := c.antTurnBefore(a.start)
		for ok && c.turnRole(u) == llm.RoleSystem {
			u, ok = c.antTurnBefore(u.start)
		}
		if !ok || c.turnRole(u) != llm.RoleUser || !c.onlyResults(u) {
			break
		}
		b, ok := c.antTurnBefore(u.start)
		for ok && c.turnRole(b) == llm.RoleSystem {
			b, ok = c.antTurnBefore(b.start)
		}
		if !ok || c.turnRole(b) != llm.RoleAssistant {
			break
		}
		a = b
	}
	// The first block of the turn's first (merged) assistant message.
	found, at := "", a.start
	for i := a.start; i < a.end && found == ""; i++ {
		for _, p := range c.msgs[i].Parts {
			if !expressible(p, Anthropic) {
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
		Message:       fmt.Sprintf("extended thinking is on and the request continues the assistant turn that starts at %s (a tool loop: the last user message holds only tool results), but that message does not start with its thinking block; only the first assistant message of a turn needs one: replay its signed thinking block first, or turn thinking off for this request", c.msgPath(at)),
		ProviderError: fill(tmplAntThinking, "{i}", c.wireIndex(at), "{found}", found)})
}

// ---- Gemini: gemini.go ----

// ---- tool definitions ----

func (c *checker) tools() {
	tools := c.req.Tools
	c.dupTools()
	if c.d == OpenAIChat && len(tools) > 128 {
		c.add(Violation{Rule: ruleCCMaxTools, Path: "tools",
			Message:       fmt.Sprintf("the request defines %d tools; Chat Completions allows at most 128", len(tools)),
			ProviderError: fill(tmplCCMaxTools, "{n}", strconv.Itoa(len(tools)))})
	}
	for k, t := range tools {
		ks := strconv.Itoa(k)
		switch c.d {
		case OpenAIChat:
			path := "tools." + ks + ".function"
			if !nameOK(t.Name, 0) {
				c.add(Violation{Rule: ruleCCToolNamePat, Path: path + ".name",
					Message:       fmt.Sprintf("tool %q: names must match ^[a-zA-Z0-9_-]+$", t.Name),
					ProviderError: fill(tmplCCToolNameT, "{k}", ks)})
			}
			if len(t.Name) > 64 {
				c.add(Violation{Rule: ruleCCToolNameLen, Path: path + ".name",
					Message:       fmt.Sprintf("tool %q is %d characters long; at most 64", t.Name, len(t.Name)),
					ProviderError: fill(tmplCCToolNameLen, "{k}", ks, "{n}", strconv.Itoa(len(t.Name)))})
			}
			if t.Strict {
				c.out = append(c.out, CheckStrictSchema(t.Name, t.Parameters, path+".parameters")...)
			}
		case OpenAIResponses:
			path := "tools." + ks
			if !nameOK(t.Name, 0) {
				c.add(Violation{Rule: ruleRSToolNamePat, Path: path + ".name",
					Message:       fmt.Sprintf("tool %q: names must match ^[a-zA-Z0-9_-]+$", t.Name),
					ProviderError: fill(tmplRSToolName, "{k}", ks)})
			}
			if t.Strict {
				c.out = append(c.out, CheckStrictSchema(t.Name, t.Parameters, path+".parameters")...)
			}
		case Anthropic:
			path := "tools." + ks
			switch {
			case !nameOK(t.Name, 128):
				c.add(Violation{Rule: ruleAntToolName, Path: path + ".name",
					Message:       fmt.Sprintf("tool %q: names must match ^[a-zA-Z0-9_-]{1,128}$", t.Name),
					ProviderError: fill(tmplAntToolName, "{k}", ks)})
			case len(t.Name) > 64:
				if c.warnings() {
					c.add(Violation{Rule: ruleAntToolName, Path: path + ".name", Warning: true,
						Message: fmt.Sprintf("tool %q is %d characters long; the API accepts up to 128, the documentation says 64", t.Name, len(t.Name))})
				}
			}
			if t.Strict && c.warnings() {
				for _, v := range CheckStrictSchema(t.Name, t.Parameters, path+".input_schema") {
					v.Warning = true
					v.ProviderError = ""
					v.Message += " (OpenAI's strict subset; Anthropic publishes no list, so this is a portability warning)"
					c.add(v)
				}
			}
		case Gemini:
			path := "tools.0.functionDeclarations." + ks
			if !gemNameOK(t.Name) {
				c.add(Violation{Rule: ruleGemName, Path: path + ".name",
					Message:       fmt.Sprintf("function %q: names must start with a letter or an underscore, then letters, digits, '_', '.', ':' or '-', at most 64 characters", t.Name),
					ProviderError: fill(tmplGemName, "{k}", ks)})
			}
		}
	}
}

// dupTools reports a tool defined under the name of an earlier one:
// Anthropic and Gemini reject the request, OpenAI takes it (the model
// sees both, and a call names either), which is a warning.
func (c *checker) dupTools() {
	tools := c.req.Tools
	for k := 1; k < len(tools); k++ {
		first := firstTool(tools, k)
		if first < 0 {
			continue
		}
		name, ks, fs := tools[k].Name, strconv.Itoa(k), strconv.Itoa(first)
		same := "a different definition"
		if sameSpec(tools[k], tools[first]) {
			same = "the same definition"
		}
		v := Violation{Message: fmt.Sprintf("tools %s and %s are both named %q (%s)", fs, ks, name, same)}
		switch c.d {
		case OpenAIChat:
			v.Rule, v.Path, v.Warning = ruleCCDupTool, "tools."+ks+".function.name", true
			v.Message += "; OpenAI accepts it, but a call names either one: give each tool its own name"
		case OpenAIResponses:
			v.Rule, v.Path, v.Warning = ruleRSDupTool, "tools."+ks+".name", true
			v.Message += "; OpenAI accepts it, but a call names either one: give each tool its own name"
		case Anthropic:
			v.Rule, v.Path, v.ProviderError = ruleAntDupTool, "tools."+ks+".name", tmplAntDupTool
			v.Message += "; tool names must be unique in a request"
		case Gemini:
			v.Rule, v.Path, v.ProviderError = ruleGemDupTool, "tools.0.functionDeclarations."+ks+".name", fill(tmplGemDupTool, "{name}", name)
			v.Message += "; function names must be unique in a request"
		}
		if !v.Warning || c.warnings() {
			c.add(v)
		}
	}
}

// firstTool returns the index of the first tool before k named as tool k,
// or -1.
func firstTool(tools []llm.ToolSpec, k int) int {
	for x := range k {
		if tools[x].Name == tools[k].Name {
			return x
		}
	}
	return -1
}

// sameSpec reports whether two tool definitions say the same.
func sameSpec(a, b llm.ToolSpec) bool {
	return a.Name == b.Name && a.Description == b.Description && a.Strict == b.Strict && string(a.Parameters) == string(b.Parameters)
}

// ---- helpers ----

// nameOK reports whether name matches ^[a-zA-Z0-9_-]+$, and is at most max
// characters when max > 0.
func nameOK(name string, max int) bool {
	if name == "" || (max > 0 && len(name) > max) {
		return false
	}
	return idOK(name)
}

// idOK reports whether id matches ^[a-zA-Z0-9_-]+$.
func idOK(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return false
		}
	}
	return true
}

// idBytes is 1 at the bytes of [a-zA-Z0-9_-] ('-' is 0x2d, '0'-'9'
// 0x30-0x39, 'A'-'Z' 0x41-0x5a, '_' 0x5f, 'a'-'z' 0x61-0x7a), 0 elsewhere:
// a constant table, one load per byte.
const idBytes = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x00
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x10
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00" + // 0x20: '-'
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00\x00" + // 0x30: '0'-'9'
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0x40: 'A'-'O'
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x01" + // 0x50: 'P'-'Z', '_'
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0x60: 'a'-'o'
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00" + // 0x70: 'p'-'z'
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x80
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" // 0xf0

func idByte(b byte) bool { return idBytes[b] != 0 }

// gemNameOK reports whether name is a valid Gemini function name.
func gemNameOK(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	if b := name[0]; b != '_' && !('a' <= b && b <= 'z') && !('A' <= b && b <= 'Z') {
		return false
	}
	for i := 1; i < len(name); i++ {
		if b := name[i]; !idByte(b) && b != '.' && b != ':' {
			return false
		}
	}
	return true
}

// blank reports whether s is empty or white space only, like
// strings.TrimSpace(s) == "", but stops at the first ASCII non-space.
func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return strings.TrimSpace(s[i:]) == ""
		case c != ' ' && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r':
			return false
		}
	}
	return true
}

func hasImage(parts []llm.Part) bool {
	for _, p := range parts {
		if _, ok := p.(llm.Image); ok {
			return true
		}
	}
	return false
}

func quoteID(id string) string {
	if id == "" {
		return "(no id)"
	}
	return id
}

func idSuffix(id string) string {
	if id == "" {
		return ""
	}
	return "(" + id + ") "
}

func idSuffixParen(id string) string {
	if id == "" {
		return ""
	}
	return ", " + id
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SortViolations sorts vs into wire order: by path, comparing numeric
// segments as numbers, with system prompts first, then the message array,
// then tools. Violations at the same path keep their order.
func SortViolations(vs []Violation) {
	sort.SliceStable(vs, func(a, b int) bool { return comparePaths(vs[a].Path, vs[b].Path) < 0 })
}

func topRank(seg string) int {
	switch seg {
	case "system", "systemInstruction", "instructions":
		return 0
	case "messages", "input", "contents":
		return 1
	case "tools":
		return 2
	}
	return 3
}

func comparePaths(a, b string) int {
	if a == b {
		return 0
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	if ra, rb := topRank(as[0]), topRank(bs[0]); ra != rb {
		return ra - rb
	}
	for k := 0; k < len(as) && k < len(bs); k++ {
		if as[k] == bs[k] {
			continue
		}
		na, ea := strconv.Atoi(as[k])
		nb, eb := strconv.Atoi(bs[k])
		switch {
		case ea == nil && eb == nil:
			return na - nb
		case ea == nil:
			return -1
		case eb == nil:
			return 1
		}
		return strings.Compare(as[k], bs[k])
	}
	return len(as) - len(bs)
}
