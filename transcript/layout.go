package transcript

import (
	"strconv"

	"github.com/toolwire/toolwire/llm"
)

// A Place says where in a provider's request body a message or part goes.
type Place uint8

// The places of a [Location].
const (
	// InArray: in the body's message array ("messages", "input" or
	// "contents"), at the Location's Index.
	InArray Place = iota
	// TopLevel: outside the message array, in the field that takes the
	// system prompt: Anthropic's "system", Gemini's "systemInstruction".
	TopLevel
	// NotEncoded: nowhere; the dialect cannot express it, and the encoder
	// leaves it out (with a warning): reasoning from another provider, a
	// tool message without results in the OpenAI APIs.
	NotEncoded
)

// A Location is where a message or part of an llm transcript sits in a
// provider's request body.
type Location struct {
	Place Place
	// Index is the index in the body's message array when Place is
	// InArray, else 0.
	Index int
	// Path is the dotted path in the body ("messages.4.content.0"); ""
	// when Place is NotEncoded.
	Path string
}

// A Map locates every message and part of an llm transcript in a
// provider's request body, following docs/dialect-mapping.md. Build one with
// [Layout]. It holds the messages it was made from, which must not change
// while it is in use; it is safe for concurrent use.
type Map struct {
	d     *dialect
	msgs  []llm.Message
	first int   // the first message that is not a system message
	start []int // the array entry message i starts at (nil: see entry); place finds the rest
	n     int   // entries in the body's message array
}

// loc is where a message or part goes: the place and array entry, the
// member of the entry that holds a part (none: the entry itself), and the
// index in that member, or whole.
type loc struct {
	place Place
	entry int
	field member
	sub   int
}

// A member names the member of an entry that holds parts.
type member uint8

const (
	memberNone member = iota
	memberContent
	memberToolCalls
	memberParts
)

var memberNames = [...]string{memberContent: "content", memberToolCalls: "tool_calls", memberParts: "parts"}

// whole is the sub of a part that is its member's whole value (a lone
// text written as a string) or the whole entry.
const whole = -1

var dropped = loc{place: NotEncoded, sub: whole}

func entryLoc(w int) loc { return loc{entry: w, sub: whole} }

// Layout returns where each message and part of msgs lands in a request
// body of dialect d. It runs in time linear in the number of parts, and
// locates a part in time linear in the number of parts of its message. An
// unknown dialect lays messages out one per entry, in "messages".
func Layout(msgs []llm.Message, d Dialect) *Map {
	rules := rulesOf(d)
	if rules == nil {
		rules = &dialect{name: d, array: "messages", reasoning: true, member: memberContent}
	}
	return newMap(msgs, rules)
}

// newMap is Layout for the dialect with rules d.
func newMap(msgs []llm.Message, d *dialect) *Map {
	l := &Map{d: d, msgs: msgs, first: firstNonSystem(msgs)}
	if d.place == nil {
		// The default layout gives every message an entry of its own,
		// but the system messages before the first other one where the
		// dialect has a field for them: entry needs no table.
		l.n = len(msgs)
		if d.system != "" {
			l.n -= l.first
		}
		return l
	}
	l.start = make([]int, len(msgs))
	var parts []loc // where the dialect's place puts the parts, which it needs to number the entries
	w := 0
	for i, m := range msgs {
		l.start[i] = w
		if cap(parts) < len(m.Parts) {
			parts = make([]loc, len(m.Parts))
		}
		_, w = l.place(i, parts[:len(m.Parts)])
	}
	l.n = w
	return l
}

// place lays out message i at its start entry, the parts into parts
// (when not nil), and returns its location and the next free entry.
func (l *Map) place(i int, parts []loc) (loc, int) {
	m := l.msgs[i]
	for j := range parts {
		parts[j] = dropped
	}
	w := l.entry(i)
	if i < l.first && l.d.system != "" {
		for j := range parts {
			if expressible(m.Parts[j], l.d) {
				parts[j] = loc{place: TopLevel, sub: whole}
				if l.d.systemParts {
					parts[j] = loc{place: TopLevel, field: memberParts, sub: j}
				}
			}
		}
		return loc{place: TopLevel, sub: whole}, w
	}
	if l.d.place != nil {
		return l.d.place(l.d, m, w, parts)
	}
	// The default layout: an entry per message, its parts in the member.
	k := 0
	for j := range parts {
		p := m.Parts[j]
		if !expressible(p, l.d) {
			continue
		}
		if signatureOnly(p) {
			// The thoughtSignature of the next part: same place.
			if next := nextExpressible(m.Parts, j+1, l.d); next >= 0 {
				parts[j] = loc{entry: w, field: l.d.member, sub: k}
			}
			continue
		}
		parts[j] = loc{entry: w, field: l.d.member, sub: k}
		k++
	}
	return entryLoc(w), w + 1
}

// entry returns the array entry message i starts at.
func (l *Map) entry(i int) int {
	switch {
	case l.start != nil:
		return l.start[i]
	case l.d.system == "":
		return i
	case i < l.first:
		return 0 // in the system field
	}
	return i - l.first
}

// msg returns the location of message i. It lays the message out again
// from its start entry: only the locations asked for are kept, and few
// are (the paths of violations and changes).
func (l *Map) msg(i int) loc {
	var parts []loc // the default layout needs no parts to place a message
	if l.d.place != nil {
		parts = make([]loc, len(l.msgs[i].Parts))
	}
	x, _ := l.place(i, parts)
	return x
}

// part returns the location of part j of message i.
func (l *Map) part(i, j int) loc {
	parts := make([]loc, len(l.msgs[i].Parts))
	l.place(i, parts)
	return parts[j]
}

// Len returns the number of entries in the body's message array.
func (l *Map) Len() int { return l.n }

// Message returns the location of message i (for a tool message in the
// OpenAI APIs: its first result).
func (l *Map) Message(i int) Location { return l.location(l.msg(i)) }

// Part returns the location of part j of message i.
func (l *Map) Part(i, j int) Location { return l.location(l.part(i, j)) }

func (l *Map) location(x loc) Location {
	out := Location{Place: x.place, Path: l.path(x)}
	if x.place == InArray {
		out.Index = x.entry
	}
	return out
}

// path is the dotted path of x in the body.
func (l *Map) path(x loc) string {
	var b []byte
	switch x.place {
	case NotEncoded:
		return ""
	case TopLevel:
		b = append(b, l.d.system...)
	default:
		b = append(b, l.d.array...)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(x.entry), 10)
	}
	if x.field != memberNone {
		b = append(b, '.')
		b = append(b, memberNames[x.field]...)
		if x.sub != whole {
			b = append(b, '.')
			b = strconv.AppendInt(b, int64(x.sub), 10)
		}
	}
	return string(b)
}

func nextExpressible(parts []llm.Part, from int, d *dialect) int {
	for j := from; j < len(parts); j++ {
		if expressible(parts[j], d) && !signatureOnly(parts[j]) {
			return j
		}
	}
	return -1
}

// expressible reports whether dialect d has a place for part p. Reasoning
// and opaque parts travel only to the dialect that produced them.
func expressible(p llm.Part, d *dialect) bool {
	switch p := p.(type) {
	case nil:
		return false
	case llm.Reasoning:
		return d.reasoning && p.Provider == string(d.name)
	case llm.Opaque:
		return p.Provider == string(d.name)
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
