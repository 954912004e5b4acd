package gemini

// This file holds a small JSON reader and writer. The reader parses a body
// once into a flat tree of nodes that point into the source bytes, so that
// the decoder can look at a block's "type" before its other fields, copy any
// value verbatim, and name the exact dotted path of every error.
// encoding/json can do none of these: it matches keys case-insensitively,
// lets a duplicate key overwrite an earlier one, and reports a type error
// without array indices.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A DecodeError reports where and why a body could not be decoded.
type DecodeError struct {
	// Path is the dotted path of the offending value, such as
	// "contents.2.parts.1.functionResponse.name"; "" for the body as a whole.
	Path string
	// Offset is the byte offset of a syntax error, or -1.
	Offset int
	// Err says what is wrong.
	Err error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("gemini: ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrSyntax is wrapped by every [DecodeError] for a body that is not valid
// JSON.
var ErrSyntax = errors.New("invalid JSON")

type kind uint8

const (
	kindNull kind = iota + 1
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "nothing"
}

// node is one JSON value of a tree. Indexes are int32 to keep nodes small;
// bodies over 2 GiB are refused.
type node struct {
	start, end   int32 // the value: src[start:end]
	kstart, kend int32 // for an object member, its key between the quotes
	parent       int32 // -1 for the root
	pos          int32 // index among the parent's children
	first, next  int32 // first child and next sibling, -1 when none
	n            int32 // number of children
	kind         kind
	esc          bool // a string value with escapes
	kesc         bool // a key with escapes
	ws           bool // a container with white space inside
}

type tree struct {
	src   []byte
	nodes []node
}

// maxDepth bounds nesting, as encoding/json does, so that hostile input
// cannot exhaust the stack.
const maxDepth = 10000

type parser struct {
	t     *tree
	i     int
	depth int
	blame int32 // the node being parsed, for the path of a syntax error
}

// parse parses src, which the tree then aliases.
func parse(src []byte) (*tree, error) {
	if len(src) >= math.MaxInt32 {
		return nil, &DecodeError{Offset: -1, Err: errors.New("body is larger than 2 GiB")}
	}
	p := parser{t: &tree{src: src, nodes: make([]node, 0, len(src)/24+4)}, blame: -1}
	p.space()
	if p.i >= len(src) {
		return nil, p.syntaxf("empty body")
	}
	if _, err := p.value(-1, 0, 0, 0, false); err != nil {
		return nil, err
	}
	p.blame = -1
	p.space()
	if p.i < len(src) {
		return nil, p.syntaxf("unexpected %s after the end of the body", p.describe())
	}
	return p.t, nil
}

func (p *parser) syntaxf(format string, args ...any) error {
	line, col := 1, 1
	for _, c := range p.t.src[:min(p.i, len(p.t.src))] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	path := ""
	if p.blame >= 0 {
		path = p.t.path(p.blame)
	}
	return &DecodeError{Path: path, Offset: p.i, Err: fmt.Errorf("%w at line %d, column %d: %s", ErrSyntax, line, col, fmt.Sprintf(format, args...))}
}

func (p *parser) describe() string {
	if p.i >= len(p.t.src) {
		return "end of input"
	}
	c := p.t.src[p.i]
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	r, _ := utf8.DecodeRune(p.t.src[p.i:])
	return strconv.QuoteRune(r)
}

// space skips white space and reports whether there was any.
func (p *parser) space() bool {
	start := p.i
	for p.i < len(p.t.src) {
		switch p.t.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			continue
		}
		break
	}
	return p.i > start
}

func (p *parser) value(parent, pos, kstart, kend int32, kesc bool) (int32, error) {
	idx := int32(len(p.t.nodes))
	p.t.nodes = append(p.t.nodes, node{start: int32(p.i), kstart: kstart, kend: kend, kesc: kesc,
		parent: parent, pos: pos, first: -1, next: -1})
	p.blame = idx
	var err error
	switch c := p.t.src[p.i]; {
	case c == '{':
		p.t.nodes[idx].kind = kindObject
		err = p.object(idx)
	case c == '[':
		p.t.nodes[idx].kind = kindArray
		err = p.array(idx)
	case c == '"':
		p.t.nodes[idx].kind = kindString
		var esc bool
		esc, err = p.str()
		p.t.nodes[idx].esc = esc
	case c == '-' || (c >= '0' && c <= '9'):
		p.t.nodes[idx].kind = kindNumber
		err = p.number()
	case c == 't':
		p.t.nodes[idx].kind = kindBool
		err = p.literal("true")
	case c == 'f':
		p.t.nodes[idx].kind = kindBool
		err = p.literal("false")
	case c == 'n':
		p.t.nodes[idx].kind = kindNull
		err = p.literal("null")
	default:
		return 0, p.syntaxf("want a value, found %s", p.describe())
	}
	if err != nil {
		return 0, err
	}
	p.t.nodes[idx].end = int32(p.i)
	p.blame = parent
	return idx, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.syntaxf("nested more than %d deep", maxDepth)
	}
	return nil
}

func (p *parser) object(idx int32) error {
	if err := p.enter(); err != nil {
		return err
	}
	p.i++ // {
	ws := p.space()
	prev := int32(-1)
	var count int32
	if p.i < len(p.t.src) && p.t.src[p.i] == '}' {
		p.i++
		p.depth--
		p.t.nodes[idx].ws = ws
		return nil
	}
	for {
		if p.i >= len(p.t.src) || p.t.src[p.i] != '"' {
			return p.syntaxf("want a field name in double quotes, found %s", p.describe())
		}
		ks := p.i + 1
		kesc, err := p.str()
		if err != nil {
			return err
		}
		ke := p.i - 1
		ws = p.space() || ws
		if p.i >= len(p.t.src) || p.t.src[p.i] != ':' {
			return p.syntaxf("want ':' after a field name, found %s", p.describe())
		}
		p.i++
		ws = p.space() || ws
		if p.i >= len(p.t.src) {
			return p.syntaxf("want a value, found end of input")
		}
		child, err := p.value(idx, count, int32(ks), int32(ke), kesc)
		if err != nil {
			return err
		}
		p.link(idx, prev, child)
		ws = p.t.nodes[child].ws || ws
		prev = child
		count++
		ws = p.space() || ws
		if p.i >= len(p.t.src) {
			return p.syntaxf("want ',' or '}' after a field, found end of input")
		}
		switch p.t.src[p.i] {
		case ',':
			p.i++
			ws = p.space() || ws
			continue
		case '}':
			p.i++
			p.depth--
			n := &p.t.nodes[idx]
			n.n, n.ws = count, ws
			return nil
		}
		return p.syntaxf("want ',' or '}' after a field, found %s", p.describe())
	}
}

func (p *parser) array(idx int32) error {
	if err := p.enter(); err != nil {
		return err
	}
	p.i++ // [
	ws := p.space()
	prev := int32(-1)
	var count int32
	if p.i < len(p.t.src) && p.t.src[p.i] == ']' {
		p.i++
		p.depth--
		p.t.nodes[idx].ws = ws
		return nil
	}
	for {
		if p.i >= len(p.t.src) {
			return p.syntaxf("want a value, found end of input")
		}
		child, err := p.value(idx, count, 0, 0, false)
		if err != nil {
			return err
		}
		p.link(idx, prev, child)
		ws = p.t.nodes[child].ws || ws
		prev = child
		count++
		ws = p.space() || ws
		if p.i >= len(p.t.src) {
			return p.syntaxf("want ',' or ']' after an element, found end of input")
		}
		switch p.t.src[p.i] {
		case ',':
			p.i++
			ws = p.space() || ws
			continue
		case ']':
			p.i++
			p.depth--
			n := &p.t.nodes[idx]
			n.n, n.ws = count, ws
			return nil
		}
		return p.syntaxf("want ',' or ']' after an element, found %s", p.describe())
	}
}

func (p *parser) link(parent, prev, child int32) {
	if prev < 0 {
		p.t.nodes[parent].first = child
	} else {
		p.t.nodes[prev].next = child
	}
}

// str scans a string starting at its opening quote and reports whether it
// has escapes.
func (p *parser) str() (bool, error) {
	src := p.t.src
	p.i++
	esc := false
	for p.i < len(src) {
		c := src[p.i]
		switch {
		case c == '"':
			p.i++
			return esc, nil
		case c == '\\':
			esc = true
			if p.i+1 >= len(src) {
				p.i++
				return false, p.syntaxf("unterminated string")
			}
			switch src[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(src) {
					p.i = len(src)
					return false, p.syntaxf("unterminated string")
				}
				for _, h := range src[p.i+2 : p.i+6] {
					if !isHex(h) {
						p.i += 2
						return false, p.syntaxf("invalid \\u escape in a string")
					}
				}
				p.i += 6
			default:
				p.i++
				return false, p.syntaxf("invalid escape %s in a string", p.describe())
			}
		case c < 0x20:
			return false, p.syntaxf("control character %#02x in a string (escape it)", c)
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, size := utf8.DecodeRune(src[p.i:])
			if r == utf8.RuneError && size == 1 {
				return false, p.syntaxf("invalid UTF-8 in a string")
			}
			p.i += size
		}
	}
	return false, p.syntaxf("unterminated string")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (p *parser) number() error {
	src := p.t.src
	digits := func() int {
		start := p.i
		for p.i < len(src) && src[p.i] >= '0' && src[p.i] <= '9' {
			p.i++
		}
		return p.i - start
	}
	if src[p.i] == '-' {
		p.i++
	}
	if p.i < len(src) && src[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return p.syntaxf("want a digit in a number, found %s", p.describe())
	}
	if p.i < len(src) && src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.syntaxf("want a digit after the decimal point, found %s", p.describe())
		}
	}
	if p.i < len(src) && (src[p.i] == 'e' || src[p.i] == 'E') {
		p.i++
		if p.i < len(src) && (src[p.i] == '+' || src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.syntaxf("want a digit in the exponent, found %s", p.describe())
		}
	}
	return nil
}

func (p *parser) literal(lit string) error {
	if !bytes.HasPrefix(p.t.src[p.i:], []byte(lit)) {
		return p.syntaxf("want %s, found %s", lit, p.describe())
	}
	p.i += len(lit)
	return nil
}

// path returns the dotted path of node idx.
func (t *tree) path(idx int32) string {
	var segs []string
	for idx >= 0 {
		n := &t.nodes[idx]
		if n.parent < 0 {
			break
		}
		if t.nodes[n.parent].kind == kindObject {
			segs = append(segs, t.key(idx))
		} else {
			segs = append(segs, strconv.Itoa(int(n.pos)))
		}
		idx = n.parent
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	return strings.Join(segs, ".")
}

// key returns the key of member idx.
func (t *tree) key(idx int32) string {
	n := &t.nodes[idx]
	raw := t.src[n.kstart:n.kend]
	if !n.kesc {
		return string(raw)
	}
	return unescape(raw)
}

// keyIs reports whether member idx has key k, without allocating.
func (t *tree) keyIs(idx int32, k string) bool {
	n := &t.nodes[idx]
	if !n.kesc {
		return string(t.src[n.kstart:n.kend]) == k
	}
	return unescape(t.src[n.kstart:n.kend]) == k
}

// str returns the value of string node idx.
func (t *tree) str(idx int32) string {
	n := &t.nodes[idx]
	raw := t.src[n.start+1 : n.end-1]
	if !n.esc {
		return string(raw)
	}
	return unescape(raw)
}

// raw returns the JSON of node idx without insignificant white space. It
// aliases the source when it can.
func (t *tree) raw(idx int32) []byte {
	n := &t.nodes[idx]
	b := t.src[n.start:n.end]
	if !n.ws {
		return b
	}
	return appendCompact(make([]byte, 0, len(b)), b)
}

// appendRaw appends the compact JSON of node idx to dst.
func (t *tree) appendRaw(dst []byte, idx int32) []byte {
	n := &t.nodes[idx]
	b := t.src[n.start:n.end]
	if !n.ws {
		return append(dst, b...)
	}
	return appendCompact(dst, b)
}

// appendCompact appends valid JSON b to dst without white space outside
// strings.
func appendCompact(dst, b []byte) []byte {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if in {
			dst = append(dst, c)
			switch c {
			case '\\':
				i++
				if i < len(b) {
					dst = append(dst, b[i])
				}
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			in = true
		}
		dst = append(dst, c)
	}
	return dst
}

// unescape decodes the contents of a JSON string that the parser has
// validated.
func unescape(raw []byte) string {
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(raw[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) {
				d := utf8.RuneError
				if i+7 <= len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if d2 := utf16.DecodeRune(r, hex4(raw[i+3:i+7])); d2 != utf8.RuneError {
						d = d2
						i += 6
					}
				}
				r = d
			}
			b = utf8.AppendRune(b, r)
		default: // '"', '\\', '/'
			b = append(b, raw[i])
		}
	}
	return string(b)
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// isObjectJSON reports whether b, trimmed of white space, is one valid JSON
// object, and returns it trimmed.
func isObjectJSON(b []byte) ([]byte, bool) {
	b = bytes.Trim(b, " \t\r\n")
	if len(b) < 2 || b[0] != '{' {
		return b, false
	}
	t, err := parse(b)
	if err != nil || t.nodes[0].kind != kindObject {
		return b, false
	}
	return b, true
}
