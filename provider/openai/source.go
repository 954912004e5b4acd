package openai

import (
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/internal/codec"
)

// This file holds what lets an encoder write a decoded body back as it was:
// every wire element (a Chat message or a Responses item) and a block for
// every llm part, each with its JSON as the body has it, compact (a node:
// the bytes of a JSON value, nil for none).
//
// Encoding finds, for each element it writes, the blocks its parts came
// from (codec.Matcher: the part decoded at the same place if it is the
// same, else a block with its identity). An element whose parts are all
// the blocks of one decoded element, unchanged, is written back as it was
// (compacted). Otherwise the decoded element its parts came from is a
// template: its members are written in their order, the ones the llm form
// models with their new values and the others as they were, and each part
// that did not change keeps its JSON. An element with no template is
// written in the codec's canonical form.

// source is what a decode saw beyond the exported fields.
type source struct {
	size    int // the size of the body
	elems   []elem
	blocks  []block
	msgs    []codec.Msg // one per llm message: its blocks (Raw unused)
	msgElem []int32     // per llm message: the element it starts with
	tools   []srcTool
	// toolsNode is the body's tools value (null included), or nil.
	toolsNode []byte
}

// elemFix is what an encoder changes in an element to write a violation
// the codec found (Request.Wire) in the form the provider accepts.
type elemFix uint8

const (
	// fixContent writes a null or missing content as "" (OAI-CC-NULL-CONTENT)
	// and an empty content array as "" (OAI-CC-EMPTY-TOOL-CONTENT).
	fixContent elemFix = 1 << iota
	// fixToolCalls leaves out an empty tool_calls (OAI-CC-EMPTY-TOOLCALLS).
	fixToolCalls
	// fixID leaves out a repeated item id (OAI-RS-DUP-ITEM).
	fixID
	// fixDrop leaves the element out: a repeated opaque item
	// (OAI-RS-DUP-ITEM), a reasoning item whose following item is not the
	// one it belongs to (OAI-RS-REASONING-FOLLOW).
	fixDrop
	// fixPartType writes a content part without a type whose only content
	// is text as a text part (OAI-CC-PART-TYPE; its block is typeless).
	fixPartType
	// fixType writes a value of the wrong JSON type in the type the API
	// takes: arguments or a tool's output given as JSON, as the string
	// that holds it (OAI-CC-JSON-TYPE, OAI-RS-JSON-TYPE).
	fixType
)

// elem is one decoded wire element.
type elem struct {
	node         []byte
	first, count int32 // its blocks
	// hidden marks an element the llm form has no place for at all (a
	// legacy function message, an item_reference): it is written back
	// before the element that followed it in the body when that element
	// is written from the source, or at the end when it was last.
	hidden bool
	// input marks the string input of a Responses body: no item, but the
	// user message a string input is.
	input bool
	fix   elemFix
	role  llm.Role // the llm role of the message it belongs to
}

// blockKind says what part of its element a block is.
type blockKind uint8

const (
	bContent blockKind = iota // a content part, or (str) the string content
	bCall                     // Chat: an entry of tool_calls
	bMember                   // Chat: an assistant's function_call or audio member (node: its value)
	bWhole                    // the element itself: a Chat tool message, a Responses item
)

// block is the wire form of one llm part.
type block struct {
	part  llm.Part
	node  []byte
	elem  int32
	kind  blockKind
	str   bool    // node is a string content (the text of a one-part message or result)
	inner []block // a result's content parts
	// typeless marks a text part read from a content part without a type
	// (OAI-CC-PART-TYPE): it is written as a text part, not as it was.
	typeless bool
	// retype marks a call whose arguments were JSON, not a string
	// (OAI-CC-JSON-TYPE): it is written anew, not as it was.
	retype bool
}

// srcTool is one decoded tool definition.
type srcTool struct {
	node   []byte
	spec   llm.ToolSpec
	opaque bool // not a function tool: written back as it was
}

// Part returns the llm part of block k, for the [codec.Matcher].
func (s *source) Part(k int) llm.Part { return s.blocks[k].part }

// samePart reports whether a and b are written the same in an OpenAI body:
// codec.SamePart, and for a call its item id too (Responses writes it).
func samePart(a, b llm.Part) bool {
	if ca, ok := a.(llm.ToolCall); ok {
		cb, ok := b.(llm.ToolCall)
		return ok && ca.ItemID == cb.ItemID && codec.SamePart(a, b, sameResult)
	}
	return codec.SamePart(a, b, sameResult)
}

// sameResult reports whether two results write the same fields besides
// their content: OpenAI has no error flag and no name on a result.
func sameResult(a, b llm.ToolResult) bool { return a.CallID == b.CallID }

// matcher finds the decoded blocks and elements of what an encoder writes.
// It is made for one Encode call.
type matcher struct {
	src  *source
	m    codec.Matcher
	used []bool // elements written, or taken as templates
	// scratch for pick
	ks    []int
	exact []bool
}

func newMatcher(src *source) *matcher {
	if src == nil {
		return &matcher{}
	}
	return &matcher{src: src, m: codec.NewMatcher(src.msgs, src, len(src.blocks), identity.Key), used: make([]bool, len(src.elems))}
}

// match finds the block of part p, at index j of llm message i.
func (mt *matcher) match(i, j int, p llm.Part) (k int, exact bool) {
	if mt.src == nil {
		return -1, false
	}
	return mt.m.Match(i, j, p, func(k int) bool { return samePart(mt.src.blocks[k].part, p) }, true)
}

// An origin is where an element about to be written comes from.
type origin struct {
	whole int // the decoded element it is, unchanged; -1: none
	tmpl  int // the decoded element it was made from; -1: none
}

// pick finds the source of an element made of parts, the parts of llm
// message i at indices js: the decoded element whose blocks they all are,
// unchanged and in order (whole), else the first element one of them came
// from that ok accepts (tmpl). The blocks it returns in mt.ks (with
// mt.exact) are not yet marked written; take does that.
func (mt *matcher) pick(i int, parts []llm.Part, js []int, ok func(e *elem) bool) origin {
	pk := origin{whole: -1, tmpl: -1}
	mt.ks, mt.exact = mt.ks[:0], mt.exact[:0]
	if mt.src == nil {
		for range parts {
			mt.ks, mt.exact = append(mt.ks, -1), append(mt.exact, false)
		}
		return pk
	}
	all := len(parts) > 0
	for t, p := range parts {
		k, ex := mt.match(i, js[t], p)
		mt.ks = append(mt.ks, k)
		mt.exact = append(mt.exact, ex)
		all = all && ex
	}
	if all {
		x := mt.src.blocks[mt.ks[0]].elem
		e := &mt.src.elems[x]
		if !mt.used[x] && e.fix == 0 && !e.input && int(e.count) == len(parts) && ok(e) {
			for t, k := range mt.ks {
				if k != int(e.first)+t {
					all = false
					break
				}
			}
			if all {
				pk.whole = int(x)
				return pk
			}
		}
	}
	for _, k := range mt.ks {
		if k < 0 {
			continue
		}
		x := mt.src.blocks[k].elem
		if !mt.used[x] && !mt.src.elems[x].input && ok(&mt.src.elems[x]) {
			pk.tmpl = int(x)
			break
		}
	}
	if pk.tmpl < 0 && len(parts) == 0 && i < len(mt.src.msgs) && mt.src.msgs[i].Count == 0 {
		// An empty message: the empty message decoded at its place.
		if x := mt.src.msgElem[i]; !mt.used[x] && !mt.src.elems[x].input && ok(&mt.src.elems[x]) {
			pk.tmpl = int(x)
		}
	}
	return pk
}

// block returns block k of the source, or nil.
func (mt *matcher) block(k int) *block {
	if k < 0 || mt.src == nil {
		return nil
	}
	return &mt.src.blocks[k]
}

// elem returns decoded element x, or nil.
func (mt *matcher) elem(x int) *elem {
	if x < 0 || mt.src == nil {
		return nil
	}
	return &mt.src.elems[x]
}

// take marks element x written (as itself or as a template) and its
// blocks with it, and returns the hidden elements to write before it.
func (mt *matcher) take(x int) []int32 {
	mt.used[x] = true
	e := &mt.src.elems[x]
	for k := e.first; k < e.first+e.count; k++ {
		mt.m.Use(int(k))
	}
	first := x
	for first > 0 && mt.src.elems[first-1].hidden {
		first--
	}
	var hidden []int32
	for h := first; h < x; h++ {
		if !mt.used[h] {
			mt.used[h] = true
			if mt.src.elems[h].fix&fixDrop == 0 {
				hidden = append(hidden, int32(h))
			}
		}
	}
	return hidden
}

// tail returns the hidden elements after the last element of the body
// that is not hidden, which are written at the end.
func (mt *matcher) tail() []int32 {
	if mt.src == nil {
		return nil
	}
	var out []int32
	for x := len(mt.src.elems) - 1; x >= 0 && mt.src.elems[x].hidden; x-- {
		if !mt.used[x] && mt.src.elems[x].fix&fixDrop == 0 {
			out = append(out, int32(x))
		}
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

// raw appends node n of the source, which is compact.
func (mt *matcher) raw(dst []byte, n []byte) []byte { return append(dst, n...) }

// member returns member key of object node n (nil when n is nil or has no
// such member).
func (mt *matcher) member(n []byte, key string) []byte { return codec.Get(n, key) }

// isNull reports whether node n is present and null.
func (mt *matcher) isNull(n []byte) bool { return n != nil && codec.IsNull(n) }

// fixed writes key with the template's value old, or literal (JSON) when
// the template has none: a member whose value the llm form implies (a
// role, a type).
func (mt *matcher) fixed(o *obj, key string, old []byte, literal string) {
	o.key(key)
	o.dst = mt.rawOr(o.dst, old, literal)
}

// rawOr appends node old as it was, or literal when it is nil.
func (mt *matcher) rawOr(dst []byte, old []byte, literal string) []byte {
	if old != nil {
		return mt.raw(dst, old)
	}
	return append(dst, literal...)
}

// single finds the origin of an element written from one part, part j of
// llm message i, that was decoded as an element of its own (a Chat tool
// message, a Responses call or output item): that element when the part
// did not change and same says the element to write is the part as it
// was, else that element as a template. It returns the block too.
func (mt *matcher) single(i, j int, p llm.Part, same bool) (origin, *block) {
	pk := origin{whole: -1, tmpl: -1}
	k, exact := mt.match(i, j, p)
	b := mt.block(k)
	if b == nil || b.kind != bWhole || mt.used[b.elem] {
		return pk, b
	}
	if exact && same && mt.src.elems[b.elem].fix == 0 {
		pk.whole = int(b.elem)
	} else {
		pk.tmpl = int(b.elem)
	}
	return pk, b
}

// isString reports whether node n is the JSON string s.
func isString(n []byte, s string) bool {
	old, ok := codec.String(n)
	return ok && old == s
}

// str appends s as a JSON string: node n as it was when it is that
// string, so that its escapes stay.
func (mt *matcher) str(dst []byte, s string, n []byte) []byte {
	if old, ok := codec.String(n); ok && old == s {
		return mt.raw(dst, n)
	}
	return codec.AppendString(dst, s)
}

// obj writes the members of one JSON object.
type obj struct {
	dst []byte
	n   int
}

// key writes the separator and key k.
func (o *obj) key(k string) {
	if o.n > 0 {
		o.dst = append(o.dst, ',')
	}
	o.n++
	o.dst = codec.AppendString(o.dst, k)
	o.dst = append(o.dst, ':')
}

// object appends an object: the members of template object tmpl (nil:
// none) in their order, each one whose key is in keys (the keys the llm
// form models) written by emit, the others as they were; then emit for
// each key of keys that tmpl lacks, in order. emit gets the template's
// member (nil when it has none) and writes the key and its value through
// o, or nothing to leave the key out.
func (mt *matcher) object(dst []byte, tmpl []byte, keys []string, emit func(o *obj, key string, old []byte)) []byte {
	o := obj{dst: append(dst, '{')}
	var seen uint32 // keys has at most 32 entries
	for _, m := range codec.Members(tmpl) {
		modeled := -1
		for x, k := range keys {
			if seen&(1<<x) == 0 && m.Key == k {
				modeled = x
				break
			}
		}
		if modeled < 0 {
			o.key(m.Key)
			o.dst = append(o.dst, m.Val...)
			continue
		}
		seen |= 1 << modeled
		emit(&o, keys[modeled], m.Val)
	}
	for x, k := range keys {
		if seen&(1<<x) == 0 {
			emit(&o, k, nil)
		}
	}
	return append(o.dst, '}')
}

// appendValidJSON appends src, a JSON value, compacted; false when it is
// not valid JSON (invalid UTF-8 in strings is read, and kept).
func appendValidJSON(dst, src []byte) ([]byte, bool) {
	if !validJSON(src) {
		return dst, false
	}
	return codec.AppendCompact(dst, src)
}

// validJSON reports whether src is one JSON value, as the decoders read
// it: no name repeated in an object, invalid UTF-8 in strings read.
func validJSON(src []byte) bool {
	return jsontext.Value(src).IsValid(jsontext.AllowInvalidUTF8(true))
}

// identity keys a part for the matcher: the fields this dialect writes.
var identity = codec.Identity{OpaqueKind: true}
