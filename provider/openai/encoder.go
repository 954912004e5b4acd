package openai

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// This file holds what the Chat Completions and Responses encoders share:
// the walk over a request (its top-level members, its messages, the
// parts of each message the OpenAI formats can hold), the array of wire
// elements being written, warnings with paths into the encoded body,
// content values, and the tools array. What each format writes its own
// way is its [format] value and its [writer].

// A format holds what the Chat Completions and Responses bodies do
// differently where their encoders otherwise agree.
type format struct {
	name       string               // "Chat Completions" or "Responses", for warnings
	provider   string               // the provider of the Opaque parts it writes back
	array      string               // the body's array: "messages" or "input"
	resultID   string               // the member of a result that names its call
	modeled    []string             // the top-level members the request type models
	others     string               // the other fields a bare array has no place for, for its warning
	perMessage int                  // bytes of framing per message, for the size hint
	idRules    func() codec.IDRules // the rules for the ids of a conversion
}

// request is what the two encoders read alike of a [ChatRequest] or a
// [ResponsesRequest]: the fields of the same names.
type request struct {
	messages   []llm.Message
	tools      []llm.ToolSpec
	fields     []Field
	systemRole SystemRole
	order      []string
	src        *source
	decoded    bool
	bare       bool
	bareLoses  bool // the request holds fields besides tools that a bare array has no place for
}

// A writer writes what a format writes its own way.
type writer interface {
	// member writes top-level member key, one the format models other
	// than tools (which [encoder.encode] writes), with its key when there
	// is one to write.
	member(dst []byte, key string, first *bool) ([]byte, error)
	// textMessage writes a system, developer or user message (role) of
	// parts, the parts of llm message i at indices js (i < 0: parts made
	// by the encoder).
	textMessage(i int, llmRole llm.Role, role string, parts []llm.Part, js []int)
	// assistant writes assistant message i.
	assistant(i int, m llm.Message) error
	// result writes tool result r, part j of message i (orig as the
	// message holds it; r has the id to write), and returns what is to be
	// written in a user message after the message's results.
	result(i, j int, orig llm.Part, r llm.ToolResult) (after []llm.Part)
	// tool writes a function tool.
	tool(dst []byte, t llm.ToolSpec, st srcTool) []byte
}

// encoder is the part of a Chat or Responses encoder that does not depend
// on the format.
type encoder struct {
	codec.Warner
	*format
	req  request
	mt   *matcher
	out  int           // the index of the next wire element
	ids  *codec.IDPlan // the ids of a conversion; nil for a decoded request
	dst  []byte
	list codec.List
}

// newEncoder returns the encoder of r in format f; it plans the ids of
// messages converted from another dialect (see [codec.IDPlan]).
func newEncoder(f *format, r request) encoder {
	e := encoder{format: f, req: r, mt: newMatcher(r.src)}
	if !r.decoded {
		e.ids = codec.PlanIDs(r.messages, f.idRules())
	}
	return e
}

// encode writes the request, with w writing what the format writes its
// own way: a bare array of its messages, after warning that its tools and
// its other fields have no place in one, or the top-level object, its
// members in the body's order.
func (e *encoder) encode(w writer) ([]byte, []provider.Warning, error) {
	r := &e.req
	dst := make([]byte, 0, sizeHint(r.src, r.messages, e.perMessage))
	if r.bare {
		if len(r.tools) > 0 || (r.src != nil && len(r.src.tools) > 0) {
			e.Warn("tools", "a bare "+e.array+" array has no place for tools; they are left out")
		}
		if r.bareLoses {
			e.Warn("", "a bare "+e.array+" array has no place for the other fields ("+e.others+"); they are left out")
		}
		dst, err := e.elements(dst, w)
		if err != nil {
			return nil, nil, err
		}
		return dst, e.Warnings, nil
	}
	dst, err := appendTopLevel(dst, r.order, r.fields, e.modeled, func(dst []byte, key string, first *bool) ([]byte, error) {
		if key != "tools" {
			return w.member(dst, key, first)
		}
		if !e.hasTools(r.tools) {
			return dst, nil
		}
		dst = appendKey(dst, first, key)
		return e.tools(dst, r.tools, w.tool)
	})
	if err != nil {
		return nil, nil, err
	}
	return dst, e.Warnings, nil
}

// callID returns the id to write for call j of message i, and warns at path
// when it is not the call's own.
func (e *encoder) callID(i, j int, c llm.ToolCall, path string) string {
	id, warning := e.ids.Call(i, j, c.ID)
	if warning != "" {
		e.Warn(path, warning)
	}
	return id
}

// withResultID returns result r, part j of message i, with the call id to
// write, and warns when it is not the result's own.
func (e *encoder) withResultID(i, j int, r llm.ToolResult) llm.ToolResult {
	id, warning := e.ids.Result(i, j, r.CallID)
	if warning != "" {
		e.Warn(e.outPath()+"."+e.resultID, warning)
	}
	r.CallID = id
	return r
}

// warnStatus warns when result r's status says more than its content.
func (e *encoder) warnStatus(r llm.ToolResult) {
	if wr := statusWarning(e.outPath(), r); wr != nil {
		e.Warnings = append(e.Warnings, *wr)
	}
}

// outPath is the path of the next wire element, for warnings.
func (e *encoder) outPath() string { return e.array + "." + strconv.Itoa(e.out) }

// put writes one wire element: f appends it, or nothing to leave it out.
func (e *encoder) put(f func(dst []byte) []byte) {
	var at int
	e.dst, at = e.list.Begin(e.dst)
	n := e.list.Len()
	e.dst = e.list.End(f(e.dst), at)
	if e.list.Len() > n {
		e.out++
	}
}

// hidden writes the decoded elements the llm form had no place for.
func (e *encoder) hidden(xs []int32) {
	for _, x := range xs {
		n := e.mt.src.elems[x].node
		e.put(func(dst []byte) []byte { return e.mt.raw(dst, n) })
	}
}

// from takes the element pk found for what is being written: it writes
// the hidden elements before it, then the element as it was when pk found
// one to write whole (done). Otherwise it returns the template element
// (nil when there is none) and its JSON.
func (e *encoder) from(pk origin) (tx *elem, tmpl []byte, done bool) {
	switch {
	case pk.whole >= 0:
		e.hidden(e.mt.take(pk.whole))
		whole := e.mt.elem(pk.whole)
		e.put(func(dst []byte) []byte { return e.mt.raw(dst, whole.node) })
		return nil, nil, true
	case pk.tmpl >= 0:
		e.hidden(e.mt.take(pk.tmpl))
		tx = e.mt.elem(pk.tmpl)
		return tx, tx.node, false
	}
	return nil, nil, false
}

// elements writes the wire array of the request's messages, then the
// hidden source elements after the last.
func (e *encoder) elements(dst []byte, w writer) ([]byte, error) {
	e.dst = append(dst, '[')
	e.list = codec.List{}
	for i, m := range e.req.messages {
		if err := e.message(w, i, m); err != nil {
			return nil, err
		}
	}
	e.hidden(e.mt.tail())
	return append(e.dst, ']'), nil
}

// message writes llm message i: a system or user message of what it holds
// that the format can hold, an assistant message, or each result of a
// tool message and then, in a user message, what w moved out of them and
// the text and images beside them.
func (e *encoder) message(w writer, i int, m llm.Message) error {
	switch m.Role {
	case llm.RoleSystem, llm.RoleUser:
		parts, js, err := e.userParts(i, m)
		if err != nil {
			return err
		}
		role := "user"
		if m.Role == llm.RoleSystem {
			role = e.req.systemRole.wire()
		}
		w.textMessage(i, m.Role, role, parts, js)
	case llm.RoleAssistant:
		return w.assistant(i, m)
	case llm.RoleTool:
		var after []llm.Part
		trailing, err := e.toolParts(i, m, func(j int, r llm.ToolResult) {
			after = append(after, w.result(i, j, m.Parts[j], e.withResultID(i, j, r))...)
		})
		if err != nil {
			return err
		}
		if after = append(after, trailing...); len(after) > 0 {
			w.textMessage(-1, llm.RoleUser, "user", after, nil)
		}
	default:
		return fmt.Errorf("openai: messages[%d]: unknown role %q", i, m.Role)
	}
	return nil
}

// origin returns where the given parts of llm message i (at indices js)
// come from: the source element pick finds with keep, or for parts the
// encoder made (i < 0) none, with no source blocks.
func (e *encoder) origin(i int, parts []llm.Part, js []int, keep func(x *elem) bool) origin {
	if i >= 0 {
		return e.mt.pick(i, parts, js, keep)
	}
	e.mt.ks, e.mt.exact = e.mt.ks[:0], e.mt.exact[:0]
	for range parts {
		e.mt.ks, e.mt.exact = append(e.mt.ks, -1), append(e.mt.exact, false)
	}
	return origin{whole: -1, tmpl: -1}
}

// own reports whether o is this dialect's opaque data, which it writes
// back; it warns that o is left out when it is not.
func (e *encoder) own(o llm.Opaque) bool {
	if o.Provider == e.provider {
		return true
	}
	what := "opaque data"
	if o.Kind != "" {
		what = fmt.Sprintf("opaque %q data", o.Kind)
	}
	e.Warn(e.outPath(), fmt.Sprintf("%s from %s has no %s form; it is left out", what, providerName(o.Provider), e.name))
	return false
}

// isImageType reports whether an image is a picture (or of no stated
// type), not a document such as a PDF.
func isImageType(img llm.Image) bool {
	return img.MediaType == "" || strings.HasPrefix(img.MediaType, "image/")
}

// image reports whether img can be written, and warns when it cannot.
// fileData says whether the dialect holds documents given inline, which a
// URL cannot give.
func (e *encoder) image(img llm.Image) bool {
	if why := imageProblem(img); why != "" {
		e.Warn(e.outPath(), why+"; it is left out")
		return false
	}
	if !isImageType(img) && img.Data == nil {
		e.Warn(e.outPath(), fmt.Sprintf("a document of type %q given by URL has no %s form (a file part takes inline data); it is left out", img.MediaType, e.name))
		return false
	}
	return true
}

// userParts returns the parts of system or user message i that can be
// written, and their indices: its text, the images and documents of a
// user message, this dialect's opaque parts. It warns about what it leaves
// out; a part of another kind is an error.
func (e *encoder) userParts(i int, m llm.Message) ([]llm.Part, []int, error) {
	var parts []llm.Part
	var js []int
	for j, p := range m.Parts {
		switch q := p.(type) {
		case llm.Text:
		case llm.Image:
			if m.Role == llm.RoleSystem {
				e.Warn(e.outPath(), "a system message cannot hold an image; it is left out")
				continue
			}
			if !e.image(q) {
				continue
			}
		case llm.Opaque:
			if !e.own(q) {
				continue
			}
		default:
			return nil, nil, placement(i, j, m.Role, p)
		}
		parts = append(parts, p)
		js = append(js, j)
	}
	return parts, js, nil
}

// toolParts walks tool message i: each result, part j, its content checked
// by [encoder.resultContent], goes to result; the text and images beside
// the results are returned, to be written after them.
func (e *encoder) toolParts(i int, m llm.Message, result func(j int, r llm.ToolResult)) (trailing []llm.Part, err error) {
	for j, p := range m.Parts {
		switch q := p.(type) {
		case llm.ToolResult:
			r, err := e.resultContent(i, j, q)
			if err != nil {
				return nil, err
			}
			if len(trailing) > 0 {
				e.Warn(e.outPath(), "text or images between tool results are moved after the results")
			}
			result(j, r)
		case llm.Text:
			trailing = append(trailing, p)
		case llm.Image:
			if e.image(q) {
				trailing = append(trailing, p)
			}
		case llm.Opaque:
			if e.own(q) {
				trailing = append(trailing, p)
			}
		default:
			return nil, placement(i, j, m.Role, p)
		}
	}
	return trailing, nil
}

// resultContent returns result j of message i with the content that can be
// written: text, images that can be written, this dialect's opaque parts.
// Any other part is an error.
func (e *encoder) resultContent(i, j int, r llm.ToolResult) (llm.ToolResult, error) {
	content := r.Content
	for k, p := range r.Content {
		keep := true
		switch q := p.(type) {
		case llm.Text:
		case llm.Image:
			keep = e.image(q)
		case llm.Opaque:
			keep = e.own(q)
		default:
			return r, fmt.Errorf("openai: messages[%d].parts[%d].content[%d]: a tool result can hold only text and images, not a %s", i, j, k, partName(p))
		}
		if !keep && len(content) == len(r.Content) {
			content = append([]llm.Part(nil), r.Content[:k]...)
		} else if keep && len(content) < len(r.Content) {
			content = append(content, p)
		}
	}
	r.Content = content
	return r, nil
}

// appendContent writes parts (those at idx, when not nil) as a content
// value: a string for one text part, unless old, the content it replaces,
// was an array; for no parts "[]" if old was an array, else ""; else an
// array in which part t is written as it was decoded when raw(t) gives its
// JSON, and by part otherwise.
func (e *encoder) appendContent(dst []byte, parts []llm.Part, idx []int, old []byte, raw func(t int) []byte, part func(dst []byte, p llm.Part) []byte) []byte {
	n := len(parts)
	if idx != nil {
		n = len(idx)
	}
	at := func(q int) int {
		if idx != nil {
			return idx[q]
		}
		return q
	}
	wasArray := codec.Kind(old) == '['
	if n == 0 {
		if wasArray {
			return append(dst, "[]"...)
		}
		return append(dst, `""`...)
	}
	if n == 1 && !wasArray {
		if t, ok := parts[at(0)].(llm.Text); ok {
			return e.mt.str(dst, t.Text, old)
		}
	}
	dst = append(dst, '[')
	var list codec.List
	for q := range n {
		t := at(q)
		var start int
		dst, start = list.Begin(dst)
		if node := raw(t); node != nil {
			dst = e.mt.raw(dst, node)
		} else {
			dst = part(dst, parts[t])
		}
		dst = list.End(dst, start)
	}
	return append(dst, ']')
}

// placement returns the error for a part in a message whose role may not
// hold it.
func placement(i, j int, role llm.Role, p llm.Part) error {
	return fmt.Errorf("openai: messages[%d].parts[%d]: %s part cannot be in %s message (llm placement rules)", i, j, an(partName(p)), an(string(role)))
}

func partName(p llm.Part) string {
	if p == nil {
		return "nil"
	}
	if _, ok := p.(llm.Opaque); ok {
		return "opaque"
	}
	return codec.PartKind(p)
}

func providerName(p string) string {
	if p == "" {
		return "unattributed"
	}
	return strconv.Quote(p)
}

// sizeHint guesses the size of an encoded body: the size of the body it
// was decoded from, or perMessage bytes of framing for each message and the
// size of each part.
func sizeHint(src *source, msgs []llm.Message, perMessage int) int {
	if src != nil {
		return src.size + 64
	}
	n := 256
	for _, m := range msgs {
		n += perMessage
		for _, p := range m.Parts {
			n += partSize(p)
		}
	}
	return n
}

func partSize(p llm.Part) int {
	switch p := p.(type) {
	case llm.Text:
		// Each quote, backslash and newline is escaped: a text that holds
		// JSON (a tool result) grows by a quarter or more.
		return 24 + len(p.Text) + len(p.Text)/32 + strings.Count(p.Text, `"`) + strings.Count(p.Text, `\`) + strings.Count(p.Text, "\n")
	case llm.Image:
		return 64 + len(p.URL) + len(p.Data)*4/3
	case llm.ToolCall:
		return 96 + len(p.ID) + len(p.Name) + len(p.Input)*5/4
	case llm.ToolResult:
		n := 64 + len(p.CallID)
		for _, q := range p.Content {
			n += partSize(q)
		}
		return n
	case llm.Reasoning:
		return 64 + len(p.Data)
	case llm.Opaque:
		return 16 + len(p.Data)
	}
	return 0
}

// toolWriter writes one function tool: canonical, or merged into the
// decoded tool it came from (tmpl, a node of the source).
type toolWriter func(dst []byte, t llm.ToolSpec, src srcTool) []byte

// tools writes the tools array: the body's own value when the tools did
// not change, else the decoded tools in their order (a function tool
// matched to tools by name, the others as they were), then the tools that
// are new.
func (e *encoder) tools(dst []byte, tools []llm.ToolSpec, write toolWriter) ([]byte, error) {
	for k, t := range tools {
		if err := checkParameters(t); err != nil {
			return nil, fmt.Errorf("openai: tools[%d]: %w", k, err)
		}
	}
	var srcTools []srcTool
	if e.mt.src != nil {
		srcTools = e.mt.src.tools
		if n := e.mt.src.toolsNode; n != nil && sameTools(srcTools, tools) {
			return e.mt.raw(dst, n), nil
		}
	}
	used := make([]bool, len(tools))
	dst = append(dst, '[')
	var list codec.List
	for _, st := range srcTools {
		var at int
		dst, at = list.Begin(dst)
		if st.opaque {
			dst = e.mt.raw(dst, st.node)
		} else if k := toolByName(tools, used, st.spec.Name); k >= 0 {
			used[k] = true
			if codec.SameSpec(tools[k], st.spec) {
				dst = e.mt.raw(dst, st.node)
			} else {
				dst = write(dst, tools[k], st)
			}
		}
		dst = list.End(dst, at)
	}
	for k, t := range tools {
		if !used[k] {
			var at int
			dst, at = list.Begin(dst)
			dst = write(dst, t, srcTool{node: nil})
			dst = list.End(dst, at)
		}
	}
	return append(dst, ']'), nil
}

// sameTools reports whether tools are the function tools of src, in order.
func sameTools(src []srcTool, tools []llm.ToolSpec) bool {
	k := 0
	for _, st := range src {
		if st.opaque {
			continue
		}
		if k >= len(tools) || !codec.SameSpec(st.spec, tools[k]) {
			return false
		}
		k++
	}
	return k == len(tools)
}

// toolByName returns the first tool named name not yet used, or -1.
func toolByName(tools []llm.ToolSpec, used []bool, name string) int {
	for k, t := range tools {
		if !used[k] && t.Name == name {
			return k
		}
	}
	return -1
}

// hasTools reports whether a tools field is to be written.
func (e *encoder) hasTools(tools []llm.ToolSpec) bool {
	return len(tools) > 0 || (e.mt.src != nil && (e.mt.src.toolsNode != nil || len(e.mt.src.tools) > 0))
}

// toolFields writes the fields of a function tool the llm form models
// (name, description, parameters, strict), for [matcher.object]; strict
// says whether a strict that is false is written when the template has
// none.
func (e *encoder) toolField(o *obj, key string, old []byte, t llm.ToolSpec, decoded llm.ToolSpec, strictFalse bool) {
	mt := e.mt
	switch key {
	case "name":
		o.key(key)
		o.dst = mt.str(o.dst, t.Name, old)
	case "description":
		switch {
		case old != nil && t.Description == decoded.Description:
			o.key(key)
			o.dst = mt.raw(o.dst, old)
		case t.Description != "":
			o.key(key)
			o.dst = codec.AppendString(o.dst, t.Description)
		}
	case "parameters":
		switch {
		case old != nil && string(t.Parameters) == string(decoded.Parameters):
			o.key(key)
			o.dst = mt.raw(o.dst, old)
		case t.Parameters != nil:
			o.key(key)
			o.dst = appendParameters(o.dst, t.Parameters)
		}
	case "strict":
		switch {
		case old != nil && t.Strict == decoded.Strict:
			o.key(key)
			o.dst = mt.raw(o.dst, old)
		case t.Strict || old != nil || strictFalse:
			o.key(key)
			o.dst = strconv.AppendBool(o.dst, t.Strict)
		}
	}
}

// imageProblem says why an image cannot be written, or "".
func imageProblem(img llm.Image) string {
	switch {
	case img.Data != nil && img.MediaType == "":
		return "an inline image without a media type cannot be written as a data URL"
	case img.Data == nil && img.URL == "":
		return "an image with neither data nor a URL"
	}
	return ""
}

// appendDataURL appends the data URL of inline bytes, as a JSON string.
func appendDataURL(dst []byte, mediaType string, data []byte) []byte {
	dst = append(dst, `"data:`...)
	s := codec.AppendString(nil, mediaType+";base64,")
	dst = append(dst, s[1:len(s)-1]...)
	dst = base64.StdEncoding.AppendEncode(dst, data)
	return append(dst, '"')
}

// appendImageURL appends the URL form of an image: its URL, or a data URL
// for inline bytes.
func appendImageURL(dst []byte, img llm.Image) []byte {
	if img.Data != nil {
		return appendDataURL(dst, img.MediaType, img.Data)
	}
	dst = codec.AppendString(dst, img.URL)
	return dst
}

// fileName is the file name written with a document given inline, which
// the llm form does not hold.
func fileName(mediaType string) string {
	switch mediaType {
	case "application/pdf":
		return "document.pdf"
	case "text/plain":
		return "document.txt"
	}
	return "document"
}
