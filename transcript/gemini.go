package transcript

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/internal/callid"
	"github.com/toolwire/toolwire/llm"
)

// Gemini is Gemini generateContent.
const Gemini Dialect = "gemini"

// Rule IDs of Gemini generateContent (docs/provider-rules.md).
const (
	ruleGemRespAfterCall RuleID = "GEM-RESP-AFTER-CALL"
	ruleGemRespCount     RuleID = "GEM-RESP-COUNT"
	ruleGemRespMatch     RuleID = "GEM-RESP-MATCH" // [DERIVED]
	ruleGemCallAfterUser RuleID = "GEM-CALL-AFTER-USER"
	ruleGemNoMix         RuleID = "GEM-NO-MIX"
	ruleGemPartsNonEmpty RuleID = "GEM-PARTS-NONEMPTY"
	ruleGemName          RuleID = "GEM-NAME"
	ruleGemThoughtSig    RuleID = "GEM-THOUGHT-SIG"
	ruleGemMultimodal    RuleID = "GEM-MULTIMODAL-RESP"
	ruleGemOrder         RuleID = "GEM-ORDER"
	ruleGemCachedPrefix  RuleID = "GEM-CACHED-PREFIX"
	ruleGemSystem        RuleID = "GEM-SYSTEM-PLACEMENT" // [DERIVED]
	ruleGemSameRole      RuleID = "GEM-SAME-ROLE"        // [DERIVED]
	ruleGemNoContents    RuleID = "GEM-EMPTY-CONTENTS"   // [DERIVED]
	ruleGemDupTool       RuleID = "GEM-DUP-TOOL"         // [DERIVED]
)

// The provider's error texts, with placeholders for fill.
const (
	// tmplGemDupTool is not in docs/provider-rules.md; the text is Gemini's
	// own, quoted in googleapis/dotnet-genai#189 and smarter-sh/smarter#537.
	tmplGemDupTool = "Duplicate function declaration found: {name}"

	tmplGemRespAfterCall = "Please ensure that function response turn comes immediately after a function call turn."
	tmplGemRespCount     = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
	tmplGemCallAfterUser = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
	tmplGemNoMix         = "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts."
	tmplGemPartsEmpty    = "* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
	tmplGemName          = "* GenerateContentRequest.tools[0].function_declarations[{k}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."
	tmplGemThoughtSig    = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:{name}` , position {p}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
	tmplGemMultimodal    = "Unable to submit request because `function_response.parts` is not supported for this model. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling"
)

// gemini is Gemini generateContent: contents of role user and model;
// consecutive contents of one role are one turn; a function-call turn
// follows a user turn, and the next user turn holds one response per call,
// matched by id, else by name or position; ids are optional; system
// prompts go to systemInstruction.
var gemini = &dialect{
	name:        Gemini,
	array:       "contents",
	system:      "systemInstruction",
	systemParts: true,
	reasoning:   true,
	member:      memberParts,

	pairing:    pairNextTurn,
	mergeTurns: true,
	byName:     true,
	unanswered: ruleGemRespCount,
	orphan:     ruleGemRespAfterCall,
	duplicate:  ruleGemRespCount,
	late:       ruleGemRespAfterCall,
	foreign:    ruleGemRespCount,
	response:   "response",
	noMix:      ruleGemNoMix,
	firstUser:  ruleGemCallAfterUser,

	ids:      idRules{keep: true, result: ruleGemRespMatch, nameMatch: ruleGemRespMatch},
	badName:  func(name string, def bool) bool { return def && !gemNameOK(name) },
	toolName: nameRules{extra: ".:", letterFirst: true},
	nameRule: ruleGemName,
	toolPath: "tools.0.functionDeclarations.%d",
	callName: "name",

	emptyRule:  ruleGemPartsNonEmpty,
	lateSystem: ruleGemSystem,
	systemName: "systemInstruction",
	dupTool: dupToolRule{rule: ruleGemDupTool, providerError: tmplGemDupTool,
		say: "; function names must be unique in a request"},
	unrepairable: []RuleID{ruleGemMultimodal, ruleGemNoContents, ruleGemDupTool},

	check:      checkGemini,
	checkTools: checkGeminiTools,
	split:      gemSplit,
	final:      gemSignSteps,
	// The current turn starts after the last user content that is not
	// function responses (system messages are user contents there).
	finalFrom: func(m *wmsg) bool { return gemRole(m.role) == gemUser && !hasResultPart(*m) },
}

// gemPlaceholderSignature is the thought signature Google documents for a
// call whose own is not available (history from another model, injected
// calls): the Gemini 3 validator skips it (GEM-THOUGHT-SIG-PLACEHOLDER).
const gemPlaceholderSignature = "skip_thought_signature_validator"

// gemSignSteps gives the first call of each step of the current turn that
// has no thought signature the placeholder signature, when the request is
// for a Gemini 3 model, which rejects it without one (GEM-THOUGHT-SIG). It
// reads the repaired messages as checkGemini reads contents: a step is a
// model turn (consecutive model contents), and the current turn starts
// after the last user content that is not function responses (post.from).
func gemSignSteps(ps *post) {
	rp := ps.rp
	if geminiFamily(rp.req.Model) != gem3 {
		return // not enforced, or a warning (an unknown model), which Repair leaves
	}
	out := ps.out
	start, found := -1, false // the model turn read and whether its first call was found
	for i := ps.from; i < len(out); i++ {
		if gemRole(out[i].Role) != gemModel {
			start = -1
			continue
		}
		if start < 0 {
			start, found = i, false
		}
		if found {
			continue
		}
		k := slices.IndexFunc(out[i].Parts, func(p llm.Part) bool { _, ok := p.(llm.ToolCall); return ok })
		if k < 0 {
			continue
		}
		found = true
		if k > 0 && gemSignature(out[i].Parts[k-1]) {
			continue
		}
		w := ps.partsOf(i)[k]
		ps.change(ruleGemThoughtSig, rp.origPath(w.om, w.op), ActionInsert, fmt.Sprintf("the first function call of a step of the current turn had no thoughtSignature, which Gemini 3 requires: it now carries %q, the placeholder Google documents for a signature that is not available, which the validator skips (the model's own reasoning for the step is not restored)", gemPlaceholderSignature))
		ps.insert(i, k, llm.Reasoning{Provider: string(Gemini), Signature: gemPlaceholderSignature})
	}
}

// gemSignature reports whether p is a Gemini thought signature (with a
// thought or alone), which signs the part after it.
func gemSignature(p llm.Part) bool {
	r, ok := p.(llm.Reasoning)
	return ok && r.Provider == string(Gemini) && r.Signature != ""
}

func checkGeminiTools(c *checker) {
	for k, t := range c.req.Tools {
		if !gemNameOK(t.Name) {
			c.add(Violation{Rule: ruleGemName, Path: c.d.pathOfTool(k) + ".name",
				Message:       c.sprintf("function %q: names must start with a letter or an underscore, then letters, digits, '_', '.', ':' or '-', at most 64 characters", t.Name),
				ProviderError: c.fill(tmplGemName, "{k}", strconv.Itoa(k))})
		}
	}
}

// gemNameOK reports whether name is a valid Gemini function name.
func gemNameOK(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	if b := name[0]; b != '_' && !('a' <= b && b <= 'z') && !('A' <= b && b <= 'Z') {
		return false
	}
	for i := 1; i < len(name); i++ {
		if b := name[i]; !callid.Safe(b) && b != '.' && b != ':' {
			return false
		}
	}
	return true
}

// The Gemini check reads the contents as Gemini does: consecutive contents
// of one role are one turn (the Gemini API joins them before it pairs
// calls with responses), so parallel calls or their responses spread over
// several contents of one role pair as if they were in one. A content that
// mixes calls and responses (GEM-NO-MIX) is read as the contents Repair
// splits it into: its calls are the model's, its responses the user's,
// and its other parts its own role's.

const (
	gemModel = llm.Role("model")
	gemUser  = llm.RoleUser
)

func gemRole(r llm.Role) llm.Role {
	if r == llm.RoleAssistant {
		return gemModel
	}
	return gemUser
}

// gemCheck is the Gemini check's state: the turn being read and the
// function-call turn before it.
type gemCheck struct {
	c   *checker
	fam gemFamily // of the request's model
	cur int       // the current turn starts after this content (GEM-THOUGHT-SIG), or -1
	// signed: the transcript carries Gemini thought signatures (found on
	// first need: known).
	signed, known bool

	role  llm.Role // of the turn being read; "" before the first
	start int      // its first content
	turns int      // turns begun: 1 while the first is read

	// A model turn: its calls, and where its first call is.
	calls            []llm.ToolCall
	callMsg, callPrt int // -1 when the turn has no call

	// The function-call turn the user turn being read answers: its calls,
	// and the content of its first call (-1: the turn before made none).
	pending []llm.ToolCall
	pendMsg int
	// The responses of the user turn being read.
	nResp    int
	answered []bool // the calls of pending its responses answered
	respMsg  int    // the first content with responses, or -1
	lastResp int    // the last content with responses, or -1
	lastK    int    // the call the last response matched
	ordered  bool   // every response matched a later call than the one before
	orphan   bool   // reported: these responses answer no call turn
}

// checkGemini reads the contents turn by turn (see gemCheck).
func checkGemini(c *checker) {
	first := firstNonSystem(c.msgs)
	if first == len(c.msgs) { // the leading system messages go to systemInstruction
		c.add(Violation{Rule: ruleGemNoContents, Path: "contents", Message: "the request has no contents (system prompts go to systemInstruction); Gemini needs at least one user content"})
	}
	g := gemCheck{c: c, fam: geminiFamily(c.req.Model), cur: -1, callMsg: -1, pendMsg: -1, respMsg: -1, lastResp: -1}
	// The current turn starts at the last user content that is not
	// function responses: the model steps after it are its steps.
	for i := len(c.msgs) - 1; i >= first; i-- {
		if m := c.msgs[i]; gemRole(m.Role) == gemUser && countResults(m.Parts) == 0 {
			g.cur = i
			break
		}
	}
	for i := first; i < len(c.msgs); i++ {
		g.content(i)
	}
	g.enter(len(c.msgs), "")
}

// content reads content i.
func (g *gemCheck) content(i int) {
	c := g.c
	m := c.msgs[i]
	before := len(c.out)
	if m.Role == llm.RoleSystem {
		c.add(Violation{Rule: ruleGemSystem, Path: c.msgPath(i),
			Message: c.sprintf("%s is a system message after the conversation started; Gemini takes system text only in systemInstruction", c.msgPath(i))})
	}
	role := gemRole(m.Role)
	parts, calls, results := 0, 0, 0
	continues := false // the content continues the turn before it
	// open starts the turn of role r at content i where the part read
	// belongs to another (a content that mixes calls and responses
	// belongs to several).
	open := func(r llm.Role) {
		if parts++; parts == 1 {
			continues = r == g.role
		}
		if r != g.role {
			g.enter(i, r)
		}
	}
	for j, p := range m.Parts {
		// One type switch per part: this loop is most of Check's time.
		switch p := p.(type) {
		case llm.Text:
			open(role)
			if p.Text == "" && !(j > 0 && signatureOnly(m.Parts[j-1])) {
				// fmt.Sprintf, not c.sprintf: in this loop the method call
				// costs every part (see checker.shape).
				c.add(Violation{Rule: ruleGemPartsNonEmpty, Path: c.partPath(i, j), Warning: true,
					Message: fmt.Sprintf("%s is an empty text part; Vertex AI rejects empty text", c.partPath(i, j))})
			}
		case llm.ToolCall:
			open(gemModel)
			calls++
			g.call(i, j, p)
		case llm.ToolResult:
			open(gemUser)
			results++
			g.response(i, j, p)
		case llm.Reasoning:
			if p.Provider == string(Gemini) && (p.Text != "" || len(p.Data) > 0) {
				open(role) // a thought (a signature alone takes no part)
			}
		case llm.Opaque:
			if p.Provider == string(Gemini) && p.Kind != "" {
				open(role) // a part without data is not content
			}
		case llm.Image:
			open(role)
		}
	}
	if parts == 0 {
		continues = role == g.role
		if !continues {
			g.enter(i, role)
		}
		c.add(Violation{Rule: ruleGemPartsNonEmpty, Path: c.msgPath(i) + ".parts",
			Message:       c.sprintf("the content %s has no parts", c.msgPath(i)),
			ProviderError: c.fill(tmplGemPartsEmpty, "{i}", c.wireIndex(i))})
	}
	if calls > 0 && results > 0 {
		c.add(Violation{Rule: ruleGemNoMix, Path: c.msgPath(i),
			Message:       c.sprintf("%s holds both function calls and function responses; calls go in a model content and their responses in the user content after it", c.msgPath(i)),
			ProviderError: tmplGemNoMix})
	}
	if continues && !rejects(c.out[before:]) {
		g.sameRole(i, calls, results)
	}
}

// sameRole reports content i, which continues the turn of the content
// before it (GEM-SAME-ROLE): the Gemini API joins them, other endpoints
// are not known to.
func (g *gemCheck) sameRole(i, calls, results int) {
	c := g.c
	v := Violation{Rule: ruleGemSameRole, Path: c.msgPath(i), Warning: true}
	switch {
	case c.quiet:
		// No message: its paths would be made (Repair's checks meet
		// this warning at every other content) only to be dropped.
	case results > 0 && g.pendMsg >= 0:
		v.Message = c.sprintf("the function responses in %s are not in the content right after the function-call turn %s; the Gemini API joins consecutive user contents into one turn and accepts this, but Vertex AI wants every response in that one content", c.msgPath(i), c.msgPath(g.pendMsg))
		v.ProviderError = tmplGemRespCount
	case calls > 0:
		v.Message = c.sprintf("the function calls in %s continue the model turn of %s in a content of their own; the Gemini API joins consecutive model contents into one turn, Vertex AI is not known to (put them in one content)", c.msgPath(i), c.msgPath(g.start))
	default:
		v.Message = c.sprintf("%s follows another %s content; the Gemini API joins consecutive contents of one role into one turn, other endpoints are not known to (merge them to be safe)", c.msgPath(i), g.role)
	}
	c.add(v)
}

// enter ends the turn being read and starts one of role at content i;
// role "" ends the last turn at the end of the contents.
func (g *gemCheck) enter(i int, role llm.Role) {
	switch g.role {
	case gemModel:
		g.endModel()
	case gemUser:
		g.endUser()
	}
	if role == "" && g.pendMsg >= 0 {
		// The contents end with a function-call turn.
		c := g.c
		c.add(Violation{Rule: ruleGemRespCount, Path: c.msgPath(g.pendMsg),
			Message:       c.sprintf("the function-call turn %s makes %d call(s), but the next content (%s) holds no function responses", c.msgPath(g.pendMsg), len(g.pending), c.describe(i)),
			ProviderError: tmplGemRespCount})
		g.pendMsg = -1
	}
	g.role, g.start = role, i
	g.turns++
	g.nResp, g.respMsg, g.lastResp, g.lastK, g.ordered, g.orphan = 0, -1, -1, -1, true, false
}

// call reads call tc at part j of content i, in the model turn being read.
func (g *gemCheck) call(i, j int, tc llm.ToolCall) {
	if g.callMsg < 0 {
		g.callMsg, g.callPrt = i, j
	}
	g.calls = append(g.calls, tc)
}

// endModel ends the model turn being read: it must follow a user turn
// when it makes calls, and its calls become the ones the next turn
// answers.
func (g *gemCheck) endModel() {
	c := g.c
	g.pendMsg = g.callMsg
	g.pending, g.calls = g.calls, g.pending[:0]
	g.callMsg = -1
	if g.pendMsg < 0 {
		return
	}
	if g.turns == 1 && c.req.CachedContent {
		c.add(Violation{Rule: ruleGemCachedPrefix, Path: c.msgPath(g.pendMsg), Warning: true,
			Message: c.sprintf("the contents start with the function-call turn %s; they continue the cachedContent, whose last turn toolwire cannot see: a function-call turn must follow a user turn or a function-response turn (GEM-CALL-AFTER-USER)", c.msgPath(g.pendMsg))})
	} else if g.turns == 1 {
		c.add(Violation{Rule: ruleGemCallAfterUser, Path: c.msgPath(g.pendMsg),
			Message:       c.sprintf("the function-call turn %s must follow a user turn or a function-response turn, but the contents start with it", c.msgPath(g.pendMsg)),
			ProviderError: tmplGemCallAfterUser})
	}
	if g.start > g.cur {
		g.signature(g.pendMsg, g.callPrt, g.pending[0])
	}
}

// signature checks GEM-THOUGHT-SIG for the first call of a model step of
// the current turn, at part j of content i.
func (g *gemCheck) signature(i, j int, tc llm.ToolCall) {
	c := g.c
	warn := false
	switch g.fam {
	case gem3:
	case gemUnknown:
		// The body does not say its model. Signatures in the transcript
		// mean a thinking model, which may be Gemini 3 (it rejects the
		// step) or 2.5 (it accepts it).
		if !g.known {
			g.signed, g.known = c.gemSigned(), true
		}
		if !g.signed {
			return
		}
		warn = true
	default:
		return // not enforced
	}
	if j > 0 && gemSignature(c.msgs[i].Parts[j-1]) {
		return
	}
	v := Violation{Rule: ruleGemThoughtSig, Path: c.partPath(i, j), Warning: warn,
		Message:       c.sprintf("the first function call of the model step %s (%s) has no thoughtSignature; Gemini 3 requires the signature it returned on the first call of every step of the current turn", c.msgPath(i), tc.Name),
		ProviderError: c.fill(tmplGemThoughtSig, "{name}", tc.Name, "{p}", strconv.Itoa(c.layout().msg(i).entry+1))}
	if warn {
		v.Message += "; the request does not name its model, and Gemini 2.5 accepts it"
	}
	c.add(v)
}

// response reads response r at part j of content i, in the user turn
// being read: it must answer a call of the function-call turn before.
func (g *gemCheck) response(i, j int, r llm.ToolResult) {
	c := g.c
	g.nResp++
	if g.respMsg < 0 {
		g.respMsg = i
		g.answered = append(g.answered[:0], make([]bool, len(g.pending))...) // reuses the array
	}
	g.lastResp = i
	if hasImage(r.Content) {
		g.multimodal(i, j)
	}
	if g.pendMsg < 0 {
		switch {
		case g.orphan:
		case g.turns == 1 && c.req.CachedContent:
			g.orphan = true
			c.add(Violation{Rule: ruleGemCachedPrefix, Path: c.msgPath(i), Warning: true,
				Message: c.sprintf("the contents start with the function responses of %s; they continue the cachedContent, which may hold the function-call turn they answer (GEM-RESP-AFTER-CALL and GEM-RESP-COUNT cannot be judged across the cache)", c.msgPath(i))})
		default:
			g.orphan = true
			c.add(Violation{Rule: ruleGemRespAfterCall, Path: c.msgPath(i),
				Message:       c.sprintf("the function-response turn %s does not come right after a function-call turn (%s)", c.msgPath(i), g.before()),
				ProviderError: tmplGemRespAfterCall})
		}
		return
	}
	k := gemMatch(g.pending, g.answered, r)
	if k < 0 {
		c.add(Violation{Rule: ruleGemRespMatch, Path: c.partPath(i, j),
			Message: c.sprintf("the function response %s (%s%s) matches no unanswered call of %s", c.partPath(i, j), r.Name, idSuffixParen(r.CallID), c.msgPath(g.pendMsg))})
		return
	}
	g.answered[k] = true
	if r.Name != "" && r.Name != g.pending[k].Name {
		c.add(Violation{Rule: ruleGemRespMatch, Path: c.partPath(i, j) + ".functionResponse.name",
			Message: c.sprintf("the function response %s names %q, but call %s is %q; the names must be equal", c.partPath(i, j), r.Name, quoteID(g.pending[k].ID), g.pending[k].Name)})
	}
	if k < g.lastK {
		g.ordered = false
	}
	g.lastK = k
}

// before says what the user turn being read follows.
func (g *gemCheck) before() string {
	if g.turns == 1 {
		return "the contents start with the user turn it is in"
	}
	end := g.start - 1
	if end < 0 {
		end = 0 // the model turn is in the first content, which mixes it with this one
	}
	return "the model turn before it, which ends at " + g.c.msgPath(end) + ", makes no function calls"
}

// multimodal checks GEM-MULTIMODAL-RESP for the response at part j of
// content i, which carries images.
func (g *gemCheck) multimodal(i, j int) {
	c := g.c
	v := Violation{Rule: ruleGemMultimodal, Path: c.partPath(i, j), ProviderError: tmplGemMultimodal,
		Message: c.sprintf("the function response %s carries images (functionResponse.parts); only Gemini 3 models accept them", c.partPath(i, j))}
	switch g.fam {
	case gem3, gem3Image:
		return
	case gemBefore3:
		v.Message += c.sprintf(", and the request is for %s", c.req.Model)
	default:
		v.Warning = true
	}
	c.add(v)
}

// endUser ends the user turn being read: if the turn before made calls,
// this turn answers each once.
func (g *gemCheck) endUser() {
	c := g.c
	if g.pendMsg < 0 {
		return
	}
	calls := g.pending
	switch {
	case g.nResp == 0:
		v := Violation{Rule: ruleGemRespCount, Path: c.msgPath(g.pendMsg), ProviderError: tmplGemRespCount}
		if !c.quiet {
			v.Message = fmt.Sprintf("the function-call turn %s makes %d call(s), but the next content (%s) holds no function responses", v.Path, len(calls), c.describe(g.start))
		}
		c.add(v)
	case g.nResp != len(calls):
		where := c.msgPath(g.respMsg)
		if g.lastResp != g.respMsg {
			where += " to " + c.msgPath(g.lastResp)
		}
		c.add(Violation{Rule: ruleGemRespCount, Path: c.msgPath(g.respMsg),
			Message:       c.sprintf("%s holds %d function response(s) for the %d call(s) of %s; the counts must be equal", where, g.nResp, len(calls), c.msgPath(g.pendMsg)),
			ProviderError: tmplGemRespCount})
	}
	if !g.ordered {
		c.add(Violation{Rule: ruleGemOrder, Path: c.msgPath(g.respMsg), Warning: true,
			Message: c.sprintf("the function responses in %s are not in the order of the calls in %s; Gemini matches responses without ids by position", c.msgPath(g.respMsg), c.msgPath(g.pendMsg))})
	}
	g.pendMsg = -1
}

// gemMatch finds the call that r answers: by id where both have one, else
// the first unanswered call with r's name (or the only unanswered call).
func gemMatch(calls []llm.ToolCall, answered []bool, r llm.ToolResult) int {
	if r.CallID != "" {
		for k, cl := range calls {
			if !answered[k] && cl.ID == r.CallID {
				return k
			}
		}
	}
	pending, only := 0, -1
	for k, cl := range calls {
		if answered[k] || (r.CallID != "" && cl.ID != "") {
			continue
		}
		if cl.Name == r.Name {
			return k
		}
		pending++
		only = k
	}
	if r.Name == "" && pending == 1 {
		return only
	}
	return -1
}

// gemSigned reports whether a message carries a Gemini thought signature.
func (c *checker) gemSigned() bool {
	for _, m := range c.msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llm.Reasoning); ok && r.Provider == string(Gemini) && r.Signature != "" {
				return true
			}
		}
	}
	return false
}

// mixesCalls is mixed for a message being repaired: one Gemini content
// that mixes function calls and responses (GEM-NO-MIX).
func mixesCalls(m wmsg) bool {
	calls, results := false, false
	for _, p := range m.parts {
		switch p.p.(type) {
		case llm.ToolCall:
			calls = true
		case llm.ToolResult:
			results = true
		}
	}
	return calls && results
}

// gemSplit appends to out the messages that a Gemini content mixing
// function calls and responses (GEM-NO-MIX) splits into, and says so. The
// split guesses nothing: every part keeps its place and its author. A call
// is the model's, a response the user's (results first in a tool message,
// the user's other parts after them), a thought signature goes with the
// part it signs, and every other part keeps the content's own role. Where
// the author changes, a new content starts.
func gemSplit(rp *repairer, m wmsg, out []wmsg) []wmsg {
	own := llm.RoleUser
	if m.role == llm.RoleAssistant {
		own = llm.RoleAssistant
	}
	roleOf := func(p llm.Part) llm.Role {
		switch p.(type) {
		case llm.ToolCall:
			return llm.RoleAssistant
		case llm.ToolResult:
			return llm.RoleTool
		}
		return own
	}
	n := len(out)
	for k, p := range m.parts {
		role := roleOf(p.p)
		if signatureOnly(p.p) {
			role = llm.RoleAssistant // signs a model part: the next one, or none
			for _, q := range m.parts[k+1:] {
				if !signatureOnly(q.p) {
					role = roleOf(q.p)
					break
				}
			}
		}
		last := len(out) - 1
		switch {
		case last >= n && out[last].role == role:
		case last >= n && out[last].role == llm.RoleTool && role == llm.RoleUser:
			// The user's parts after responses stay in their tool message.
		default:
			out = append(out, wmsg{role: role, om: -1, changed: true})
			last++
		}
		out[last].parts = append(out[last].parts, p)
	}
	roles := make([]string, 0, len(out)-n)
	for _, x := range out[n:] {
		roles = append(roles, string(gemRole(x.role)))
	}
	rp.change(ruleGemNoMix, rp.msgPath(m), ActionReshape, fmt.Sprintf("split the content, which mixed function calls and responses, into %d contents (%s), each part kept in order with its author: calls in model contents, responses in user contents", len(out)-n, strings.Join(roles, ", ")))
	return out
}

// ---- Gemini model families ----

// gemFamily is what the Gemini rules that depend on the model know of it
// (docs/provider-rules.md, "Gemini model families").
type gemFamily uint8

const (
	// gemUnknown: no model, or a name toolwire cannot place (an alias such
	// as gemini-flash-latest). A Gemini body names its model in the URL,
	// so a decoded body has none: the rules below are then warnings.
	gemUnknown gemFamily = iota
	// gemBefore3: Gemini 1.x and 2.x. Thought signatures are not enforced
	// (a 2.5 step replayed without its signature is accepted), and
	// functionResponse.parts is refused.
	gemBefore3
	// gem3: Gemini 3 and later. The first call of every step of the
	// current turn must carry its thought signature; functionResponse.parts
	// is accepted.
	gem3
	// gem3Image: the Gemini 3 image models, which do not enforce thought
	// signatures.
	gem3Image
)

// geminiFamily places a model name: "gemini-2.5-flash",
// "models/gemini-3-pro-preview", a Vertex resource name ending in
// "/models/gemini-3-flash-preview".
func geminiFamily(model string) gemFamily {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	rest, ok := strings.CutPrefix(strings.ToLower(model), "gemini-")
	if !ok {
		return gemUnknown
	}
	major := 0
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' && n < 3 {
		major = major*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || (n < len(rest) && rest[n] != '.' && rest[n] != '-') {
		return gemUnknown
	}
	switch {
	case major < 3:
		return gemBefore3
	case strings.Contains(rest, "-image"):
		return gem3Image
	}
	return gem3
}
