package gemini

import (
	"bytes"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// Encode writes r as a generateContent request body: compact,
// deterministic, with <, > and & unescaped. A Request from [Decode] encodes
// back to the body it came from; see the package documentation for what a
// conversion changes. The warnings say what could not be carried over
// exactly, with dotted paths into the encoded body. Encode fails only on a
// Request that cannot be written at all: a nil or foreign part, an unknown
// role, a field whose value is not JSON.
func Encode(r *Request) ([]byte, []provider.Warning, error) {
	if r == nil {
		return nil, nil, errors.New("gemini: encode: nil Request")
	}
	return codec.Encode("gemini", "Gemini", r.Messages, r.Bare, func() codec.Encoder { return newEncoder(r) })
}

type encoder struct {
	codec.Frame
	r      *Request
	src    *source
	blocks codec.Matcher // finds the source blocks of the parts written
	lead   int           // leading messages written to systemInstruction

	noData int  // parts without data left out (FixWire)
	one    bool // the part written last came from a parts field that was one object
}

// newEncoder returns the encoder of r.
func newEncoder(r *Request) *encoder {
	src := r.src
	if src == nil {
		src = &source{leadSys: -1}
	}
	return &encoder{r: r, src: src, lead: codec.LeadingSystem(r.Messages, r.Bare, src.leadSys),
		blocks: codec.NewMatcher(src.msgs, src, len(src.blocks), identity.Key)}
}

// Source returns the decoded messages, for [codec.Encode].
func (e *encoder) Source() []codec.Msg { return e.src.msgs }

// Part returns the llm part of block k, for the encoder's [codec.Matcher].
func (s *source) Part(k int) llm.Part { return s.blocks[k].part }

// Body writes the body, for [codec.Encode].
func (e *encoder) Body(dst []byte) ([]byte, error) {
	return e.appendBody(dst, e.system, e.contents, e.tools)
}

// appendBody writes the body: its fields in their order, with system,
// contents and tools writing the values of systemInstruction (when there
// is a system prompt), contents and tools (when there are tools).
func (e *encoder) appendBody(dst []byte, system, contents, tools func(dst []byte) []byte) ([]byte, error) {
	r := e.r
	b := codec.Body{Canon: codec.Camel, System: "systemInstruction", Messages: "contents", Tools: "tools",
		AppendMessages: contents, AppendTools: tools, HasTools: len(r.Tools) > 0 || hasOpaqueTools(e.src)}
	if e.lead > 0 {
		b.AppendSystem = system
	}
	return codec.AppendBody(dst, "gemini: encode", r.Fields, &b)
}

// hasOpaqueTools reports whether the source body has tools the codec
// writes back as they were.
func hasOpaqueTools(s *source) bool {
	return slices.ContainsFunc(s.tools, func(t srcTool) bool { return t.opaque })
}

// Bare writes the messages as a bare array, for [codec.Encode].
func (e *encoder) Bare(dst []byte) []byte {
	r := e.r
	if n := len(r.Tools); n > 0 || hasOpaqueTools(e.src) {
		e.Warnf("tools", "a bare contents array has no tools field; the tool definitions were not written")
	}
	for _, f := range r.Fields {
		if f.Value != nil {
			e.Warnf(f.Key, "a bare contents array has no top-level fields; %s not written", f.Key)
		}
	}
	return e.contents(dst)
}

// unit is one wire part to write: an llm part and the signature-only
// Reasoning before it, if any.
type unit struct {
	part llm.Part
	sig  string
	j    int // the part's index in the message
}

// units groups the parts of message i into wire parts, and warns about
// what cannot be written.
func (e *encoder) units(i int, m llm.Message, path string) []unit {
	out := make([]unit, 0, len(m.Parts))
	sig, sigAt := "", -1
	for j, p := range m.Parts {
		if r, ok := p.(llm.Reasoning); ok && r.Provider == string(Dialect) && r.Text == "" && len(r.Data) == 0 {
			if sig != "" {
				e.Warnf(path, "two thought signatures in a row; the first (Parts[%d]) was dropped", sigAt)
			}
			if r.Signature != "" {
				sig, sigAt = r.Signature, j
			}
			continue
		}
		out = append(out, unit{part: p, sig: sig, j: j})
		sig = ""
	}
	if sig != "" {
		e.Warnf(path, "a thought signature with no part after it (Parts[%d]) cannot be expressed; dropped", sigAt)
	}
	return out
}

// system writes systemInstruction from the leading system messages.
func (e *encoder) system(dst []byte) []byte {
	msgs := e.r.Messages[:e.lead]
	if e.lead == 1 && e.src.leadSys == 1 {
		if raw, ok := e.verbatim(0, msgs[0], e.units(0, msgs[0], "systemInstruction")); ok {
			return append(dst, raw...)
		}
	}
	dst = append(dst, `{"parts":`...)
	open := len(dst)
	dst = append(dst, '[')
	n := 0
	for i := range msgs {
		dst, n = e.systemParts(dst, i, n)
	}
	if n == 1 && e.one {
		return append(unbracket(dst, open), '}')
	}
	return append(dst, "]}"...)
}

// systemParts writes the parts of leading system message i in
// systemInstruction, its text ones, after the n parts written before
// them, and returns how many parts are then written.
func (e *encoder) systemParts(dst []byte, i, n int) ([]byte, int) {
	for _, u := range e.units(i, e.r.Messages[i], "systemInstruction") {
		if _, ok := u.part.(llm.Text); !ok {
			e.Warnf("systemInstruction", "systemInstruction holds text only; a %s part of Messages[%d] was dropped", codec.PartKind(u.part), i)
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = e.part(dst, i, n, u, "systemInstruction.parts."+strconv.Itoa(n))
		n++
	}
	return dst, n
}

// verbatim returns the source JSON of message i when m, written as the
// units us, is the message decoded there, unchanged, and marks its blocks
// written.
func (e *encoder) verbatim(i int, m llm.Message, us []unit) ([]byte, bool) {
	if len(us) != countUnits(m) {
		return nil, false
	}
	same := func(u, k int) bool {
		b := &e.src.blocks[k]
		return b.sig == us[u].sig && equalPart(b.part, us[u].part) && !(e.r.FixWire && b.wireBad())
	}
	if raw, ok := e.blocks.Verbatim(i, m.Role, len(us), same); ok || len(us) == 0 {
		return raw, ok
	}
	// A message a repair moved (past an inserted or split one) is still
	// the message decoded where its first part came from.
	k, exact := e.blocks.Match(i, 0, us[0].part, func(k int) bool { return same(0, k) }, false)
	if !exact {
		return nil, false
	}
	src := e.src.msgs
	at := e.msgOf(k)
	if at == i || at >= len(src) || int(src[at].First) != k {
		return nil, false
	}
	return e.blocks.Verbatim(at, m.Role, len(us), same)
}

// countUnits counts the wire parts of m, to tell a message whose dropped
// parts made it look unchanged.
func countUnits(m llm.Message) int {
	n := 0
	for _, p := range m.Parts {
		if r, ok := p.(llm.Reasoning); ok && r.Provider == string(Dialect) && r.Text == "" && len(r.Data) == 0 {
			continue
		}
		n++
	}
	return n
}

func (e *encoder) contents(dst []byte) []byte {
	msgs := e.r.Messages
	open := len(dst)
	dst = append(dst, '[')
	var contents codec.List
	for i := e.lead; i < len(msgs); i++ {
		var at int
		dst, at = contents.Begin(dst)
		dst = e.content(dst, i, msgs[i], "contents."+strconv.Itoa(contents.Len()))
		dst = contents.End(dst, at)
	}
	if e.src.contentsOne && contents.Len() == 1 {
		return unbracket(dst, open)
	}
	return append(dst, ']')
}

// unbracket removes the '[' at dst[open] that opened an array of one
// element, written from a field that was one object rather than an array.
func unbracket(dst []byte, open int) []byte {
	copy(dst[open:], dst[open+1:])
	return dst[:len(dst)-1]
}

// content writes message i as the content at path. With FixWire it writes
// nothing for a content whose parts were all left out for having no data
// (GEM-PARTS-NONEMPTY).
func (e *encoder) content(dst []byte, i int, m llm.Message, path string) []byte {
	start, noData := len(dst), e.noData
	us := e.units(i, m, path)
	if raw, ok := e.verbatim(i, m, us); ok {
		return append(dst, raw...)
	}
	role := `"user"`
	switch m.Role {
	case llm.RoleAssistant:
		role = `"model"`
	case llm.RoleSystem:
		e.Warnf(path, "Gemini has no system role after the start of the conversation; written as a user content")
	}
	// The role is written as the content it came from had it: "function"
	// stays, a missing one (user) stays missing, after parts stays after.
	h := e.head(i, us)
	switch {
	case !h.hasRole && role == `"user"`:
		role = ""
	case h.role != "" && (h.role == `"model"`) == (role == `"model"`):
		role = h.role
	}
	dst = append(dst, '{')
	if role != "" && !h.roleLast {
		dst = append(dst, `"role":`...)
		dst = append(dst, role...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"parts":`...)
	open := len(dst)
	dst = append(dst, '[')
	var list codec.List
	for _, u := range us {
		pp := path + ".parts." + strconv.Itoa(list.Len())
		if !e.fits(m.Role, u.part, pp) {
			continue
		}
		var at int
		dst, at = list.Begin(dst)
		dst = e.part(dst, i, u.j, u, pp)
		dst = list.End(dst, at)
	}
	if list.Len() == 0 && e.noData > noData {
		return dst[:start]
	}
	if list.Len() == 1 && e.one {
		dst = unbracket(dst, open)
	} else {
		dst = append(dst, ']')
	}
	if role != "" && h.roleLast {
		dst = append(dst, `,"role":`...)
		dst = append(dst, role...)
	}
	return append(dst, '}')
}

// head returns how the content that message i came from (where its first
// part was decoded) wrote its role: by default "role" first.
func (e *encoder) head(i int, us []unit) head {
	if len(e.src.heads) == 0 || len(us) == 0 {
		return head{hasRole: true}
	}
	if k, _ := e.match(i, us[0].j, us[0]); k >= 0 {
		if h, ok := e.src.heads[e.msgOf(k)]; ok {
			return h
		}
	}
	return head{hasRole: true}
}

// msgOf returns the index of the decoded message that holds block k.
func (e *encoder) msgOf(k int) int {
	src := e.src.msgs
	return sort.Search(len(src), func(x int) bool { return int(src[x].First+src[x].Count) > k })
}

// callName returns the name of the call with the given id that a result
// in content i answers: the last such call in the contents up to i (that
// one included), "" when there is none. It reads the messages before i,
// so that a content's encoding depends on them: a cache of encodings
// keyed by position reuses one only after the same messages.
func (e *encoder) callName(i int, id string) string {
	if id == "" {
		return ""
	}
	for k := i; k >= e.lead; k-- {
		parts := e.r.Messages[k].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			if c, ok := parts[j].(llm.ToolCall); ok && c.ID == id {
				return c.Name
			}
		}
	}
	return ""
}

// fits reports whether part p can be written in a content of the given
// role, and warns when it cannot.
func (e *encoder) fits(role llm.Role, p llm.Part, path string) bool {
	switch p.(type) {
	case llm.ToolCall:
		if role != llm.RoleAssistant {
			e.Warnf(path, "a tool call in a %s message cannot be expressed; dropped", role)
			return false
		}
	case llm.ToolResult:
		if role == llm.RoleAssistant {
			e.Warnf(path, "a tool result in an assistant message cannot be expressed (GEM-NO-MIX); dropped")
			return false
		}
	case llm.Reasoning:
		if role != llm.RoleAssistant {
			e.Warnf(path, "reasoning in a %s message cannot be expressed; dropped", role)
			return false
		}
	}
	return true
}

// match finds the source block for the unit at part u of message i, as
// the anthropic package does, but matches a changed part only by the id of
// its call or result.
func (e *encoder) match(i, u int, x unit) (int, bool) {
	return e.blocks.Match(i, u, x.part, func(k int) bool {
		b := &e.src.blocks[k]
		return b.sig == x.sig && equalPart(b.part, x.part)
	}, hasID(x.part))
}

// hasID reports whether p is a call or result with an id, which a changed
// part can be matched by.
func hasID(p llm.Part) bool {
	switch p := p.(type) {
	case llm.ToolCall:
		return p.ID != ""
	case llm.ToolResult:
		return p.CallID != ""
	}
	return false
}

// equalPart reports whether a and b are the same on the Gemini wire (a
// call's ItemID is not written there; a result's status is, through its
// response).
func equalPart(a, b llm.Part) bool { return codec.SamePart(a, b, sameResult) }

func sameResult(a, b llm.ToolResult) bool {
	return a.CallID == b.CallID && a.Name == b.Name && a.Status == b.Status
}

// part writes one wire part. It writes nothing (after a warning) for a part
// Gemini cannot carry.
func (e *encoder) part(dst []byte, i, u int, x unit, path string) []byte {
	k, exact := e.match(i, u, x)
	var b *block
	var wrap []byte // a response to write as {"output": wrap} (FixWire)
	e.one = false
	if k >= 0 {
		e.blocks.Use(k)
		b = &e.src.blocks[k]
		e.one = b.one
		switch {
		case e.r.FixWire && b.noData:
			e.noData++
			return dst // left out (GEM-PARTS-NONEMPTY)
		case e.r.FixWire && exact && b.respVal != nil:
			wrap = b.respVal
		case exact:
			return append(dst, b.raw...)
		}
	}
	var extras, resp []codec.Member
	respOne := false
	if b != nil {
		extras, resp, respOne = b.extras, b.resp, b.respOne
	}
	start := len(dst)
	switch p := x.part.(type) {
	case llm.Text:
		dst = append(dst, `{"text":`...)
		dst = codec.AppendString(dst, p.Text)
	case llm.Image:
		var ok bool
		if dst, ok = e.media(dst, p, path); !ok {
			return dst[:start]
		}
	case llm.ToolCall:
		e.DropItemID(p)
		dst = appendHead(dst, "functionCall", p.ID, p.Name)
		dst = e.args(dst, p.Input, path+".functionCall.args")
		dst = append(dst, '}')
	case llm.ToolResult:
		dst = e.result(dst, i, p, resp, respOne, wrap, path)
	case llm.Opaque:
		if p.Provider != string(Dialect) {
			e.Warnf(path, "%s from %q cannot be written in Gemini; dropped", codec.PartKind(p), p.Provider)
			return dst[:start]
		}
		if out, ok := codec.AppendObject(dst, p.Data); ok {
			return out // a part the llm form does not model, verbatim
		}
		e.Warnf(path, "a Gemini %s part whose Data is not a JSON object cannot be written; dropped", codec.PartKind(p))
		return dst[:start]
	case llm.Reasoning:
		if p.Provider != string(Dialect) {
			e.Warnf(path, "reasoning from %q cannot be replayed to Gemini; dropped", p.Provider)
			return dst[:start]
		}
		if data := bytes.TrimSpace(p.Data); len(data) > 0 {
			if out, ok := codec.AppendObject(dst, data); ok {
				return out // an opaque part, verbatim
			}
			e.Warnf(path, "reasoning whose Data is not a JSON object cannot be expressed in Gemini; dropped")
			return dst[:start]
		}
		dst = append(dst, `{"text":`...)
		dst = codec.AppendString(dst, p.Text)
		dst = append(dst, `,"thought":true`...)
		if p.Signature != "" {
			dst = append(dst, `,"thoughtSignature":`...)
			dst = codec.AppendString(dst, p.Signature)
		}
		return codec.AppendMembers(dst, extras)
	}
	if x.sig != "" {
		dst = append(dst, `,"thoughtSignature":`...)
		dst = codec.AppendString(dst, x.sig)
	}
	return codec.AppendMembers(dst, extras)
}

// args writes a call's arguments, which Gemini needs as an object; no
// arguments writes no args field.
func (e *encoder) args(dst, in []byte, path string) []byte {
	if len(bytes.TrimSpace(in)) == 0 {
		return dst
	}
	dst = append(dst, `,"args":`...)
	return e.AppendInput(dst, in, path)
}

// appendHead writes the opening of a functionCall or functionResponse
// part (kind): {"kind":{"id":id,"name":name, without "id" when id is "".
func appendHead(dst []byte, kind, id, name string) []byte {
	dst = append(dst, `{"`...)
	dst = append(dst, kind...)
	dst = append(dst, `":{`...)
	if id != "" {
		dst = append(dst, `"id":`...)
		dst = codec.AppendString(dst, id)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	return codec.AppendString(dst, name)
}

// result writes a functionResponse part of content i without its
// closing brace. A non-nil wrap is the response of a result decoded
// unchanged that was not an object, to write as {"output": wrap}
// (GEM-RESPONSE-OBJECT).
func (e *encoder) result(dst []byte, i int, r llm.ToolResult, resp []codec.Member, respOne bool, wrap []byte, path string) []byte {
	name := r.Name
	if name == "" {
		if name = e.callName(i, r.CallID); name != "" {
			e.Warnf(path, "functionResponse needs the function's name; took %q from the call %q", name, r.CallID)
		} else {
			e.Warnf(path, "functionResponse needs the function's name, and no earlier call has the id %q; written with an empty name", r.CallID)
		}
	}
	dst = appendHead(dst, "functionResponse", r.CallID, name)
	var texts []string
	var images []llm.Image
	for k, p := range r.Content {
		switch p := p.(type) {
		case llm.Text:
			texts = append(texts, p.Text)
		case llm.Image:
			images = append(images, p)
		default:
			e.Warnf(path+".functionResponse", "a %s part in a tool result (Content[%d]) cannot be expressed; dropped", codec.PartKind(p), k)
		}
	}
	dst = append(dst, `,"response":`...)
	if wrap != nil {
		dst = append(dst, `{"output":`...)
		dst = append(dst, wrap...)
		dst = append(dst, '}')
	} else {
		dst = e.response(dst, texts, r.Status, path+".functionResponse.response")
	}
	if len(images) > 0 {
		dst = append(dst, `,"parts":`...)
		open := len(dst)
		dst = append(dst, '[')
		var list codec.List
		for _, img := range images {
			var at int
			dst, at = list.Begin(dst)
			if d, ok := e.media(dst, img, path+".functionResponse.parts."+strconv.Itoa(list.Len())); ok {
				dst = append(d, '}')
			}
			dst = list.End(dst, at)
		}
		if respOne && list.Len() == 1 {
			dst = unbracket(dst, open)
		} else {
			dst = append(dst, ']')
		}
	}
	return codec.AppendMembers(dst, resp)
}

// response writes the response object that decodes back to the given text
// content and status (GEM-RESPONSE-OBJECT).
func (e *encoder) response(dst []byte, texts []string, status llm.Status, path string) []byte {
	if len(texts) == 0 {
		if status == llm.StatusError {
			return append(dst, `{"error":""}`...)
		}
		if status == llm.StatusPartial {
			e.Warnf(path, "status partial cannot be expressed in a functionResponse except through a toolwire envelope; written as a success")
		}
		return append(dst, "{}"...)
	}
	text := strings.Join(texts, "\n")
	if obj, ok := codec.ValidObject([]byte(text)); ok && len(obj) == len(text) {
		if c, ok := codec.AppendCompact(nil, obj); ok {
			if content, st := decodeResponse(c); st == status && len(content) == 1 && content[0] == (llm.Text{Text: string(c)}) {
				return append(dst, c...)
			}
		}
	}
	switch status {
	case llm.StatusError:
		dst = append(dst, `{"error":`...)
		if out, ok := codec.AppendObject(dst, []byte(text)); ok {
			return append(out, '}')
		}
	case llm.StatusPartial:
		e.Warnf(path, "status partial cannot be expressed in a functionResponse except through a toolwire envelope; written as a success")
		fallthrough
	default:
		dst = append(dst, `{"output":`...)
	}
	dst = codec.AppendString(dst, text)
	return append(dst, '}')
}

// media writes an inlineData or fileData part without its closing brace,
// or reports false (after a warning) when it cannot.
func (e *encoder) media(dst []byte, img llm.Image, path string) ([]byte, bool) {
	mt, data, ok := e.Media(img, path)
	if !ok {
		return dst, false
	}
	switch {
	case len(data) > 0 || (img.URL == "" && data != nil):
		if mt == "" {
			e.Warnf(path, "inline data without a media type cannot be expressed (inlineData needs mimeType); dropped")
			return dst, false
		}
		dst = append(dst, `{"inlineData":{"mimeType":`...)
		return codec.AppendBase64(dst, mt, data), true
	case img.URL != "":
		dst = append(dst, `{"fileData":{`...)
		if mt != "" {
			dst = append(dst, `"mimeType":`...)
			dst = codec.AppendString(dst, mt)
			dst = append(dst, ',')
		} else {
			e.Warnf(path, "fileData for %q has no media type; Gemini may reject it", img.URL)
		}
		dst = append(dst, `"fileUri":`...)
		dst = codec.AppendString(dst, img.URL)
		return append(dst, '}'), true
	}
	e.NoMedia(path)
	return dst, false
}

// tools writes the tools array: the source body's Tool objects in their
// order (function declarations matched to Tools by name), then the Tools
// that are new, in the last Tool object with declarations or a new one.
func (e *encoder) tools(dst []byte) []byte {
	tools := e.r.Tools
	used := make([]bool, len(tools))
	find := func(name string) int {
		for x, t := range tools {
			if !used[x] && t.Name == name {
				return x
			}
		}
		return -1
	}
	// Which source declarations survive, and which Tools are new.
	kept := make([][]int, len(e.src.tools))
	lastFn := -1
	for s, st := range e.src.tools {
		if st.opaque {
			continue
		}
		lastFn = s
		for _, d := range st.decls {
			x := find(d.spec.Name)
			if x >= 0 {
				used[x] = true
			}
			kept[s] = append(kept[s], x)
		}
	}
	var fresh []int
	for x := range tools {
		if !used[x] {
			fresh = append(fresh, x)
		}
	}
	open := len(dst)
	dst = append(dst, '[')
	n := 0
	for s, st := range e.src.tools {
		// A Tool whose declarations all survive unchanged, with none
		// added, is written as it was; so is every opaque Tool, which has
		// no declarations and is never lastFn.
		var add []int
		if s == lastFn {
			add = fresh
		}
		unchanged := len(add) == 0
		for di, x := range kept[s] {
			if x < 0 || !codec.SameSpec(tools[x], st.decls[di].spec) {
				unchanged = false
			}
		}
		if unchanged {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, st.raw...)
			n++
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		dst = codec.AppendString(dst, st.key)
		dst = append(dst, ':')
		declOpen := len(dst)
		dst = append(dst, '[')
		m := 0
		for di, x := range kept[s] {
			if x < 0 {
				continue
			}
			if m > 0 {
				dst = append(dst, ',')
			}
			if codec.SameSpec(tools[x], st.decls[di].spec) {
				dst = append(dst, st.decls[di].raw...)
			} else {
				dst = e.decl(dst, tools[x], st.decls[di].paramKey, st.decls[di].extras, n, m)
			}
			m++
		}
		for _, x := range add {
			if m > 0 {
				dst = append(dst, ',')
			}
			dst = e.decl(dst, tools[x], "", nil, n, m)
			m++
		}
		if st.declOne && m == 1 {
			dst = unbracket(dst, declOpen)
		} else {
			dst = append(dst, ']')
		}
		dst = codec.AppendMembers(dst, st.extras)
		n++
	}
	if lastFn < 0 && len(fresh) > 0 {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"functionDeclarations":[`...)
		for m, x := range fresh {
			if m > 0 {
				dst = append(dst, ',')
			}
			dst = e.decl(dst, tools[x], "", nil, n, m)
		}
		dst = append(dst, "]}"...)
		n++
	}
	if e.src.toolsOne && n == 1 {
		return unbracket(dst, open)
	}
	return append(dst, ']')
}

func (e *encoder) decl(dst []byte, t llm.ToolSpec, paramKey string, extras []codec.Member, k, m int) []byte {
	path := "tools." + strconv.Itoa(k) + ".functionDeclarations." + strconv.Itoa(m)
	dst = append(dst, `{"name":`...)
	dst = codec.AppendString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = codec.AppendString(dst, t.Description)
	}
	if len(bytes.TrimSpace(t.Parameters)) > 0 {
		if codec.Camel(paramKey) != "parametersJsonSchema" {
			// Parameters is JSON Schema (a decoded OpenAPI schema was
			// converted), which parametersJsonSchema takes as is.
			paramKey = "parametersJsonSchema"
		}
		if obj, ok := codec.ValidObject(t.Parameters); ok {
			dst = append(dst, ',')
			dst = codec.AppendString(dst, paramKey)
			dst = append(dst, ':')
			dst, _ = codec.AppendCompact(dst, obj)
		} else {
			e.Warnf(path, "the parameters of %q are not a JSON object; not written", t.Name)
		}
	}
	if t.Strict {
		e.Warnf(path, "Gemini has no strict mode for function declarations; strict was dropped for %q", t.Name)
	}
	if t.Description != "" {
		// A "description": null kept as an extra field gave way to one.
		extras = slices.DeleteFunc(slices.Clone(extras), func(m codec.Member) bool { return codec.Camel(m.Key) == "description" })
	}
	return codec.AppendMembers(dst, extras)
}

// identity keys a part for the matcher: the fields this dialect writes.
var identity = codec.Identity{Names: true, Signature: true, ReasoningText: true, OpaqueKind: true}
