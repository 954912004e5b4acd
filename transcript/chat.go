package transcript

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/llm"
)

// OpenAIChat is OpenAI Chat Completions.
const OpenAIChat Dialect = "openai-chat"

// Rule IDs of OpenAI Chat Completions (docs/provider-rules.md).
const (
	ruleCCAnswerAll     RuleID = "OAI-CC-ANSWER-ALL"
	ruleCCNoOrphan      RuleID = "OAI-CC-NO-ORPHAN-RESULT"
	ruleCCResultID      RuleID = "OAI-CC-RESULT-ID-REQUIRED"
	ruleCCDupResult     RuleID = "OAI-CC-DUP-RESULT"
	ruleCCNullContent   RuleID = "OAI-CC-NULL-CONTENT"
	ruleCCToolImage     RuleID = "OAI-CC-TOOL-IMAGE"
	ruleCCToolNamePat   RuleID = "OAI-CC-TOOLNAME-PATTERN"
	ruleCCToolNameLen   RuleID = "OAI-CC-TOOLNAME-LEN"
	ruleCCMaxTools      RuleID = "OAI-CC-MAX-TOOLS"
	ruleCCMaxToolCalls  RuleID = "OAI-CC-MAX-TOOLCALLS"
	ruleCCIDLen         RuleID = "OAI-CC-ID-LEN"
	ruleCCEmptyMessages RuleID = "OAI-CC-EMPTY-MESSAGES"
	ruleCCPartType      RuleID = "OAI-CC-PART-TYPE"
	ruleCCDupTool       RuleID = "OAI-CC-DUP-TOOL" // [DERIVED]
)

// The provider's error texts, with placeholders for fill.
const (
	tmplCCAnswerAll   = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
	tmplCCNoOrphan    = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
	tmplCCResultID    = "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'."
	tmplCCDupResult   = "Invalid parameter: Duplicate value for 'tool_call_id' of '{id}', in messages[{a}] and messages[{b}]."
	tmplCCNullContent = "Invalid value for 'content': expected a string, got null."
	tmplCCToolImage   = "Invalid 'messages[{i}]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."
	tmplCCToolNameT   = "Invalid 'tools[{k}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
	tmplCCToolNameM   = "Invalid 'messages[{i}].tool_calls[{n}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
	tmplCCToolNameLen = "Invalid 'tools[{k}].function.name': string too long. Expected a string with maximum length 64, but got a string with length {n} instead."
	tmplCCMaxTools    = "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length {n} instead."
	tmplCCMaxCalls    = "Invalid 'messages[{i}].tool_calls': array too long. Expected an array with maximum length 128, but got an array with length {n} instead."
	tmplCCIDLen       = "Invalid 'messages[{i}].tool_calls[{k}].id': string too long. Expected a string with maximum length 40, but got a string with length {n} instead."
	tmplCCEmpty       = "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead."
	// tmplCCPartType is the text OpenAI returned for a recorded body (the
	// rejected case crewai-content-part-missing-type of the corpus
	// provider/wire's RealTraffic test replays).
	tmplCCPartType = "Missing required parameter: 'messages[{i}].content[{j}].type'."
)

// chat is Chat Completions: an assistant message with tool_calls, then a
// tool message per result, in any order, before any other message; ids
// are free-form (Azure OpenAI takes at most 40 characters); no reasoning.
var chat = &dialect{
	name:  OpenAIChat,
	array: "messages",
	place: placeChat,

	pairing:    pairRun,
	unanswered: ruleCCAnswerAll,
	orphan:     ruleCCNoOrphan,
	duplicate:  ruleCCDupResult,
	late:       ruleCCAnswerAll,
	foreign:    ruleCCNoOrphan,

	ids: idRules{prefix: "call_", max: 40, // what Azure OpenAI accepts (OAI-CC-ID-LEN)
		missing: ruleCCAnswerAll, reused: ruleCCDupResult, result: ruleCCResultID},
	badName:  func(name string, def bool) bool { return !nameOK(name, 0) || def && len(name) > 64 },
	nameRule: ruleCCToolNamePat,
	toolPath: "tools.%d.function",
	callName: "function.name",

	emptyRule:    ruleCCNullContent,
	resultImages: ruleCCToolImage,
	strict:       true,
	dupTool:      openAIDupTool(ruleCCDupTool),
	unrepairable: []RuleID{ruleCCEmptyMessages, ruleCCPartType},

	check:      checkChat,
	checkTools: checkChatTools,
}

// placeChat lays out one message for Chat Completions: a tool message
// takes an entry per result, and its other parts a user message after
// them; a lone text is the string content itself.
func placeChat(d *dialect, m llm.Message, w int, parts []loc) (loc, int) {
	switch m.Role {
	case llm.RoleAssistant:
		texts, calls, tk := 0, 0, 0
		for _, part := range m.Parts {
			if _, ok := part.(llm.Text); ok {
				texts++
			}
		}
		for j, part := range m.Parts {
			switch part.(type) {
			case llm.Text:
				if texts == 1 {
					parts[j] = loc{entry: w, field: memberContent, sub: whole}
				} else {
					parts[j] = loc{entry: w, field: memberContent, sub: tk}
				}
				tk++
			case llm.ToolCall:
				parts[j] = loc{entry: w, field: memberToolCalls, sub: calls}
				calls++
			}
		}
		return entryLoc(w), w + 1
	case llm.RoleTool:
		results := 0
		var trailing []int
		for j, part := range m.Parts {
			if _, ok := part.(llm.ToolResult); ok {
				parts[j] = entryLoc(w + results)
				results++
			} else if expressible(part, d) {
				trailing = append(trailing, j)
			}
		}
		if results == 0 && len(trailing) == 0 {
			return dropped, w
		}
		u := w + results
		for k, j := range trailing {
			parts[j] = contentLoc(u, k, len(trailing), m.Parts[j])
		}
		if len(trailing) > 0 {
			return entryLoc(w), u + 1
		}
		return entryLoc(w), u
	default:
		n := 0
		for _, part := range m.Parts {
			if expressible(part, d) {
				n++
			}
		}
		k := 0
		for j, part := range m.Parts {
			if expressible(part, d) {
				parts[j] = contentLoc(w, k, n, part)
				k++
			}
		}
		return entryLoc(w), w + 1
	}
}

// contentLoc places the k-th of n content parts of entry w: a lone text
// part is the string content itself.
func contentLoc(w, k, n int, part llm.Part) loc {
	if _, ok := part.(llm.Text); ok && n == 1 {
		return loc{entry: w, field: memberContent, sub: whole}
	}
	return loc{entry: w, field: memberContent, sub: k}
}

// checkChat pairs the calls of each assistant message with the tool
// messages right after it, and checks ids, names and content.
func checkChat(c *checker) {
	type call struct {
		id, name string
		answered bool
	}
	var open []call // calls of the assistant message whose tool run is open
	var buf []call  // the array of open, reused: a run is closed before the next opens
	openMsg := -1
	entries := false              // a message takes an entry of the array (placeChat)
	seen := c.idPlaces(c.results) // tool_call_id -> message and part of its first result
	closeRun := func(next int) {
		if openMsg < 0 {
			return
		}
		unanswered := slices.ContainsFunc(open, func(cl call) bool { return !cl.answered })
		if unanswered {
			v := Violation{Rule: ruleCCAnswerAll, Path: c.msgPath(openMsg)}
			if !c.quiet { // the explanation names each call, and the paths of two messages
				var ids, names []string
				for _, cl := range open {
					if !cl.answered {
						ids = append(ids, cl.id)
						names = append(names, fmt.Sprintf("%s (%s)", cl.name, quoteID(cl.id)))
					}
				}
				v.Message = fmt.Sprintf("the assistant message %s calls %s, but no tool message answers %s before %s; every call needs a tool message with its tool_call_id directly after the assistant message",
					c.msgPath(openMsg), strings.Join(names, ", "), plural(len(ids), "it", "them"), c.describe(next))
				v.ProviderError = fill(tmplCCAnswerAll, "{ids}", strings.Join(ids, ", "))
			}
			c.add(v)
		}
		open, openMsg = nil, -1
	}
	for i, m := range c.msgs {
		switch m.Role {
		case llm.RoleTool:
			results, trailing := 0, 0
			for j, p := range m.Parts {
				r, ok := p.(llm.ToolResult)
				if !ok {
					if expressible(p, c.d) {
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
				// Paths are made only for what is reported.
				path := func() string { return c.partPath(i, j) }
				w := func() string { x, _ := c.partWire(i, j); return x }
				if r.CallID == "" {
					c.add(Violation{Rule: ruleCCResultID, Path: path() + ".tool_call_id",
						Message:       c.sprintf("the tool message %s has no tool_call_id, so it answers no call", path()),
						ProviderError: tmplCCResultID})
					continue
				}
				if hasImage(r.Content) {
					c.add(Violation{Rule: ruleCCToolImage, Path: path(),
						Message:       c.sprintf("the result of %s at %s holds an image; Chat Completions tool messages hold text only (older models reject it, newer ones ignore the image): move the image into a user message after the tool messages", r.CallID, path()),
						ProviderError: c.fill(tmplCCToolImage, "{i}", w())})
				}
				found := false
				for k := range open {
					if open[k].id == r.CallID && !open[k].answered {
						open[k].answered, found = true, true
						break
					}
				}
				if first, dup := seen[r.CallID]; dup {
					a := c.layout().part(first[0], first[1]).entry // the first tool message
					c.add(Violation{Rule: ruleCCDupResult, Path: path() + ".tool_call_id",
						Message:       c.sprintf("a second tool message answers %s (the first is messages.%d); each tool_call_id may be answered once in a request", r.CallID, a),
						ProviderError: c.fill(tmplCCDupResult, "{id}", r.CallID, "{a}", strconv.Itoa(a), "{b}", w())})
					continue
				}
				seen[r.CallID] = [2]int{i, j}
				if !found {
					v := Violation{Rule: ruleCCNoOrphan, Path: path(), ProviderError: tmplCCNoOrphan}
					if !c.quiet { // the explanation has the paths of two messages
						why := "no assistant message with tool_calls comes directly before it (tool messages must follow the assistant message that made the call, with nothing between)"
						if openMsg >= 0 {
							why = fmt.Sprintf("%s is not one of the calls of the assistant message %s", r.CallID, c.msgPath(openMsg))
						}
						v.Message = fmt.Sprintf("the tool message %s answers %s, but %s", v.Path, r.CallID, why)
					}
					c.add(v)
				}
			}
			if results == 0 || trailing > 0 {
				closeRun(i + 1) // trailing parts go into a user message
			}
			entries = entries || results+trailing > 0
		case llm.RoleAssistant:
			entries = true
			closeRun(i)
			calls := buf[:0]
			text := false
			for j, p := range m.Parts {
				switch p := p.(type) {
				case llm.Text:
					text = true
				case llm.ToolCall:
					calls = append(calls, call{id: p.ID, name: p.Name})
					c.chatCall(i, j, len(calls)-1, p)
				case llm.Opaque:
					// Content the llm form does not model (a refusal, audio,
					// a legacy function_call) is content.
					text = text || expressible(p, c.d)
					c.typeless(i, j, -1, p)
				}
			}
			if len(calls) > 128 {
				c.add(Violation{Rule: ruleCCMaxToolCalls, Path: c.msgPath(i) + ".tool_calls", Warning: true,
					Message:       c.sprintf("the assistant message %s has %d tool calls; some OpenAI-compatible gateways allow at most 128", c.msgPath(i), len(calls)),
					ProviderError: c.fill(tmplCCMaxCalls, "{i}", c.wireIndex(i), "{n}", strconv.Itoa(len(calls)))})
			}
			if !text && len(calls) == 0 {
				c.add(Violation{Rule: ruleCCNullContent, Path: c.msgPath(i) + ".content",
					Message:       c.sprintf("the assistant message %s has neither text nor tool calls, so its content would be null", c.msgPath(i)),
					ProviderError: tmplCCNullContent})
			}
			if len(calls) > 0 {
				open, openMsg = calls, i
			}
			buf = calls[:0]
		default:
			entries = true
			closeRun(i)
			for j, p := range m.Parts {
				if o, ok := p.(llm.Opaque); ok {
					c.typeless(i, j, -1, o)
				}
			}
			if len(m.Parts) == 0 {
				c.add(Violation{Rule: ruleCCNullContent, Path: c.msgPath(i) + ".content",
					Message:       c.sprintf("the %s message %s has no content", m.Role, c.msgPath(i)),
					ProviderError: tmplCCNullContent})
			}
		}
	}
	closeRun(len(c.msgs))
	if !entries {
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
		Message:       c.sprintf("the content part %s has no \"type\"; every part of a content array names its type (text, image_url, input_audio, file, ...), and this one's cannot be guessed: fix the code that built it", path),
		ProviderError: c.fill(tmplCCPartType, "{i}", w, "{j}", sub)})
}

// chatCall checks call p, the n-th call of message i, at part j.
func (c *checker) chatCall(i, j, n int, p llm.ToolCall) {
	path := func() string { return c.partPath(i, j) }
	if !nameOK(p.Name, 0) {
		c.add(Violation{Rule: ruleCCToolNamePat, Path: path() + ".function.name",
			Message:       c.sprintf("tool call %s names the tool %q; names must match ^[a-zA-Z0-9_-]+$", quoteID(p.ID), p.Name),
			ProviderError: c.fill(tmplCCToolNameM, "{i}", c.wireIndex(i), "{n}", strconv.Itoa(n))})
	}
	if l := len(p.ID); l > 40 {
		c.add(Violation{Rule: ruleCCIDLen, Path: path() + ".id", Warning: true,
			Message:       c.sprintf("tool call id %s is %d characters; api.openai.com accepts it, but Azure OpenAI and some gateways allow at most 40", p.ID, l),
			ProviderError: c.fill(tmplCCIDLen, "{i}", c.wireIndex(i), "{k}", strconv.Itoa(n), "{n}", strconv.Itoa(l))})
	}
}

func checkChatTools(c *checker) {
	tools := c.req.Tools
	if len(tools) > 128 {
		c.add(Violation{Rule: ruleCCMaxTools, Path: "tools",
			Message:       c.sprintf("the request defines %d tools; Chat Completions allows at most 128", len(tools)),
			ProviderError: c.fill(tmplCCMaxTools, "{n}", strconv.Itoa(len(tools)))})
	}
	for k, t := range tools {
		ks := strconv.Itoa(k)
		path := c.d.pathOfTool(k)
		if !nameOK(t.Name, 0) {
			c.add(Violation{Rule: ruleCCToolNamePat, Path: path + ".name",
				Message:       c.sprintf("tool %q: names must match ^[a-zA-Z0-9_-]+$", t.Name),
				ProviderError: c.fill(tmplCCToolNameT, "{k}", ks)})
		}
		if len(t.Name) > 64 {
			c.add(Violation{Rule: ruleCCToolNameLen, Path: path + ".name",
				Message:       c.sprintf("tool %q is %d characters long; at most 64", t.Name, len(t.Name)),
				ProviderError: c.fill(tmplCCToolNameLen, "{k}", ks, "{n}", strconv.Itoa(len(t.Name)))})
		}
		c.strictSchema(t, path+".parameters")
	}
}
