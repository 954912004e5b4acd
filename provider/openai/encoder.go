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
// the array of wire elements being written, warnings with paths into the
// encoded body, which parts of a message the OpenAI formats can hold, and
// the tools array.

// encoder is the part of a Chat or Responses encoder that does not depend
// on the dialect.
type encoder struct {
	codec.Warner
	mt       *matcher
	provider string        // the provider of the Opaque parts this dialect writes back
	array    string        // the body's array: "messages" or "input"
	out      int           // the index of the next wire element
	ids      *codec.IDPlan // the ids of a conversion; nil for a decoded request
	dst      []byte
	list     codec.List
}

// planIDs plans the ids of msgs, messages converted from another dialect,
// by rules (see [codec.IDPlan]).
func (e *encoder) planIDs(msgs []llm.Message, rules codec.IDRules) {
	e.ids = codec.PlanIDs(msgs, rules)
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

// resultID returns result r, part j of message i, with the call id to
// write, and warns at path when it is not the result's own.
func (e *encoder) resultID(i, j int, r llm.ToolResult, path string) llm.ToolResult {
	id, warning := e.ids.Result(i, j, r.CallID)
	if warning != "" {
		e.Warn(path, warning)
	}
	r.CallID = id
	return r
}

// bare writes a request as a bare array with write, after warning that
// its tools and its other fields (which others names) have no place in
// one.
func (e *encoder) bare(dst []byte, tools, fields bool, others string, write func([]byte) ([]byte, error)) ([]byte, []provider.Warning, error) {
	if tools {
		e.Warn("tools", "a bare "+e.array+" array has no place for tools; they are left out")
	}
	if fields {
		e.Warn("", "a bare "+e.array+" array has no place for the other fields ("+others+"); they are left out")
	}
	dst, err := write(dst)
	if err != nil {
		return nil, nil, err
	}
	return dst, e.Warnings, nil
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

// elements writes the wire array of the request's messages, each with
// message, then the hidden source elements after the last.
func (e *encoder) elements(dst []byte, msgs []llm.Message, message func(i int, m llm.Message) error) ([]byte, error) {
	e.dst = append(dst, '[')
	e.list = codec.List{}
	for i, m := range msgs {
		if err := message(i, m); err != nil {
			return nil, err
		}
	}
	e.hidden(e.mt.tail())
	return append(e.dst, ']'), nil
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
	e.Warn(e.outPath(), fmt.Sprintf("%s from %s has no %s form; it is left out", what, providerName(o.Provider), dialectName(e.provider)))
	return false
}

func dialectName(provider string) string {
	if provider == ChatProvider {
		return "Chat Completions"
	}
	return "Responses"
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
		e.Warn(e.outPath(), fmt.Sprintf("a document of type %q given by URL has no %s form (a file part takes inline data); it is left out", img.MediaType, dialectName(e.provider)))
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
