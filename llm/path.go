package llm

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Path locates a value in a JSON document: the object member names and
// array indices that lead to it from the root. Every toolwire decoder
// names the value it could not read by a Path, and each renders it in its
// own style ([PathStyle]): a provider's body paths as that provider's
// errors do ("messages.4.content.0"), the persistence format's as
// "messages[4].parts[0]".
//
// The zero Path is the document itself. A Path is a value: Key and Index
// return a new Path and never change the one they are called on.
type Path struct {
	steps []pathStep
}

type pathStep struct {
	key   string
	index int // -1 for an object member
}

// Key returns the path of member name of the object at p.
func (p Path) Key(name string) Path { return p.with(pathStep{key: name, index: -1}) }

// Index returns the path of element i of the array at p.
func (p Path) Index(i int) Path { return p.with(pathStep{index: i}) }

func (p Path) with(s pathStep) Path {
	steps := make([]pathStep, len(p.steps)+1)
	copy(steps, p.steps)
	steps[len(p.steps)] = s
	return Path{steps: steps}
}

// Join returns the path of q, a path relative to the value at p.
func (p Path) Join(q Path) Path {
	if len(q.steps) == 0 {
		return p
	}
	steps := make([]pathStep, 0, len(p.steps)+len(q.steps))
	return Path{steps: append(append(steps, p.steps...), q.steps...)}
}

// Len returns the number of steps from the root.
func (p Path) Len() int { return len(p.steps) }

// Step returns step i: an object member's name, or an array index (with
// isIndex set).
func (p Path) Step(i int) (name string, index int, isIndex bool) {
	s := p.steps[i]
	return s.key, s.index, s.index >= 0
}

// PathStyle is how a [Path] is written.
type PathStyle uint8

// The path styles.
const (
	// Dotted joins every step with a dot: "messages.4.content.0". It is
	// how toolwire names a value in a provider request body (transcript
	// violations, codec errors), as the Anthropic and OpenAI APIs do.
	Dotted PathStyle = iota
	// Indexed writes array indices in brackets: "messages[4].parts[0]",
	// as the persistence format's errors and OpenAI's error texts
	// ("messages[1].content[0].type") do.
	Indexed
)

// String returns p in the [Dotted] style.
func (p Path) String() string { return p.Format(Dotted) }

// Format writes p in style s; "" for the document itself.
func (p Path) Format(s PathStyle) string {
	var b strings.Builder
	for i, st := range p.steps {
		switch {
		case st.index >= 0 && s == Indexed:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(st.index))
			b.WriteByte(']')
			continue
		case i > 0:
			b.WriteByte('.')
		}
		if st.index >= 0 {
			b.WriteString(strconv.Itoa(st.index))
		} else {
			b.WriteString(st.key)
		}
	}
	return b.String()
}

// Short writes p in style s as a message should show it: a path of more
// than 12 steps as its first and last 4 with the depth ("0.0.0.0.….0.0.0.0
// (100000 levels deep)"), a member name longer than 40 bytes cut, so that
// the error of a deeply nested or hostile document stays one short line.
func (p Path) Short(s PathStyle) string {
	const edge, maxKey = 4, 40
	cut := func(steps []pathStep) string {
		q := Path{steps: make([]pathStep, len(steps))}
		for i, st := range steps {
			if st.index < 0 && len(st.key) > maxKey {
				k := st.key[:maxKey]
				for len(k) > 0 && !utf8.ValidString(k) {
					k = k[:len(k)-1] // not in the middle of a character
				}
				st.key = k + "…"
			}
			q.steps[i] = st
		}
		return q.Format(s)
	}
	n := len(p.steps)
	if n <= 3*edge {
		return cut(p.steps)
	}
	head, tail := cut(p.steps[:edge]), cut(p.steps[n-edge:])
	sep := "…"
	if !strings.HasPrefix(tail, "[") {
		sep = ".…."
	}
	return head + sep + tail + " (" + strconv.Itoa(n) + " levels deep)"
}

// ParsePath reads a path written in the [Dotted] style: each step that is
// a decimal number is an array index, every other one a member name. A
// member whose name is a number or holds a dot cannot be written in that
// style; its path comes back different.
func ParsePath(dotted string) Path {
	var p Path
	if dotted == "" {
		return p
	}
	for _, s := range strings.Split(dotted, ".") {
		if i, err := strconv.Atoi(s); err == nil && i >= 0 && strconv.Itoa(i) == s {
			p = p.Index(i)
		} else {
			p = p.Key(s)
		}
	}
	return p
}
