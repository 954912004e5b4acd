package transcript

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolwire/toolwire/internal/callid"
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
	// (ANT-THINKING-FIRST and ANT-THINKING-TOOLCHOICE apply).
	Thinking bool
	// ToolChoice is the request's tool_choice: whether it forces a tool
	// call, which Anthropic refuses with extended thinking
	// (ANT-THINKING-TOOLCHOICE). The zero value is auto, the default.
	ToolChoice llm.ToolChoice
	// PreviousResponse is set when an OpenAI Responses request continues a
	// stored response or conversation (previous_response_id, conversation):
	// its function_call_output items may answer calls that are not in the
	// input, and the server already holds the reasoning items of its calls.
	PreviousResponse bool
	// CachedContent is set when a Gemini request names cachedContent: its
	// contents continue the cached ones, so they may start with function
	// responses (the call is in the cache) or a function-call turn
	// (GEM-CACHED-PREFIX).
	CachedContent bool
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
	rules := rulesOf(d)
	if rules == nil {
		return []Violation{{Rule: ruleDialect, Message: fmt.Sprintf("unknown dialect %q (want %s)", d, dialectNames("or"))}}
	}
	return check(r, rules, false).out
}

// check runs the checks of dialect d on r; the checker it returns holds
// the sorted violations and the layout, if reporting them made one. With
// quiet, the violations have no Message and no ProviderError: the caller
// reads only their rules, paths and warnings.
func check(r Request, d *dialect, quiet bool) *checker {
	return run(&checker{msgs: r.Messages, d: d, req: r, quiet: quiet})
}

// recheck is check of r with the dialect and quietness of c, an earlier
// check, whose map of id places it reuses: Repair checks its output as it
// checked its input, and the map is as large.
func (c *checker) recheck(r Request) *checker {
	return run(&checker{msgs: r.Messages, d: c.d, req: r, quiet: c.quiet, places: c.places})
}

// run runs the checks of c's dialect and sorts the violations.
func run(c *checker) *checker {
	c.shape()
	c.d.check(c)
	c.dupTools()
	c.d.checkTools(c)
	SortViolations(c.out)
	return c
}

// checker accumulates the violations of one request: the walks every
// dialect shares are its methods, and each dialect's check reads the
// messages through it.
type checker struct {
	msgs []llm.Message
	d    *dialect
	req  Request
	lay  *Map // made by layout on first use: an accepted request needs no paths
	out  []Violation
	// calls and results count the tool calls and results (shape), to size
	// the dialects' maps of ids.
	calls, results int
	// quiet: no one reads the violations' explanations (Repair's first
	// check wants only to know what is broken and where), so sprintf and
	// fill write none.
	quiet bool
	// places maps an id to the message and part of its first use, for
	// the dialect's check (Chat: results); see idPlaces.
	places map[string][2]int
}

// idPlaces returns the map of id places emptied, made for n ids if c has
// none (recheck hands a check the map of the one before).
func (c *checker) idPlaces(n int) map[string][2]int {
	if c.places == nil {
		c.places = make(map[string][2]int, n)
	} else {
		clear(c.places)
	}
	return c.places
}

func (c *checker) add(v Violation) { c.out = append(c.out, v) }

// sprintf is fmt.Sprintf for a violation's Message; "" when c is quiet.
func (c *checker) sprintf(format string, a ...any) string {
	if c.quiet {
		return ""
	}
	return fmt.Sprintf(format, a...)
}

// fill is fill for a violation's ProviderError; "" when c is quiet.
func (c *checker) fill(template string, kv ...string) string {
	if c.quiet {
		return ""
	}
	return fill(template, kv...)
}

// layout returns where the messages go in the body.
func (c *checker) layout() *Map {
	if c.lay == nil {
		c.lay = newMap(c.msgs, c.d)
	}
	return c.lay
}

func (c *checker) msgPath(i int) string { l := c.layout(); return l.path(l.msg(i)) }

func (c *checker) partPath(i, j int) string {
	l := c.layout()
	if p := l.path(l.part(i, j)); p != "" {
		return p
	}
	return c.msgPath(i)
}

// wireIndex is the array entry of message i, as provider errors number it.
func (c *checker) wireIndex(i int) string { return strconv.Itoa(c.layout().msg(i).entry) }

// partWire is the array entry of part j of message i and its index there;
// for a part the body has no place for, the entry of its message.
func (c *checker) partWire(i, j int) (string, string) {
	l := c.layout()
	x := l.part(i, j)
	if x.place != InArray {
		x.entry = l.msg(i).entry
	}
	return strconv.Itoa(x.entry), strconv.Itoa(x.sub)
}

// describe names a message for explanations: "messages.3 (user)"; ""
// when c is quiet.
func (c *checker) describe(i int) string {
	switch {
	case c.quiet:
		return ""
	case i >= len(c.msgs):
		return "the end of the transcript"
	}
	p := c.msgPath(i)
	if p == "" {
		p = fmt.Sprintf("message %d", i)
	}
	return fmt.Sprintf("%s (%s)", p, c.msgs[i].Role)
}

// shape reports parts that the llm model does not allow where they are
// (TW-PART-PLACEMENT) and unknown roles (TW-ROLE). Its messages are
// written even when c is quiet: they are rare, and calling c.sprintf in
// this loop over every part made it 7% slower (the compiler keeps less of
// it in registers).
func (c *checker) shape() {
	for i, m := range c.msgs {
		if !m.Role.Valid() {
			c.add(Violation{Rule: ruleRole, Path: c.msgPath(i), Message: fmt.Sprintf("message %d has role %q; want system, user, assistant or tool", i, m.Role)})
			continue
		}
		results := 0
		for j, p := range m.Parts {
			bad := ""
			switch p := p.(type) {
			case nil:
				bad = "a nil part"
			case llm.ToolCall:
				c.calls++
				if m.Role != llm.RoleAssistant {
					bad = fmt.Sprintf("tool call %s (%s) in a %s message; calls belong in assistant messages", p.ID, p.Name, m.Role)
				}
			case llm.Reasoning:
				if m.Role != llm.RoleAssistant {
					bad = fmt.Sprintf("reasoning in a %s message; reasoning belongs in assistant messages", m.Role)
				}
			case llm.ToolResult:
				results++
				c.results++
				if m.Role != llm.RoleTool {
					bad = fmt.Sprintf("the result of call %s in a %s message; results belong in tool messages", p.CallID, m.Role)
				}
			case llm.Text, llm.Image:
				// Where text before results is a rule of the dialect's
				// pairing, the dialect reports it.
				if m.Role == llm.RoleTool && results < countResults(m.Parts[j:]) && c.d.resultFirst == "" {
					bad = "text or image before a tool result in a tool message; it must come after the results"
				}
				if _, ok := p.(llm.Image); ok && m.Role == llm.RoleSystem {
					bad = "an image in a system message; system prompts hold text only"
				}
			}
			if bad != "" && !(c.d.noMix != "" && mixed(m)) { // the dialect's rule, which its check reports
				c.add(Violation{Rule: ruleShape, Path: c.partPath(i, j), Message: fmt.Sprintf("message %d, part %d: %s", i, j, bad)})
			}
		}
		if m.Role == llm.RoleTool && results == 0 {
			c.add(Violation{Rule: ruleShape, Path: c.msgPath(i), Message: fmt.Sprintf("message %d is a tool message without tool results; make it a user message", i)})
		}
	}
}

// dupTools reports a tool defined under the name of an earlier one:
// Anthropic and Gemini reject the request, OpenAI takes it (the model
// sees both, and a call names either), which is a warning.
func (c *checker) dupTools() {
	tools := c.req.Tools
	dt := c.d.dupTool
	for k := 1; k < len(tools); k++ {
		first := firstTool(tools, k)
		if first < 0 {
			continue
		}
		name := tools[k].Name
		same := "a different definition"
		if sameSpec(tools[k], tools[first]) {
			same = "the same definition"
		}
		v := Violation{Rule: dt.rule, Path: c.d.pathOfTool(k) + ".name", Warning: dt.warning,
			Message: c.sprintf("tools %d and %d are both named %q (%s)%s", first, k, name, same, dt.say)}
		if dt.providerError != "" {
			v.ProviderError = c.fill(dt.providerError, "{name}", name)
		}
		c.add(v)
	}
}

// strictSchema reports the strict-mode problems of t's schema at path,
// when t asks for strict mode.
func (c *checker) strictSchema(t llm.ToolSpec, path string) {
	if t.Strict {
		c.out = append(c.out, CheckStrictSchema(t.Name, t.Parameters, path)...)
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

// rejects reports whether vs hold a violation that is not a warning.
func rejects(vs []Violation) bool { return !Accepted(vs) }

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

// mixed reports whether m holds both tool calls and tool results.
func mixed(m llm.Message) bool {
	return hasCall(m) && countResults(m.Parts) > 0
}

// nameOK reports whether name matches ^[a-zA-Z0-9_-]+$, and is at most max
// characters when max > 0.
func nameOK(name string, max int) bool {
	if max > 0 && len(name) > max {
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
		if !callid.Safe(id[i]) {
			return false
		}
	}
	return true
}

// longerThan reports whether s has more than n characters. A string of at
// most n bytes has not, which it sees without counting them.
func longerThan(s string, n int) bool {
	return len(s) > n && utf8.RuneCountInString(s) > n
}

// blank reports whether s is empty or white space only.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

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

// comparePaths compares two paths segment by segment, reading them in
// place: sorting compares paths O(n log n) times, and splitting each made
// two slices a comparison.
func comparePaths(a, b string) int {
	if a == b {
		return 0
	}
	as, ar, amore := strings.Cut(a, ".")
	bs, br, bmore := strings.Cut(b, ".")
	if ra, rb := topRank(as), topRank(bs); ra != rb {
		return ra - rb
	}
	for {
		if as != bs {
			return compareSegments(as, bs)
		}
		switch {
		case !amore && !bmore:
			return 0
		case !amore:
			return -1 // a is a prefix of b
		case !bmore:
			return 1
		}
		as, ar, amore = strings.Cut(ar, ".")
		bs, br, bmore = strings.Cut(br, ".")
	}
}

// compareSegments compares two different segments of paths: numbers as
// numbers, before names, which compare as strings.
func compareSegments(a, b string) int {
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	switch {
	case ea == nil && eb == nil:
		return na - nb
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}
