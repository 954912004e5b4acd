package anthropic

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/internal/callid"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// Encode writes r as a Messages API request body: compact, deterministic,
// with <, > and & unescaped. A Request from [Decode] encodes back to the
// body it came from; see the package documentation for what a conversion
// changes. The warnings say what could not be carried over exactly, with
// dotted paths into the encoded body. Encode fails only on a Request that
// cannot be written at all: a nil or foreign part, an unknown role, a
// field whose value is not JSON.
func Encode(r *Request) ([]byte, []provider.Warning, error) {
	if r == nil {
		return nil, nil, errors.New("anthropic: encode: nil Request")
	}
	return codec.Encode("anthropic", "Anthropic", r.Messages, r.Bare, func() codec.Encoder { return newEncoder(r) })
}

type encoder struct {
	codec.Frame
	r      *Request
	src    *source
	blocks codec.Matcher // finds the source blocks of the parts written

	lead     int           // leading messages written to top-level system
	ids      *codec.IDPlan // the ids of a conversion; nil for a decoded Request
	lastTool int           // where the last tool written starts
}

// newEncoder returns the encoder of r; it plans the ids of a conversion
// (a Request Decode did not make).
func newEncoder(r *Request) *encoder {
	src := r.src
	if src == nil {
		src = &source{leadSys: -1}
	}
	fromField := src.leadSys // how many leading system messages the field may hold
	if r.FixWire {
		fromField = -1 // all of them
	}
	e := &encoder{r: r, src: src, lead: codec.LeadingSystem(r.Messages, r.Bare, fromField),
		blocks: codec.NewMatcher(src.msgs, src, len(src.blocks), identity.Key)}
	if r.src == nil {
		e.ids = codec.PlanIDs(r.Messages, idRules())
	}
	return e
}

// Source returns the decoded messages, for [codec.Encode].
func (e *encoder) Source() []codec.Msg { return e.src.msgs }

// Part returns the llm part of block k, for the encoder's [codec.Matcher].
func (s *source) Part(k int) llm.Part { return s.blocks[k].part }

func (e *encoder) wirePath(i int) string { return "messages." + strconv.Itoa(i-e.lead) }

// validID reports whether id matches ^[a-zA-Z0-9_-]+$ (ANT-ID-PATTERN).
func validID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// idRules returns Anthropic's id rules: ids match ^[a-zA-Z0-9_-]+$
// (ANT-ID-PATTERN).
func idRules() codec.IDRules {
	return codec.IDRules{Prefix: "toolu_", Valid: validID, Rewrite: sanitizeID,
		Invalid: "does not match ^[a-zA-Z0-9_-]+$ (ANT-ID-PATTERN)", Missing: "ANT-ID-PATTERN",
		Call: "tool_use", Result: "tool_result"}
}

// sanitizeID rewrites an id ANT-ID-PATTERN refuses, by internal/callid's
// scheme: each run of characters outside [a-zA-Z0-9_-] becomes "_", and a
// short hash of the original follows, so that two ids that sanitize alike
// still differ.
func sanitizeID(id string) string { return callid.Sanitize(id, "toolu") }

// callID returns the id to write for the call or result at (i, j), and
// warns when it is not id.
func (e *encoder) callID(i, j int, id, path string, call bool) string {
	nid, warning := e.ids.Result(i, j, id)
	if call {
		nid, warning = e.ids.Call(i, j, id)
	}
	if warning != "" {
		e.Warn(path, warning)
	}
	return nid
}

// Body writes the body, for [codec.Encode].
func (e *encoder) Body(dst []byte) ([]byte, error) {
	return e.appendBody(dst, e.system, e.messages, e.tools)
}

// appendBody writes the body: its fields in their order (max_tokens added
// where needed), with system, messages and tools writing the values of
// system (when there is a system prompt), messages and tools (when there
// are tools).
func (e *encoder) appendBody(dst []byte, system, messages, tools func(dst []byte) []byte) ([]byte, error) {
	r := e.r
	b := codec.Body{System: "system", Messages: "messages", Tools: "tools",
		AppendMessages: messages, AppendTools: tools, HasTools: len(r.Tools) > 0 || hasOpaqueTools(e.src)}
	if e.lead > 0 {
		b.AppendSystem = system
	}
	fields := r.Fields
	if mt, ok := e.maxTokens(); ok {
		// ANT-MAX-TOKENS: the field is required; put it after the model.
		at := 0
		for k, f := range fields {
			if f.Key == "model" {
				at = k + 1
			}
		}
		fields = slices.Insert(slices.Clip(fields), at, Field{Key: "max_tokens", Value: strconv.AppendInt(nil, mt, 10)})
		if r.src == nil {
			e.Warnf("max_tokens", "the Messages API requires max_tokens; wrote %d (set your own limit)", mt)
		}
	}
	dst, err := codec.AppendBody(dst, "anthropic: encode", fields, &b)
	if err != nil {
		return nil, err
	}
	if r.Thinking && !slices.ContainsFunc(r.Fields, func(f Field) bool { return f.Key == "thinking" }) {
		e.Warn("thinking", "Thinking is set but the body has no thinking field (its budget_tokens is unknown); none was written")
	}
	return dst, nil
}

// defaultMaxTokens is the max_tokens Encode writes where a body needs one
// and has none: every Claude model can write that many.
const defaultMaxTokens = 4096

// maxTokens returns the max_tokens to add to the body (ANT-MAX-TOKENS),
// and false when it needs none: it has one, or it is written back as it
// was (FixWire unset). A conversion (a Request Decode did not make) and
// FixWire get one: defaultMaxTokens, or that many more than the thinking
// budget, which max_tokens must exceed.
func (e *encoder) maxTokens() (int64, bool) {
	r := e.r
	if r.src != nil && !r.FixWire {
		return 0, false
	}
	mt := int64(defaultMaxTokens)
	for _, f := range r.Fields {
		switch f.Key {
		case "max_tokens":
			return 0, false
		case "thinking":
			var th struct {
				Budget int64 `json:"budget_tokens"`
			}
			if json.Unmarshal(f.Value, &th) == nil && th.Budget > 0 && th.Budget < 1<<40 {
				mt += th.Budget
			}
		}
	}
	return mt, true
}

// hasOpaqueTools reports whether the source body has tools the codec
// writes back as they were.
func hasOpaqueTools(s *source) bool {
	return slices.ContainsFunc(s.tools, func(t srcTool) bool { return t.opaque })
}

// Bare writes the messages as a bare array, for [codec.Encode].
func (e *encoder) Bare(dst []byte) []byte {
	r := e.r
	if len(r.Tools) > 0 || hasOpaqueTools(e.src) {
		n := len(r.Tools)
		for _, t := range e.src.tools {
			if t.opaque {
				n++
			}
		}
		e.Warnf("tools", "a bare messages array has no tools field; %d tool definition(s) not written", n)
	}
	for _, f := range r.Fields {
		if f.Value != nil {
			e.Warnf(f.Key, "a bare messages array has no top-level fields; %s not written", f.Key)
		}
	}
	return e.messages(dst)
}

// system writes the top-level system field from the leading system
// messages.
func (e *encoder) system(dst []byte) []byte {
	msgs := e.r.Messages[:e.lead]
	if e.lead == 1 && e.src.leadSys == 1 {
		if raw, ok := e.verbatim(0, msgs[0]); ok {
			return append(dst, raw...)
		}
	}
	var texts []int // flattened (i<<20 | j) of text parts
	for i, m := range msgs {
		for j, p := range m.Parts {
			if _, ok := p.(llm.Text); ok {
				texts = append(texts, i<<20|j)
			} else {
				e.Warnf("system", "a system message holds text only; a %s part of Messages[%d] was dropped", codec.PartKind(p), i)
			}
		}
	}
	if len(texts) == 1 {
		i, j := texts[0]>>20, texts[0]&(1<<20-1)
		k, exact := e.match(i, j, msgs[i].Parts[j])
		if k < 0 || (exact && e.src.blocks[k].str) {
			if k >= 0 {
				e.blocks.Use(k)
			}
			dst = codec.AppendString(dst, msgs[i].Parts[j].(llm.Text).Text)
			return dst
		}
	}
	dst = append(dst, '[')
	n := 0
	for i := range msgs {
		dst, n = e.textBlocks(dst, i, n)
	}
	return append(dst, ']')
}

// textBlocks writes the text parts of leading system message i as text
// blocks, after the n blocks written before them, and returns how many
// are then written.
func (e *encoder) textBlocks(dst []byte, i, n int) ([]byte, int) {
	for j, p := range e.r.Messages[i].Parts {
		if _, ok := p.(llm.Text); !ok {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = e.part(dst, i, j, p, "system")
		n++
	}
	return dst, n
}

// verbatim returns the source JSON of message i when m is the message
// decoded there, unchanged, and marks its blocks written.
func (e *encoder) verbatim(i int, m llm.Message) ([]byte, bool) {
	return e.blocks.Verbatim(i, m.Role, len(m.Parts), func(j, k int) bool {
		return equalPart(e.src.blocks[k].part, m.Parts[j]) && !e.fixes(k)
	})
}

// fixes reports whether FixWire writes block k anew: a block Wire lists.
func (e *encoder) fixes(k int) bool {
	return e.r.FixWire && e.src.blocks[k].objContent
}

func (e *encoder) messages(dst []byte) []byte {
	msgs := e.r.Messages
	dst = append(dst, '[')
	for i := e.lead; i < len(msgs); i++ {
		if i > e.lead {
			dst = append(dst, ',')
		}
		dst, _ = e.message(dst, i, msgs[i])
	}
	return append(dst, ']')
}

// message writes message i, one after the leading system messages, and
// returns where the last block of its content array starts: -1 when it
// has none, or was written as it was decoded.
func (e *encoder) message(dst []byte, i int, m llm.Message) ([]byte, int) {
	path := e.wirePath(i)
	raw, ok := e.verbatim(i, m)
	if m.Role == llm.RoleSystem && e.r.Bare && (!ok || e.r.FixWire) {
		e.Warnf(path, `a bare messages array has no top-level system field; written as a role "system" message, which the classic Messages API rejects (ANT-SYSTEM-ROLE)`)
	}
	if ok {
		return append(dst, raw...), -1
	}
	var role string
	switch m.Role {
	case llm.RoleAssistant:
		role = "assistant"
	case llm.RoleSystem:
		role = "system"
	default:
		role = "user"
	}
	dst = append(dst, `{"role":"`...)
	dst = append(dst, role...)
	dst = append(dst, `","content":`...)
	if len(m.Parts) == 1 {
		k, exact := e.match(i, 0, m.Parts[0])
		if k >= 0 && exact && e.src.blocks[k].str {
			e.blocks.Use(k)
			dst = append(dst, e.src.blocks[k].raw...)
			return append(dst, '}'), -1
		}
		if t, ok := m.Parts[0].(llm.Text); ok && k < 0 && e.stringAt(i, m.Role) {
			// A new text in place of a string content (a "" that now
			// holds the placeholder) keeps the string form.
			dst = codec.AppendString(dst, t.Text)
			return append(dst, '}'), -1
		}
	}
	dst = append(dst, '[')
	var list codec.List
	last := -1
	for j, p := range m.Parts {
		bp := path + ".content." + strconv.Itoa(list.Len())
		if !e.fits(m.Role, p, bp) {
			continue
		}
		var at int
		dst, at = list.Begin(dst)
		n := list.Len()
		dst = e.part(dst, i, j, p, bp)
		if dst = list.End(dst, at); list.Len() > n {
			last = at
		}
	}
	return append(dst, "]}"...), last
}

// stringAt reports whether the decoded message i has the given role and
// a string content whose block no other part was written from; it then
// marks that block written.
func (e *encoder) stringAt(i int, role llm.Role) bool {
	if i >= len(e.src.msgs) {
		return false
	}
	sm := e.src.msgs[i] // i's source message, when nothing moved before it
	if sm.Role != role || sm.Count != 1 || !e.src.blocks[sm.First].str || e.blocks.Used(int(sm.First)) {
		return false
	}
	e.blocks.Use(int(sm.First))
	return true
}

// fits reports whether part p can be written in a message with the given
// role, and warns when it cannot.
func (e *encoder) fits(role llm.Role, p llm.Part, path string) bool {
	switch p.(type) {
	case llm.ToolCall:
		if role != llm.RoleAssistant {
			e.Warnf(path, "a tool call in a %s message cannot be expressed; dropped", role)
			return false
		}
	case llm.ToolResult:
		if role == llm.RoleAssistant || role == llm.RoleSystem {
			e.Warnf(path, "a tool result in a %s message cannot be expressed; dropped", role)
			return false
		}
	case llm.Reasoning:
		if role != llm.RoleAssistant {
			e.Warnf(path, "reasoning in a %s message cannot be expressed; dropped", role)
			return false
		}
	case llm.Image:
		if role == llm.RoleSystem {
			e.Warnf(path, "an image in a system message cannot be expressed; dropped")
			return false
		}
	}
	return true
}

// match finds the source block for part j of message i: the block decoded
// there if the part is unchanged, else an unwritten block with an equal
// part anywhere (exact), else one for the same tool call or result (its
// extra fields still apply).
func (e *encoder) match(i, j int, p llm.Part) (int, bool) {
	return e.blocks.Match(i, j, p, func(k int) bool { return equalPart(e.src.blocks[k].part, p) }, true)
}

// equalPart reports whether a and b are the same on the Anthropic wire.
func equalPart(a, b llm.Part) bool { return codec.SamePart(a, b, sameResult) }

// sameResult reports whether two results write the same tool_result fields
// (a result's Name and a status other than error are not written).
func sameResult(a, b llm.ToolResult) bool { return a.CallID == b.CallID && a.IsError() == b.IsError() }

// part writes part j of message i as a content block. It writes nothing
// (after a warning) for a part Anthropic cannot carry.
func (e *encoder) part(dst []byte, i, j int, p llm.Part, path string) []byte {
	k, exact := e.match(i, j, p)
	var b *block
	if k >= 0 {
		e.blocks.Use(k)
		b = &e.src.blocks[k]
		if exact && !b.str && !e.fixes(k) {
			return append(dst, b.raw...)
		}
	}
	var extras []codec.Member
	if b != nil {
		extras = b.extras
	}
	start := len(dst)
	switch p := p.(type) {
	case llm.Text:
		dst = append(dst, textBlock...)
		dst = codec.AppendString(dst, p.Text)
	case llm.Image:
		var ok bool
		if dst, ok = e.media(dst, p, path); !ok {
			return dst[:start]
		}
	case llm.ToolCall:
		e.DropItemID(p)
		dst = append(dst, `{"type":"tool_use","id":`...)
		dst = codec.AppendString(dst, e.callID(i, j, p.ID, path, true))
		dst = append(dst, `,"name":`...)
		dst = codec.AppendString(dst, p.Name)
		dst = append(dst, `,"input":`...)
		dst = e.input(dst, p.Input, path+".input")
	case llm.ToolResult:
		dst = e.result(dst, i, j, p, b, path)
	case llm.Opaque:
		var ok bool
		if dst, ok = e.opaque(dst, p, path); !ok {
			return dst[:start]
		}
		return dst
	case llm.Reasoning:
		if p.Provider != string(Dialect) {
			e.Warnf(path, "reasoning from %q cannot be replayed to Anthropic; dropped", p.Provider)
			return dst[:start]
		}
		data := bytes.TrimSpace(p.Data)
		switch {
		case len(data) > 0 && data[0] == '{':
			if out, ok := codec.AppendCompact(dst, data); ok {
				return out // an opaque block, verbatim
			}
			e.Warnf(path, "redacted thinking whose Data is not a JSON string cannot be expressed; dropped")
			return dst[:start]
		case len(data) > 0:
			var s string
			if json.Unmarshal(data, &s) != nil {
				e.Warnf(path, "redacted thinking whose Data is not a JSON string cannot be expressed; dropped")
				return dst[:start]
			}
			dst = append(dst, `{"type":"redacted_thinking","data":`...)
			dst = codec.AppendString(dst, s)
		default:
			dst = append(dst, `{"type":"thinking","thinking":`...)
			dst = codec.AppendString(dst, p.Text)
			if p.Signature != "" {
				dst = append(dst, `,"signature":`...)
				dst = codec.AppendString(dst, p.Signature)
			}
		}
	}
	return codec.AppendMembers(dst, extras)
}

// input writes a tool call's input, which Anthropic needs as an object.
func (e *encoder) input(dst, in []byte, path string) []byte {
	if len(bytes.TrimSpace(in)) == 0 {
		return append(dst, "{}"...)
	}
	return e.AppendInput(dst, in, path)
}

func (e *encoder) result(dst []byte, i, j int, r llm.ToolResult, b *block, path string) []byte {
	dst = append(dst, `{"type":"tool_result","tool_use_id":`...)
	dst = codec.AppendString(dst, e.callID(i, j, r.CallID, path, false))
	if r.Status == llm.StatusPartial && resultStatus(false, r.Content) != llm.StatusPartial {
		e.Warnf(path, "status partial has no Anthropic equivalent outside a toolwire envelope; written as a result without is_error")
	}
	switch {
	case len(r.Content) == 0:
		if b != nil && b.wasArr {
			dst = append(dst, `,"content":[]`...)
		}
	case len(r.Content) == 1 && isText(r.Content[0]) && (b == nil || !b.wasArr):
		dst = append(dst, `,"content":`...)
		dst = codec.AppendString(dst, r.Content[0].(llm.Text).Text)
	default:
		dst = append(dst, `,"content":[`...)
		var list codec.List
		for k, p := range r.Content {
			cp := path + ".content." + strconv.Itoa(list.Len())
			var inner *block
			if b != nil && k < len(b.inner) && equalPart(b.inner[k].part, p) {
				inner = &b.inner[k]
			}
			var at int
			dst, at = list.Begin(dst)
			switch p := p.(type) {
			case llm.Text:
				if inner != nil {
					dst = append(dst, inner.raw...)
				} else {
					dst = append(dst, `{"type":"text","text":`...)
					dst = codec.AppendString(dst, p.Text)
					dst = append(dst, '}')
				}
			case llm.Image:
				if inner != nil {
					dst = append(dst, inner.raw...)
				} else if d, ok := e.media(dst, p, cp); ok {
					dst = append(d, '}')
				}
			case llm.Opaque:
				dst, _ = e.opaque(dst, p, cp)
			default:
				e.Warnf(cp, "a %s part in a tool result cannot be expressed; dropped", codec.PartKind(p))
			}
			dst = list.End(dst, at)
		}
		dst = append(dst, ']')
	}
	if r.IsError() {
		dst = append(dst, `,"is_error":true`...)
	}
	return dst
}

// opaque writes an Anthropic block the llm form does not model, verbatim.
// It reports false (after a warning) for another dialect's element, which
// Anthropic cannot carry.
func (e *encoder) opaque(dst []byte, p llm.Opaque, path string) ([]byte, bool) {
	if p.Provider != string(Dialect) {
		e.Warnf(path, "%s from %q cannot be expressed in Anthropic; dropped", opaqueKind(p), p.Provider)
		return dst, false
	}
	if out, ok := codec.AppendObject(dst, p.Data); ok {
		return out, true
	}
	e.Warnf(path, "%s whose Data is not a JSON object cannot be written as an Anthropic block; dropped", opaqueKind(p))
	return dst, false
}

// opaqueKind names an opaque part in warnings: "a tool_reference block".
func opaqueKind(p llm.Opaque) string {
	if p.Kind == "" {
		return "an opaque part"
	}
	if strings.ContainsRune("aeiouAEIOU", rune(p.Kind[0])) {
		return "an " + p.Kind + " element"
	}
	return "a " + p.Kind + " element"
}

func isText(p llm.Part) bool {
	_, ok := p.(llm.Text)
	return ok
}

// isTextType reports whether media type mt is text ("text/plain",
// "text/markdown; charset=utf-8", ...).
func isTextType(mt string) bool {
	return strings.HasPrefix(strings.ToLower(mt), "text/")
}

// media writes an image or document block without its closing brace. An
// image type is an image block; PDF and text are document blocks (a base64
// or url source for a PDF, a text source for text), never image blocks. It
// reports false (after a warning) when Anthropic cannot carry it.
func (e *encoder) media(dst []byte, img llm.Image, path string) ([]byte, bool) {
	mt, data, ok := e.Media(img, path)
	if !ok {
		return dst, false
	}
	switch {
	case len(data) > 0:
		switch {
		case strings.HasPrefix(mt, "image/"):
			dst = append(dst, `{"type":"image","source":{"type":"base64","media_type":`...)
		case mt == mediaPDF:
			dst = append(dst, `{"type":"document","source":{"type":"base64","media_type":`...)
		case isTextType(mt) && utf8.Valid(data):
			if mt != mediaText {
				e.Warnf(path, "a document of media type %q is written as a text/plain document, the one text type Anthropic takes", mt)
			}
			dst = append(dst, `{"type":"document","source":{"type":"text","media_type":"text/plain","data":`...)
			dst = codec.AppendString(dst, string(data))
			return append(dst, '}'), true
		default:
			e.Warnf(path, "content of media type %q cannot be expressed in Anthropic (images, PDF and plain text only); dropped", mt)
			return dst, false
		}
		return codec.AppendBase64(dst, mt, data), true
	case img.URL != "":
		switch {
		case mt == mediaPDF:
			dst = append(dst, `{"type":"document","source":{"type":"url","url":`...)
		case mt == "" || strings.HasPrefix(mt, "image/"):
			dst = append(dst, `{"type":"image","source":{"type":"url","url":`...)
		default:
			e.Warnf(path, "a URL of media type %q cannot be expressed in Anthropic (images and PDF only); dropped", mt)
			return dst, false
		}
		dst = codec.AppendString(dst, img.URL)
		return append(dst, '}'), true
	}
	e.NoMedia(path)
	return dst, false
}

// tools writes the tools array: the source body's tools in their order
// (custom tools matched to Tools by name), then the Tools that are new.
func (e *encoder) tools(dst []byte) []byte {
	tools := e.r.Tools
	used := make([]bool, len(tools))
	dst = append(dst, '[')
	n := 0
	comma := func() {
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		e.lastTool = len(dst)
	}
	for _, st := range e.src.tools {
		if st.opaque {
			comma()
			dst = append(dst, st.raw...)
			continue
		}
		k := -1
		for x, t := range tools {
			if !used[x] && t.Name == st.spec.Name {
				k = x
				break
			}
		}
		if k < 0 {
			continue // removed
		}
		used[k] = true
		comma()
		if codec.SameSpec(tools[k], st.spec) {
			dst = append(dst, st.raw...)
		} else {
			dst = e.tool(dst, tools[k], st.extras, n-1)
		}
	}
	for k, t := range tools {
		if !used[k] {
			comma()
			dst = e.tool(dst, t, nil, n-1)
		}
	}
	return append(dst, ']')
}

func (e *encoder) tool(dst []byte, t llm.ToolSpec, extras []codec.Member, k int) []byte {
	dst = append(dst, `{"name":`...)
	dst = codec.AppendString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = codec.AppendString(dst, t.Description)
	}
	dst = append(dst, `,"input_schema":`...)
	if out, ok := codec.AppendObject(dst, t.Parameters); ok {
		dst = out
	} else {
		if len(bytes.TrimSpace(t.Parameters)) > 0 {
			e.Warnf("tools."+strconv.Itoa(k)+".input_schema", "the parameters of tool %q are not a JSON object; written as an empty object schema", t.Name)
		}
		dst = append(dst, `{"type":"object","properties":{}}`...)
	}
	if t.Strict {
		dst = append(dst, `,"strict":true`...)
	}
	return codec.AppendMembers(dst, extras)
}

// textBlock opens a text block, before its text.
const textBlock = `{"type":"text","text":`

// identity keys a part for the matcher: the fields this dialect writes.
var identity = codec.Identity{Signature: true}
