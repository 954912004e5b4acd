package transcript

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
)

// OpenAIResponses is OpenAI Responses.
const OpenAIResponses Dialect = "openai-responses"

// Rule IDs of OpenAI Responses (docs/provider-rules.md).
const (
	ruleRSAnswerAll    RuleID = "OAI-RS-ANSWER-ALL"
	ruleRSNoOrphan     RuleID = "OAI-RS-NO-ORPHAN-OUTPUT"
	ruleRSDupItem      RuleID = "OAI-RS-DUP-ITEM"
	ruleRSDupCallID    RuleID = "OAI-RS-DUP-CALLID" // [DERIVED]
	ruleRSReasonPair   RuleID = "OAI-RS-REASONING-PAIR"
	ruleRSReasonFollow RuleID = "OAI-RS-REASONING-FOLLOW"
	ruleRSCallIDLen    RuleID = "OAI-RS-CALLID-LEN"
	ruleRSToolNamePat  RuleID = "OAI-RS-TOOLNAME-PATTERN"
	ruleRSDupTool      RuleID = "OAI-RS-DUP-TOOL" // [DERIVED]
)

// The provider's error texts, with placeholders for fill.
const (
	tmplRSAnswerAll    = "No tool output found for function call {id}."
	tmplRSNoOrphan     = "No tool call found for function call output with call_id {id}."
	tmplRSDupItem      = "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
	tmplRSReasonFollow = "Item '{id}' of type 'reasoning' was provided without its required following item."
	tmplRSReasonPair   = "Item '{fc_id}' of type 'function_call' was provided without its required 'reasoning' item: '{rs_id}'."
	tmplRSCallIDLen    = "Invalid 'input[{i}].call_id': string too long. Expected a string with maximum length 64, but got a string with length {n} instead."
	tmplRSToolName     = "Invalid 'tools[{k}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
)

// responses is the Responses API: input is a list of items, and a
// function_call_output answers the function_call with its call_id anywhere
// before it (or one the server holds, with previous_response_id); call_ids
// are 1 to 64 characters; reasoning items precede what the model did
// after them.
var responses = &dialect{
	name:      OpenAIResponses,
	array:     "input",
	reasoning: true,
	place:     placeResponses,

	pairing:     pairAfter,
	storedCalls: true,
	unanswered:  ruleRSAnswerAll,
	orphan:      ruleRSNoOrphan,
	duplicate:   ruleRSDupCallID,

	ids: idRules{prefix: "call_", max: 64,
		missing: ruleRSCallIDLen, tooLong: ruleRSCallIDLen, reused: ruleRSDupCallID, result: ruleRSCallIDLen},
	badName:  func(name string, def bool) bool { return !nameOK(name, 0) },
	nameRule: ruleRSToolNamePat,
	toolPath: "tools.%d",
	callName: "name",

	strict:  true,
	dupTool: openAIDupTool(ruleRSDupTool),

	check:      checkResponses,
	checkTools: checkResponsesTools,
	items:      responseItems,
}

// placeResponses lays out one message for the Responses API: an
// assistant message is an item per call and reasoning, and a message item
// per run of text and images; a tool message is an item per result, its
// other parts one message item after them.
func placeResponses(d *dialect, m llm.Message, w int, parts []loc) (loc, int) {
	msg := dropped
	switch m.Role {
	case llm.RoleAssistant:
		run := -1 // index inside the open message item, -1: none open
		for j, part := range m.Parts {
			switch part.(type) {
			case llm.Text, llm.Image:
				if run < 0 {
					run = 0
					w++
				}
				parts[j] = loc{entry: w - 1, field: memberContent, sub: run}
				run++
			case llm.ToolCall:
				parts[j] = entryLoc(w)
				w++
				run = -1
			case llm.Reasoning, llm.Opaque:
				if expressible(part, d) {
					parts[j] = entryLoc(w)
					w++
					run = -1
				}
			}
			if msg.place == NotEncoded && parts[j].place == InArray {
				msg = entryLoc(parts[j].entry)
			}
		}
		return msg, w
	case llm.RoleTool:
		k := 0
		trailing := -1
		for j, part := range m.Parts {
			switch part.(type) {
			case llm.ToolResult:
				parts[j] = entryLoc(w)
				w++
			default:
				if !expressible(part, d) {
					continue
				}
				if trailing < 0 {
					trailing = w
					w++
				}
				parts[j] = loc{entry: trailing, field: memberContent, sub: k}
				k++
			}
			if msg.place == NotEncoded && parts[j].place == InArray {
				msg = entryLoc(parts[j].entry)
			}
		}
		return msg, w
	default:
		k := 0
		for j, part := range m.Parts {
			if expressible(part, d) {
				parts[j] = loc{entry: w, field: memberContent, sub: k}
				k++
			}
		}
		return entryLoc(w), w + 1
	}
}

// checkResponses pairs function_call_output items with the calls before
// them by call_id, and checks call_ids, item ids and reasoning items.
func checkResponses(c *checker) {
	type call struct {
		i, j     int
		id       string
		answered bool
	}
	byID := make(map[string]int, c.calls) // call_id -> index in calls
	calls := make([]call, 0, c.calls)     // in order, for ANSWER-ALL
	items := map[string][2]int{}
	sawReasoning := false
	opaqueCalls := map[string]bool{} // call_ids of calls the llm form does not model (tool_search_call, ...)
	for _, m := range c.msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.Reasoning:
				sawReasoning = sawReasoning || expressible(p, c.d)
			case llm.Opaque:
				if p.CallID != "" && expressible(p, c.d) {
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
				Message:       c.sprintf("the %s item %s has the id %s of an earlier item (%s); each item id may appear once", kind, path, id, c.partPath(first[0], first[1])),
				ProviderError: c.fill(tmplRSDupItem, "{id}", id)})
			return
		}
		items[id] = [2]int{i, j}
	}
	for i, m := range c.msgs {
		switch m.Role {
		case llm.RoleAssistant:
			hasReasoning := false
			for j, p := range m.Parts {
				switch p := p.(type) {
				case llm.Reasoning:
					if !expressible(p, c.d) {
						continue
					}
					hasReasoning = true
					id := reasoningID(p)
					itemID(i, j, id, "reasoning")
					if nextItem(m.Parts, j+1, c.d) < 0 {
						c.add(Violation{Rule: ruleRSReasonFollow, Path: c.partPath(i, j),
							Message:       c.sprintf("the reasoning item %s %sis the last item of its assistant turn; a reasoning item must be followed by the item the model produced after it (a function_call or message)", c.partPath(i, j), idSuffix(id)),
							ProviderError: c.fill(tmplRSReasonFollow, "{id}", id)})
					}
				case llm.ToolCall:
					path := func() string { return c.partPath(i, j) }
					itemID(i, j, p.ItemID, "function_call")
					if !nameOK(p.Name, 0) {
						c.add(Violation{Rule: ruleRSToolNamePat, Path: path() + ".name",
							Message: c.sprintf("function_call %s names the tool %q; names must match ^[a-zA-Z0-9_-]+$", quoteID(p.ID), p.Name)})
					}
					if p.ID == "" || longerThan(p.ID, 64) {
						l := utf8.RuneCountInString(p.ID)
						c.add(Violation{Rule: ruleRSCallIDLen, Path: path() + ".call_id",
							Message:       c.sprintf("function_call %s has a call_id of %d characters; call_id must be 1 to 64 characters", path(), l),
							ProviderError: c.callIDLenError(c.wireIndex(i), l)})
						continue
					}
					if k, dup := byID[p.ID]; dup {
						prev := calls[k]
						c.add(Violation{Rule: ruleRSDupCallID, Path: path() + ".call_id",
							Message: c.sprintf("function_call %s reuses call_id %s of %s; outputs are paired with calls by call_id, so each must be unique", path(), p.ID, c.partPath(prev.i, prev.j))})
						continue
					}
					switch {
					case p.ItemID == "" || c.req.PreviousResponse:
					case sawReasoning && !hasReasoning:
						c.add(Violation{Rule: ruleRSReasonPair, Path: path(), Warning: true,
							Message: c.sprintf("function_call %s (%s) has no reasoning item before it in its turn, while other turns carry reasoning items; if a reasoning model made this call, OpenAI rejects it without the reasoning item that preceded it", path(), p.ItemID)})
					case sawReasoning:
					case pairYes:
						// A warning: the server knows which model made the
						// call, the body does not. A call a model without
						// reasoning made earlier is accepted with its id
						// (recorded 200, model gpt-5).
						c.add(Violation{Rule: ruleRSReasonPair, Path: path(), Warning: true,
							Message:       c.sprintf("function_call %s (%s) is replayed with its item id, and the input holds no reasoning item; %s reasons before each call (docs/provider-rules.md, OpenAI reasoning models), so if it made this call the server holds it with the reasoning item that came before it and rejects it alone (a call an earlier model without reasoning made is accepted, and the body does not say which made it): replay the reasoning items (include \"reasoning.encrypted_content\" with store false), or send the call without its id", path(), p.ItemID, c.req.Model),
							ProviderError: c.fill(tmplRSReasonPair, "{fc_id}", p.ItemID, "{rs_id}", "rs_…")})
					case !pairKnown:
						model := c.req.Model
						if model == "" {
							model = "the model is not named"
						} else {
							model = fmt.Sprintf("model %q is not in toolwire's table", model)
						}
						c.add(Violation{Rule: ruleRSReasonPair, Path: path(), Warning: true,
							Message: c.sprintf("function_call %s (%s) is replayed with its item id, and the input holds no reasoning item; if a reasoning model made it, OpenAI rejects it without its reasoning item (%s)", path(), p.ItemID, model)})
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
				if r.CallID == "" || longerThan(r.CallID, 64) {
					l := utf8.RuneCountInString(r.CallID)
					c.add(Violation{Rule: ruleRSCallIDLen, Path: path() + ".call_id",
						Message:       c.sprintf("function_call_output %s has a call_id of %d characters; call_id must be 1 to 64 characters", path(), l),
						ProviderError: c.callIDLenError(strconv.Itoa(c.layout().part(i, j).entry), l)})
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
						Message:       c.sprintf("function_call_output %s answers %s, but no function_call with that call_id comes before it in input", path(), r.CallID),
						ProviderError: c.fill(tmplRSNoOrphan, "{id}", r.CallID)})
				case cl.answered:
					c.add(Violation{Rule: ruleRSDupCallID, Path: path(),
						Message: c.sprintf("function_call_output %s answers %s a second time; each call takes one output", path(), r.CallID)})
				default:
					cl.answered = true
				}
			}
		}
	}
	for _, cl := range calls {
		if id := cl.id; !cl.answered {
			v := Violation{Rule: ruleRSAnswerAll, Path: c.partPath(cl.i, cl.j)}
			if !c.quiet {
				v.Message = fmt.Sprintf("function_call %s (%s) has no function_call_output with call_id %s", v.Path, c.msgs[cl.i].Parts[cl.j].(llm.ToolCall).Name, id)
				v.ProviderError = fill(tmplRSAnswerAll, "{id}", id)
			}
			c.add(v)
		}
	}
}

// nextItem returns the index of the first part from which is a Responses
// item other than reasoning, or -1.
func nextItem(parts []llm.Part, from int, d *dialect) int {
	for j := from; j < len(parts); j++ {
		if _, ok := parts[j].(llm.Reasoning); !ok && expressible(parts[j], d) {
			return j
		}
	}
	return -1
}

func (c *checker) callIDLenError(i string, l int) string {
	if l == 0 {
		return ""
	}
	return c.fill(tmplRSCallIDLen, "{i}", i, "{n}", strconv.Itoa(l))
}

// reasoningID returns the "id" of a Responses reasoning item kept whole in
// r.Data, or "". The item is read strictly, as every reader of the module
// reads JSON (internal/jsonx).
func reasoningID(r llm.Reasoning) string {
	if len(r.Data) == 0 {
		return ""
	}
	item, err := jsonx.DecodeAny(r.Data)
	if err != nil {
		return ""
	}
	obj, _ := item.(map[string]any)
	id, _ := obj["id"].(string)
	return id
}

func checkResponsesTools(c *checker) {
	for k, t := range c.req.Tools {
		path := c.d.pathOfTool(k)
		if !nameOK(t.Name, 0) {
			c.add(Violation{Rule: ruleRSToolNamePat, Path: path + ".name",
				Message:       c.sprintf("tool %q: names must match ^[a-zA-Z0-9_-]+$", t.Name),
				ProviderError: c.fill(tmplRSToolName, "{k}", strconv.Itoa(k))})
		}
		c.strictSchema(t, path+".parameters")
	}
}

// responseItems drops reasoning items with no following item and
// duplicate item ids from the repaired assistant message m, and clears the
// item ids of a reasoning model's calls when the input holds no reasoning
// item (OAI-RS-REASONING-PAIR, a warning: Repair runs for another rule,
// and a call without an item id is accepted whichever model made it).
func responseItems(ps *post, m *wmsg) {
	if ps.seen == nil {
		ps.seen = map[string]bool{}
		ps.clearIDs = pairFails(ps.rp)
	}
	seen := ps.seen
	rp := ps.rp
	// keep is made on the first change: m's parts may be the input's.
	var keep []wpart
	edit := func(k int) {
		if keep == nil {
			keep = append(make([]wpart, 0, len(m.parts)), m.parts[:k]...)
		}
		m.changed = true
	}
	for k, p := range m.parts {
		switch pp := p.p.(type) {
		case llm.Reasoning:
			if !expressible(pp, rp.d) {
				break
			}
			id := reasoningID(pp)
			if id != "" && seen[id] {
				ps.change(ruleRSDupItem, rp.origPath(p.om, p.op), ActionDrop, fmt.Sprintf("dropped a second copy of reasoning item %s", id))
				edit(k)
				continue
			}
			if nextItemW(m.parts, k+1, rp.d) < 0 {
				ps.change(ruleRSReasonFollow, rp.origPath(p.om, p.op), ActionDrop, fmt.Sprintf("dropped reasoning item %s, which no item follows in its turn", quoteID(id)))
				edit(k)
				continue
			}
			if id != "" {
				seen[id] = true
			}
		case llm.ToolCall:
			switch {
			case pp.ItemID != "" && seen[pp.ItemID]:
				ps.change(ruleRSDupItem, rp.origPath(p.om, p.op), ActionRewriteID, fmt.Sprintf("cleared the item id %s of function_call %s, already used by an earlier item", pp.ItemID, pp.ID))
				pp.ItemID = ""
				p.p = pp
				edit(k)
			case pp.ItemID != "" && ps.clearIDs:
				ps.change(ruleRSReasonPair, rp.origPath(p.om, p.op), ActionRewriteID, fmt.Sprintf("cleared the item id %s of function_call %s: the server holds that call with the reasoning item the input lacks, and takes a call without an id as a new one", pp.ItemID, pp.ID))
				pp.ItemID = ""
				p.p = pp
				edit(k)
			case pp.ItemID != "":
				seen[pp.ItemID] = true
			}
		}
		if keep != nil {
			keep = append(keep, p)
		}
	}
	if keep != nil {
		m.parts = keep
	}
}

// nextItemW returns the index of the first part from which is a
// Responses item other than reasoning, or -1.
func nextItemW(parts []wpart, from int, d *dialect) int {
	for j := from; j < len(parts); j++ {
		if _, ok := parts[j].p.(llm.Reasoning); !ok && expressible(parts[j].p, d) {
			return j
		}
	}
	return -1
}

// pairFails reports whether the calls of the request break
// OAI-RS-REASONING-PAIR as Check judges it: a known reasoning model, no
// reasoning item in the input, no stored conversation.
func pairFails(rp *repairer) bool {
	if rp.req.PreviousResponse {
		return false
	}
	if yes, known := reasons(rp.req.Model, rp.req.ReasoningEffort); !yes || !known {
		return false
	}
	for _, m := range rp.w {
		for _, p := range m.parts {
			if r, ok := p.p.(llm.Reasoning); ok && expressible(r, rp.d) {
				return false
			}
		}
	}
	return true
}

// ---- OpenAI reasoning models ----

// openAIReasoning says whether an OpenAI model's function calls come with
// reasoning items, which a replay must carry (OAI-RS-REASONING-PAIR).
type openAIReasoning uint8

const (
	// reasoningUnknown: a model the table does not know.
	reasoningUnknown openAIReasoning = iota
	// reasoningNever: not a reasoning model (gpt-4o, gpt-4.1, ...).
	reasoningNever
	// reasoningAlways: the model always reasons before it answers or
	// calls (o1, o3, o4-mini, gpt-5, gpt-5-mini, gpt-5-nano, ...), even at
	// its lowest effort ("minimal").
	reasoningAlways
	// reasoningOnRequest: the model reasons only when the request sets a
	// reasoning effort other than "none" (gpt-5.1 and later, whose default
	// effort is "none").
	reasoningOnRequest
)

// openAIModels is the table of docs/provider-rules.md ("OpenAI reasoning
// models"), by model name prefix; the first match wins. A model name
// matches a prefix when it is the prefix, or goes on with "-" or ".".
var openAIModels = []struct {
	prefix string
	kind   openAIReasoning
}{
	{"gpt-5-chat", reasoningNever}, // the ChatGPT model: no reasoning
	{"gpt-5.", reasoningOnRequest}, // gpt-5.1, gpt-5.2, ... (gpt-5.1-chat included: effort none)
	{"gpt-5", reasoningAlways},     // gpt-5, gpt-5-mini, gpt-5-nano, gpt-5-pro, gpt-5-codex
	{"o1", reasoningAlways},
	{"o3", reasoningAlways},
	{"o4", reasoningAlways},
	{"codex-mini", reasoningAlways},
	{"gpt-4o", reasoningNever},
	{"gpt-4", reasoningNever}, // gpt-4, gpt-4.1, gpt-4.1-mini, ...
	{"gpt-3.5", reasoningNever},
	{"chatgpt-4o", reasoningNever},
}

// openAIReasoningOf returns what the table says of model.
func openAIReasoningOf(model string) openAIReasoning {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "openai/gpt-5" as a gateway names it
	}
	for _, e := range openAIModels {
		rest, ok := strings.CutPrefix(m, e.prefix)
		if !ok {
			continue
		}
		if rest == "" || strings.HasSuffix(e.prefix, ".") || rest[0] == '-' || rest[0] == '.' {
			return e.kind
		}
	}
	return reasoningUnknown
}

// reasons reports whether, by the table, the calls of a request for model
// with the given reasoning effort come with reasoning items: yes, no, or
// not known (the model is not in the table).
func reasons(model, effort string) (yes, known bool) {
	switch openAIReasoningOf(model) {
	case reasoningAlways:
		return true, true
	case reasoningNever:
		return false, true
	case reasoningOnRequest:
		if effort == "" && strings.Contains(strings.ToLower(model), "codex") {
			return false, false // the codex models' default effort is not "none"
		}
		return effort != "" && effort != "none", true
	}
	return false, false
}
