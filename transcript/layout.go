package transcript

import (
	"strconv"

	"github.com/toolwire/toolwire/llm"
)

// Special values of [Location.Index].
const (
	// TopLevel is the Index of a message or part that the encoder puts
	// outside the message array: Anthropic's "system", Gemini's
	// "systemInstruction".
	TopLevel = -1
	// NotEncoded is the Index of a message or part the dialect cannot
	// express, which the encoder leaves out (with a warning): reasoning from
	// another provider, a tool message without results in the OpenAI APIs.
	NotEncoded = -2
)

// A Location is where a message or part of an llm transcript sits in a
// provider's request body.
type Location struct {
	// Index is the index in the body's message array ("messages", "input"
	// or "contents"), or TopLevel or NotEncoded.
	Index int
	// Path is the dotted path in the body ("messages.4.content.0"); "" when
	// Index is NotEncoded.
	Path string
}

// A Map locates every message and part of an llm transcript in a
// provider's request body, following docs/dialect-mapping.md. Build one with
// [Layout]. A Map is immutable and safe for concurrent use.
type Map struct {
	d     Dialect
	msgs  []loc
	parts []loc
	off   []int32 // message i's parts are parts[off[i]:off[i+1]]
	n     int     // entries in the body's message array
}

// field names the array inside a wire message that holds a part.
type field uint8

const (
	fieldNone field = iota
	fieldContent
	fieldToolCalls
	fieldParts
)

// loc is a compact Location: wire message, field, index in that field
// (-1: the field is a string, or the part is the whole message).
type loc struct {
	msg   int32
	field field
	sub   int32
}

var locDropped = loc{msg: NotEncoded, sub: -1}

// Layout returns where each message and part of msgs lands in a request
// body of dialect d. It runs in time linear in the number of parts. An
// unknown dialect lays messages out one per entry, like Anthropic.
func Layout(msgs []llm.Message, d Dialect) *Map {
	total := 0
	for _, m := range msgs {
		total += len(m.Parts)
	}
	l := &Map{d: d, msgs: make([]loc, len(msgs)), parts: make([]loc, total), off: make([]int32, len(msgs)+1)}
	first := firstNonSystem(msgs)
	w := int32(0)
	p := 0
	for i, m := range msgs {
		l.off[i] = int32(p)
		w = layoutMessage(msgs, i, first, d, w, &l.msgs[i], l.parts[p:p+len(m.Parts)])
		p += len(m.Parts)
	}
	l.off[len(msgs)] = int32(p)
	l.n = int(w)
	return l
}

// layoutMessage lays out message i of msgs (first is firstNonSystem(msgs))
// at wire index w: its location goes to ml, its parts' to parts, which has
// one entry per part. It returns the next free wire index.
func layoutMessage(msgs []llm.Message, i, first int, d Dialect, w int32, ml *loc, parts []loc) int32 {
	m := msgs[i]
	for j := range parts {
		parts[j] = locDropped
	}
	if i < first && (d == Anthropic || d == Gemini) && m.Role == llm.RoleSystem {
		*ml = loc{msg: TopLevel, sub: -1}
		for j, part := range m.Parts {
			if expressible(part, d) {
				parts[j] = loc{msg: TopLevel, field: fieldParts, sub: int32(j)}
			}
		}
		return w
	}
	switch d {
	case OpenAIChat:
		return layoutChat(m, w, ml, parts)
	case OpenAIResponses:
		return layoutResponses(m, w, ml, parts)
	}
	*ml = loc{msg: w, sub: -1}
	f := fieldContent
	if d == Gemini {
		f = fieldParts
	}
	k := int32(0)
	for j, part := range m.Parts {
		if !expressible(part, d) {
			continue
		}
		if d == Gemini && signatureOnly(part) {
			// The thoughtSignature of the next part: same place.
			if next := nextExpressible(m.Parts, j+1, d); next >= 0 {
				parts[j] = loc{msg: w, field: f, sub: k}
			}
			continue
		}
		parts[j] = loc{msg: w, field: f, sub: k}
		k++
	}
	return w + 1
}

// A lazyMap answers what a Map does for the known dialects without laying
// out every part: Check and Repair need a few paths, and only when they
// report something. It lays out one message per question, from the wire
// index where the message starts (counted up front for the OpenAI
// dialects; i - first for Anthropic and Gemini, which put the leading
// system messages at the top level and every other message in one entry).
// msgs must not change while it is in use.
type lazyMap struct {
	d     Dialect
	msgs  []llm.Message
	first int
	w     []int32 // OpenAI dialects: the wire index message i starts at
}

func newLazyMap(msgs []llm.Message, d Dialect) *lazyMap {
	l := &lazyMap{d: d, msgs: msgs, first: firstNonSystem(msgs)}
	if d == OpenAIChat || d == OpenAIResponses {
		l.w = make([]int32, len(msgs))
		w := int32(0)
		for i, m := range msgs {
			l.w[i] = w
			w += entries(m, d)
		}
	}
	return l
}

// anyEntry reports whether wireLen(msgs, d) > 0, looking no further than
// the first message that takes an entry.
func anyEntry(msgs []llm.Message, d Dialect) bool {
	if d != OpenAIChat && d != OpenAIResponses {
		return wireLen(msgs, d) > 0
	}
	for _, m := range msgs {
		if entries(m, d) > 0 {
			return true
		}
	}
	return false
}

// entries returns how many entries of the body's message array message m
// takes in an OpenAI dialect: what layoutChat and layoutResponses add to
// the wire index.
func entries(m llm.Message, d Dialect) int32 {
	switch m.Role {
	case llm.RoleAssistant:
		if d == OpenAIChat {
			return 1
		}
		n, run := int32(0), false // run: a message item of text and images is open
		for _, p := range m.Parts {
			switch p.(type) {
			case llm.Text, llm.Image:
				if !run {
					n, run = n+1, true
				}
			case llm.ToolCall:
				n, run = n+1, false
			case llm.Reasoning, llm.Opaque:
				if expressible(p, d) {
					n, run = n+1, false // a reasoning item; an item the llm form does not model
				}
			}
		}
		return n
	case llm.RoleTool:
		n, trailing := int32(0), false
		for _, p := range m.Parts {
			if _, ok := p.(llm.ToolResult); ok {
				n++
			} else if expressible(p, d) {
				trailing = true
			}
		}
		if trailing {
			n++
		}
		return n
	}
	return 1
}

// place lays out message i alone and returns its location and that of its
// part j (when j >= 0).
func (l *lazyMap) place(i, j int) (msg, part loc) {
	w := int32(i - l.first)
	if l.w != nil {
		w = l.w[i]
	}
	var small [8]loc
	var parts []loc
	if n := len(l.msgs[i].Parts); n <= len(small) {
		parts = small[:n]
	} else {
		parts = make([]loc, n)
	}
	layoutMessage(l.msgs, i, l.first, l.d, w, &msg, parts)
	if j >= 0 {
		part = parts[j]
	}
	return msg, part
}

// msgLoc is Layout(msgs, d).msgs[i].
func (l *lazyMap) msgLoc(i int) loc { m, _ := l.place(i, -1); return m }

// partLoc is Layout(msgs, d).part(i, j).
func (l *lazyMap) partLoc(i, j int) loc { _, p := l.place(i, j); return p }

// path is Layout(msgs, d).path(x).
func (l *lazyMap) path(x loc) string { return wirePath(l.d, x) }

func nextExpressible(parts []llm.Part, from int, d Dialect) int {
	for j := from; j < len(parts); j++ {
		if expressible(parts[j], d) && !signatureOnly(parts[j]) {
			return j
		}
	}
	return -1
}

// layoutChat lays out one message for Chat Completions, starting at wire
// message w; it returns the next free wire index.
func layoutChat(m llm.Message, w int32, ml *loc, parts []loc) int32 {
	*ml = loc{msg: w, sub: -1}
	switch m.Role {
	case llm.RoleAssistant:
		texts, calls, tk := int32(0), int32(0), int32(0)
		for _, part := range m.Parts {
			if _, ok := part.(llm.Text); ok {
				texts++
			}
		}
		for j, part := range m.Parts {
			switch part.(type) {
			case llm.Text:
				if texts == 1 {
					parts[j] = loc{msg: w, field: fieldContent, sub: -1}
				} else {
					parts[j] = loc{msg: w, field: fieldContent, sub: tk}
				}
				tk++
			case llm.ToolCall:
				parts[j] = loc{msg: w, field: fieldToolCalls, sub: calls}
				calls++
			}
		}
		return w + 1
	case llm.RoleTool:
		results := int32(0)
		var trailing []int
		for j, part := range m.Parts {
			if _, ok := part.(llm.ToolResult); ok {
				parts[j] = loc{msg: w + results, sub: -1}
				results++
			} else if expressible(part, OpenAIChat) {
				trailing = append(trailing, j)
			}
		}
		if results == 0 && len(trailing) == 0 {
			*ml = locDropped
			return w
		}
		if results == 0 {
			*ml = loc{msg: w, sub: -1}
		}
		u := w + results
		for k, j := range trailing {
			parts[j] = contentLoc(u, k, len(trailing), m.Parts[j])
		}
		if len(trailing) > 0 {
			return u + 1
		}
		return u
	default:
		n := 0
		for _, part := range m.Parts {
			if expressible(part, OpenAIChat) {
				n++
			}
		}
		k := 0
		for j, part := range m.Parts {
			if expressible(part, OpenAIChat) {
				parts[j] = contentLoc(w, k, n, part)
				k++
			}
		}
		return w + 1
	}
}

// contentLoc places the k-th of n content parts of wire message w: a lone
// text part is the string content itself.
func contentLoc(w int32, k, n int, part llm.Part) loc {
	if _, ok := part.(llm.Text); ok && n == 1 {
		return loc{msg: w, field: fieldContent, sub: -1}
	}
	return loc{msg: w, field: fieldContent, sub: int32(k)}
}

// layoutResponses lays out one message for the Responses API.
func layoutResponses(m llm.Message, w int32, ml *loc, parts []loc) int32 {
	*ml = locDropped
	switch m.Role {
	case llm.RoleAssistant:
		run := int32(-1) // index inside the current message item, -1: none open
		for j, part := range m.Parts {
			switch part.(type) {
			case llm.Text, llm.Image:
				if run < 0 {
					run = 0
					w++
				}
				parts[j] = loc{msg: w - 1, field: fieldContent, sub: run}
				run++
			case llm.ToolCall:
				parts[j] = loc{msg: w, sub: -1}
				w++
				run = -1
			case llm.Reasoning, llm.Opaque:
				if expressible(part, OpenAIResponses) {
					parts[j] = loc{msg: w, sub: -1}
					w++
					run = -1
				}
			}
			if ml.msg == NotEncoded && parts[j].msg >= 0 {
				*ml = loc{msg: parts[j].msg, sub: -1}
			}
		}
		return w
	case llm.RoleTool:
		k := int32(0)
		trailing := int32(-1)
		for j, part := range m.Parts {
			switch part.(type) {
			case llm.ToolResult:
				parts[j] = loc{msg: w, sub: -1}
				w++
			default:
				if !expressible(part, OpenAIResponses) {
					continue
				}
				if trailing < 0 {
					trailing = w
					w++
				}
				parts[j] = loc{msg: trailing, field: fieldContent, sub: k}
				k++
			}
			if ml.msg == NotEncoded && parts[j].msg >= 0 {
				*ml = loc{msg: parts[j].msg, sub: -1}
			}
		}
		return w
	default:
		*ml = loc{msg: w, sub: -1}
		k := int32(0)
		for j, part := range m.Parts {
			if expressible(part, OpenAIResponses) {
				parts[j] = loc{msg: w, field: fieldContent, sub: k}
				k++
			}
		}
		return w + 1
	}
}

// expressible reports whether dialect d has a place for part p. Reasoning
// and opaque parts travel only to the dialect that produced them.
func expressible(p llm.Part, d Dialect) bool {
	switch p := p.(type) {
	case nil:
		return false
	case llm.Reasoning:
		return d != OpenAIChat && p.Provider == string(d)
	case llm.Opaque:
		return p.Provider == string(d)
	}
	return true
}

// signatureOnly reports whether p is a Gemini thought signature with no
// part of its own.
func signatureOnly(p llm.Part) bool {
	r, ok := p.(llm.Reasoning)
	return ok && r.Provider == string(Gemini) && r.Text == "" && len(r.Data) == 0
}

// emptyPart reports whether p is a Gemini part without any data field: an
// [llm.Opaque] of no kind, which the gemini codec reads to write it back
// (GEM-PARTS-NONEMPTY, in the codec's Wire) but which is not content.
func emptyPart(p llm.Part) bool {
	o, ok := p.(llm.Opaque)
	return ok && o.Kind == "" && o.Provider == string(Gemini)
}

// firstNonSystem returns the index of the first message that is not a
// system message, or len(msgs).
func firstNonSystem(msgs []llm.Message) int {
	for i, m := range msgs {
		if m.Role != llm.RoleSystem {
			return i
		}
	}
	return len(msgs)
}

// wireLen returns Layout(msgs, d).Len() without making the Layout.
func wireLen(msgs []llm.Message, d Dialect) int {
	switch d {
	case Anthropic, Gemini:
		// Leading system messages go to the top level; every other
		// message is one entry.
		return len(msgs) - firstNonSystem(msgs)
	case OpenAIChat, OpenAIResponses:
		n := 0
		for _, m := range msgs {
			n += int(entries(m, d))
		}
		return n
	}
	return Layout(msgs, d).Len()
}

// Len returns the number of entries in the body's message array.
func (l *Map) Len() int { return l.n }

// Message returns the location of message i (for a tool message in the
// OpenAI APIs: its first result).
func (l *Map) Message(i int) Location { return l.location(l.msgs[i]) }

// Part returns the location of part j of message i.
func (l *Map) Part(i, j int) Location { return l.location(l.part(i, j)) }

func (l *Map) part(i, j int) loc { return l.parts[int(l.off[i])+j] }

func (l *Map) location(x loc) Location {
	return Location{Index: int(x.msg), Path: l.path(x)}
}

// arrayName is the body's message array in d.
func arrayName(d Dialect) string {
	switch d {
	case OpenAIResponses:
		return "input"
	case Gemini:
		return "contents"
	}
	return "messages"
}

func (l *Map) path(x loc) string { return wirePath(l.d, x) }

// wirePath is the dotted path of x in a body of dialect d.
func wirePath(d Dialect, x loc) string {
	var b []byte
	switch x.msg {
	case NotEncoded:
		return ""
	case TopLevel:
		if d == Gemini {
			b = append(b, "systemInstruction"...)
			if x.field == fieldParts {
				b = append(b, ".parts."...)
				b = strconv.AppendInt(b, int64(x.sub), 10)
			}
			return string(b)
		}
		return "system"
	}
	b = append(b, arrayName(d)...)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(x.msg), 10)
	switch x.field {
	case fieldContent:
		b = append(b, ".content"...)
	case fieldToolCalls:
		b = append(b, ".tool_calls"...)
	case fieldParts:
		b = append(b, ".parts"...)
	default:
		return string(b)
	}
	if x.sub >= 0 {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(x.sub), 10)
	}
	return string(b)
}
