// Package jsontree parses JSON strictly into a flat, ordered, read-only tree
// whose nodes point into the source bytes.
//
// It exists for the codecs and the linter, which need what encoding/json
// does not give them: objects in their original order with every member
// kept (encoding/json matches keys case-insensitively and lets a duplicate
// key overwrite an earlier one), the exact bytes of every value (so that a
// value nobody touched is written back verbatim), the dotted path of every
// value for error messages ("messages.3.tool_calls.0.id"), and syntax errors
// with a byte offset, a line and a column.
//
// [Parse] accepts exactly the JSON of RFC 8259: one value, optionally
// surrounded by white space; no trailing commas, comments, single quotes,
// NaN or leading zeros. Strings must be valid UTF-8 unless
// [Options].AllowInvalidUTF8 is set (encoding/json accepts invalid UTF-8 and
// replaces it; RFC 8259 forbids it). Nesting is bounded by
// [Options].MaxDepth. Duplicate keys are kept; [Tree.Duplicate] and
// [Tree.FirstDuplicate] find them for callers that refuse them.
//
// A [Tree] is a slice of nodes in document order; a [Node] is an index into
// it. Navigating never allocates: [Tree.First] and [Tree.Next] walk
// children, [Tree.Get] finds a member by key, [Tree.Raw] returns a value's
// bytes. Decoding a string ([Tree.Str], [Tree.Key]) allocates only the
// result, and nothing at all in [Tree.KeyIs]. [Tree.Value] decodes a value
// into the maps, slices, json.Numbers, strings and bools that encoding/json
// would give an any. A Tree is safe for concurrent reads; it aliases the
// source, which must not change while it is in use.
package jsontree

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

// Kind is the JSON type of a value.
type Kind uint8

// The kinds of JSON value. The zero Kind is no value at all.
const (
	Null Kind = iota + 1
	Bool
	Number
	String
	Array
	Object
)

// String returns the kind's name as JSON Schema spells it: "null",
// "boolean", "number", "string", "array" or "object".
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "nothing"
}

// Phrase returns the kind as error messages name it: "null", "a boolean",
// "a number", "a string", "an array", "an object", or "nothing" for the
// zero Kind. It reads well after "want a string, got ".
func (k Kind) Phrase() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	case Object:
		return "an object"
	}
	return "nothing"
}

// DefaultMaxDepth is the nesting limit when [Options].MaxDepth is zero:
// that of encoding/json, so that Parse accepts what [encoding/json.Valid]
// accepts.
const DefaultMaxDepth = 10000

// Options adjusts [Parse]. A nil *Options means the defaults.
type Options struct {
	// MaxDepth bounds how deeply arrays and objects nest, so that hostile
	// input cannot exhaust the stack; 0 means [DefaultMaxDepth]. The
	// top-level array or object is at depth 1.
	MaxDepth int
	// AllowInvalidUTF8 accepts strings that are not valid UTF-8, as
	// encoding/json does. [Tree.Str] and [Tree.Key] return their bytes as
	// they are. By default such a string is a syntax error.
	AllowInvalidUTF8 bool
}

// A SyntaxError reports input that is not valid JSON: where, and what was
// expected there.
type SyntaxError struct {
	// Offset is the byte offset of the problem in the input.
	Offset int
	// Line and Column locate Offset, both from 1. Column counts bytes.
	Line, Column int
	// Path is the dotted path of the innermost value being read when the
	// problem was found ("messages.3.content"), "" for the top level.
	Path string
	// Msg says what is wrong, such as "want ',' or ']' after an array
	// element, found end of input".
	Msg string
	// depth is set for the nesting limit.
	depth bool
}

// Error returns "PATH: invalid JSON at line L, column C (byte B): MSG",
// without "PATH: " at the top level.
func (e *SyntaxError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "invalid JSON at line %d, column %d (byte %d): %s", e.Line, e.Column, e.Offset, e.Msg)
	return b.String()
}

// TooDeep reports whether the error is the nesting limit of
// [Options].MaxDepth rather than malformed JSON.
func (e *SyntaxError) TooDeep() bool { return e.depth }

// ErrTooLarge is returned by [Parse] for input of 2 GiB or more: node
// offsets are 32-bit to keep the tree small.
var ErrTooLarge = errors.New("jsontree: input of 2 GiB or more")

// Node is a value of a [Tree]: an index into its nodes. The root is 0;
// [None] stands for no node.
type Node int32

// None is the Node that [Tree.Get], [Tree.First], [Tree.Next],
// [Tree.Parent] and [Tree.Duplicate] return when there is no such node.
const None Node = -1

// node is one JSON value. Offsets are int32 to keep nodes small.
type node struct {
	start, end   int32 // the value: src[start:end]
	kstart, kend int32 // for an object member, its key between the quotes
	parent       Node  // None for the root
	pos          int32 // index among the parent's children
	first, next  Node  // first child and next sibling
	n            int32 // number of children
	kind         Kind
	esc          bool // a string value with escapes
	kesc         bool // a key with escapes
	ws           bool // a container with white space inside
}

// A Tree is a parsed JSON document. The zero Tree is not valid; use
// [Parse].
type Tree struct {
	src     []byte
	nodes   []node
	anyUTF8 bool // parsed with Options.AllowInvalidUTF8
	// small holds the nodes of a small document (tool arguments, most
	// results), so that parsing one allocates once.
	small [8]node
}

// Parse parses src, which must hold exactly one JSON value. The tree
// aliases src. Errors are [*SyntaxError]s, or [ErrTooLarge].
func Parse(src []byte, opts *Options) (*Tree, error) {
	if len(src) >= math.MaxInt32 {
		return nil, ErrTooLarge
	}
	// Every value but the root follows a '[', '{' or ',': their count
	// bounds the number of nodes (commas in strings only make it larger),
	// so the nodes are allocated once, or not at all when they fit in the
	// Tree itself. In a large document, where strings may hold most of
	// the commas (a tool result holding JSON), they are counted outside
	// strings only.
	size := 1 + bytes.Count(src, []byte{','}) + bytes.Count(src, []byte{'['}) + bytes.Count(src, []byte{'{'})
	if len(src) > 1<<16 {
		size = countNodes(src)
	}
	p := parser{t: &Tree{src: src}, blame: None, maxDepth: DefaultMaxDepth}
	if size <= len(p.t.small) {
		p.t.nodes = p.t.small[:0:size]
	} else {
		p.t.nodes = make([]node, 0, size)
	}
	if opts != nil {
		if opts.MaxDepth > 0 {
			p.maxDepth = opts.MaxDepth
		}
		p.t.anyUTF8 = opts.AllowInvalidUTF8
	}
	p.space()
	if p.i >= len(src) {
		return nil, p.syntaxf("empty input")
	}
	if err := p.value(None, 0, 0, 0, false); err != nil {
		return nil, err
	}
	p.blame = None
	p.space()
	if p.i < len(src) {
		return nil, p.syntaxf("unexpected data after the top-level value: %s", p.found())
	}
	return p.t, nil
}

// countNodes returns how many values src holds if it is valid JSON: one
// more than the '[', '{' and ',' outside strings. Strings are skipped with
// IndexByte, fast for the long ones.
func countNodes(src []byte) int {
	n := 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ',', '[', '{':
			n++
		case '"':
			for {
				k := bytes.IndexByte(src[i+1:], '"')
				if k < 0 {
					return n // unterminated: Parse reports it
				}
				i += 1 + k
				bs := 0 // backslashes right before the quote
				for j := i - 1; src[j] == '\\'; j-- {
					bs++
				}
				if bs%2 == 0 {
					break
				}
			}
		}
	}
	return n
}

type parser struct {
	t        *Tree
	i        int
	depth    int
	maxDepth int
	blame    Node // the node being parsed, for the path of a syntax error
	tooDeep  bool
}

func (p *parser) syntaxf(format string, args ...any) error {
	off := min(p.i, len(p.t.src))
	line, col := position(p.t.src, off)
	path := ""
	if p.blame >= 0 {
		path = p.t.Path(p.blame)
	}
	return &SyntaxError{Offset: off, Line: line, Column: col, Path: path, Msg: fmt.Sprintf(format, args...), depth: p.tooDeep}
}

// position returns the line and column (from 1, in bytes) of offset off.
func position(src []byte, off int) (line, col int) {
	before := src[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	return line, off - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// found describes the input at the current offset for a syntax error: a
// quoted character, "byte 0x.." for a control character or invalid UTF-8,
// or "end of input".
func (p *parser) found() string {
	src := p.t.src
	if p.i >= len(src) {
		return "end of input"
	}
	c := src[p.i]
	if c < utf8.RuneSelf {
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf("byte 0x%02x", c)
		}
		return strconv.QuoteRune(rune(c))
	}
	r, size := utf8.DecodeRune(src[p.i:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return strconv.QuoteRune(r)
}

// space skips white space and reports whether there was any.
func (p *parser) space() bool {
	start := p.i
	src := p.t.src
	for p.i < len(src) {
		switch src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			continue
		}
		break
	}
	return p.i > start
}

// value parses the value at p.i, which is not at the end of the input.
func (p *parser) value(parent Node, pos, kstart, kend int32, kesc bool) error {
	idx := Node(len(p.t.nodes))
	p.t.nodes = append(p.t.nodes, node{start: int32(p.i), kstart: kstart, kend: kend, kesc: kesc,
		parent: parent, pos: pos, first: None, next: None})
	p.blame = idx
	var err error
	switch c := p.t.src[p.i]; {
	case c == '"':
		p.t.nodes[idx].kind = String
		var esc bool
		esc, err = p.str()
		p.t.nodes[idx].esc = esc
	case c == '{':
		p.t.nodes[idx].kind = Object
		if err = p.enter(); err == nil {
			err = p.members(idx, '}', "an object value")
		}
	case c == '[':
		p.t.nodes[idx].kind = Array
		if err = p.enter(); err == nil {
			err = p.members(idx, ']', "an array element")
		}
	case c == '-' || (c >= '0' && c <= '9'):
		p.t.nodes[idx].kind = Number
		err = p.number()
	case c == 't':
		p.t.nodes[idx].kind = Bool
		err = p.literal("true")
	case c == 'f':
		p.t.nodes[idx].kind = Bool
		err = p.literal("false")
	case c == 'n':
		p.t.nodes[idx].kind = Null
		err = p.literal("null")
	default:
		return p.syntaxf("want a value, found %s", p.found())
	}
	if err != nil {
		return err
	}
	p.t.nodes[idx].end = int32(p.i)
	p.blame = parent
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > p.maxDepth {
		p.tooDeep = true
		return p.syntaxf("nesting deeper than %d", p.maxDepth)
	}
	return nil
}

// members parses the members of the object (closing '}') or array
// (closing ']') at idx: for an object each a key, ':' and a value, for an
// array each a value; after names a member in errors ("an object value").
func (p *parser) members(idx Node, closing byte, after string) error {
	src := p.t.src
	empty, ws := p.open(closing)
	if empty {
		p.t.nodes[idx].ws = ws
		return nil
	}
	prev := None
	var count int32
	for {
		var ks, ke int32
		var kesc bool
		if closing == '}' {
			var err error
			if ks, ke, kesc, ws, err = p.key(ws); err != nil {
				return err
			}
		}
		if p.i >= len(src) {
			return p.syntaxf("want a value, found end of input")
		}
		child := Node(len(p.t.nodes))
		if err := p.value(idx, count, ks, ke, kesc); err != nil {
			return err
		}
		p.link(idx, prev, child)
		ws = ws || p.t.nodes[child].ws
		prev = child
		count++
		var done bool
		var err error
		if done, ws, err = p.next(closing, after, ws); err != nil || done {
			n := &p.t.nodes[idx]
			n.n, n.ws = count, ws
			return err
		}
	}
}

// key moves past an object key, the ':' after it and the white space
// around it, and returns the bounds of the key's text inside its quotes,
// whether it has escapes, and ws or whether it met white space.
func (p *parser) key(ws bool) (start, end int32, esc, _ bool, err error) {
	src := p.t.src
	if p.i >= len(src) || src[p.i] != '"' {
		return 0, 0, false, ws, p.syntaxf("want an object key, found %s", p.found())
	}
	ks := p.i + 1
	if esc, err = p.str(); err != nil {
		return 0, 0, false, ws, err
	}
	ke := p.i - 1
	ws = p.space() || ws
	if p.i >= len(src) || src[p.i] != ':' {
		return 0, 0, false, ws, p.syntaxf("want ':' after an object key, found %s", p.found())
	}
	p.i++
	ws = p.space() || ws
	return int32(ks), int32(ke), esc, ws, nil
}

// open moves past the opening byte of the array or object at p.i, and past
// its closing byte too if it is empty (leaving it, for the depth). ws reports white space after the opening
// byte.
func (p *parser) open(closing byte) (empty, ws bool) {
	p.i++
	ws = p.space()
	if p.i < len(p.t.src) && p.t.src[p.i] == closing {
		p.i++
		p.depth--
		return true, ws
	}
	return false, ws
}

// next moves past the ',' or the closing byte that follows an element or
// member; done reports the closing byte. ws accumulates white space seen.
func (p *parser) next(closing byte, after string, ws bool) (done, _ bool, err error) {
	ws = p.space() || ws
	if p.i < len(p.t.src) {
		switch p.t.src[p.i] {
		case ',':
			p.i++
			return false, p.space() || ws, nil
		case closing:
			p.i++
			p.depth--
			return true, ws, nil
		}
	}
	return false, ws, p.syntaxf("want ',' or '%c' after %s, found %s", closing, after, p.found())
}

func (p *parser) link(parent, prev, child Node) {
	if prev < 0 {
		p.t.nodes[parent].first = child
	} else {
		p.t.nodes[prev].next = child
	}
}

// str scans a string from its opening quote to just past its closing one,
// and reports whether it has escapes.
func (p *parser) str() (bool, error) {
	src := p.t.src
	i := p.i + 1
	esc := false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"':
			p.i = i + 1
			return esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(src) {
				p.i = len(src)
				return false, p.syntaxf("unterminated string")
			}
			switch e := src[i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(src) {
						p.i = len(src)
						return false, p.syntaxf("unterminated string")
					}
					if !isHex(src[k]) {
						p.i = i
						return false, p.syntaxf("invalid \\u escape in a string")
					}
				}
				i += 6
			default:
				p.i = i + 1
				if e < 0x20 || e >= utf8.RuneSelf {
					return false, p.syntaxf("invalid escape in a string: backslash followed by %s", p.found())
				}
				return false, p.syntaxf("invalid escape \\%c in a string", e)
			}
		case c < 0x20:
			p.i = i
			return false, p.syntaxf("control character %s in a string (escape it)", p.found())
		case c < utf8.RuneSelf:
			i++
		case p.t.anyUTF8:
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				p.i = i
				return false, p.syntaxf("invalid UTF-8 in a string")
			}
			i += size
		}
	}
	p.i = len(src)
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
		return p.syntaxf("want a digit in a number, found %s", p.found())
	}
	if p.i < len(src) && src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.syntaxf("want a digit after the decimal point, found %s", p.found())
		}
	}
	if p.i < len(src) && (src[p.i] == 'e' || src[p.i] == 'E') {
		p.i++
		if p.i < len(src) && (src[p.i] == '+' || src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.syntaxf("want a digit in the exponent, found %s", p.found())
		}
	}
	return nil
}

// literal reads true, false or null, and on a mismatch points at the first
// byte that differs.
func (p *parser) literal(lit string) error {
	src := p.t.src
	for k := 0; k < len(lit); k++ {
		if p.i >= len(src) || src[p.i] != lit[k] {
			return p.syntaxf("want %s, found %s", lit, p.found())
		}
		p.i++
	}
	return nil
}

// Source returns the bytes the tree was parsed from.
func (t *Tree) Source() []byte { return t.src }

// Root returns the top-level value.
func (t *Tree) Root() Node { return 0 }

// Kind returns the kind of n.
func (t *Tree) Kind(n Node) Kind { return t.nodes[n].kind }

// Raw returns the bytes of n exactly as they are in the source, white
// space included. It aliases the source, with its capacity limited so that
// appending to it copies.
func (t *Tree) Raw(n Node) []byte {
	nd := &t.nodes[n]
	return t.src[nd.start:nd.end:nd.end]
}

// Offset returns the byte offset in the source where n starts.
func (t *Tree) Offset(n Node) int { return int(t.nodes[n].start) }

// End returns the byte offset in the source just past n.
func (t *Tree) End(n Node) int { return int(t.nodes[n].end) }

// Parent returns the array or object that holds n, or [None] for the root.
func (t *Tree) Parent(n Node) Node { return t.nodes[n].parent }

// Index returns the position of n among its parent's elements or members,
// from 0.
func (t *Tree) Index(n Node) int { return int(t.nodes[n].pos) }

// Len returns the number of elements of an array or members of an object,
// 0 for any other value.
func (t *Tree) Len(n Node) int { return int(t.nodes[n].n) }

// First returns the first element or member of n, or [None].
func (t *Tree) First(n Node) Node { return t.nodes[n].first }

// Next returns the element or member after n in its parent, or [None].
func (t *Tree) Next(n Node) Node { return t.nodes[n].next }

// IsTrue reports whether n is the literal true.
func (t *Tree) IsTrue(n Node) bool {
	nd := &t.nodes[n]
	return nd.kind == Bool && t.src[nd.start] == 't'
}

// Str returns the value of string n, unescaped. A lone surrogate escape
// becomes U+FFFD, as in encoding/json.
func (t *Tree) Str(n Node) string {
	nd := &t.nodes[n]
	return t.text(nd.start+1, nd.end-1, nd.esc)
}

// Key returns the key of member n, unescaped, or "" if n is not an object
// member.
func (t *Tree) Key(n Node) string {
	nd := &t.nodes[n]
	return t.text(nd.kstart, nd.kend, nd.kesc)
}

// text returns the contents of the string or key between source offsets
// start and end, unescaped if esc.
func (t *Tree) text(start, end int32, esc bool) string {
	raw := t.src[start:end]
	if !esc {
		return string(raw)
	}
	return unescape(raw)
}

// RawKey returns the key of member n as it is in the source, between the
// quotes, and whether it has escapes. It aliases the source.
func (t *Tree) RawKey(n Node) (raw []byte, escaped bool) {
	nd := &t.nodes[n]
	return t.src[nd.kstart:nd.kend:nd.kend], nd.kesc
}

// KeyOffset returns the byte offset of the opening quote of member n's
// key.
func (t *Tree) KeyOffset(n Node) int { return int(t.nodes[n].kstart) - 1 }

// KeyIs reports whether member n has key k. It does not allocate unless
// the key has escapes.
func (t *Tree) KeyIs(n Node, k string) bool {
	nd := &t.nodes[n]
	raw := t.src[nd.kstart:nd.kend]
	if !nd.kesc {
		return string(raw) == k
	}
	return unescape(raw) == k
}

// Get returns the first member of object obj with key k, or [None]. It
// returns None when obj is not an object.
func (t *Tree) Get(obj Node, k string) Node {
	if t.nodes[obj].kind != Object {
		return None
	}
	for c := t.nodes[obj].first; c >= 0; c = t.nodes[c].next {
		if t.KeyIs(c, k) {
			return c
		}
	}
	return None
}

// sameKey reports whether members a and b have the same key.
func (t *Tree) sameKey(a, b Node) bool {
	na, nb := &t.nodes[a], &t.nodes[b]
	ka, kb := t.src[na.kstart:na.kend], t.src[nb.kstart:nb.kend]
	if !na.kesc && !nb.kesc {
		return bytes.Equal(ka, kb)
	}
	return t.Key(a) == t.Key(b)
}

// Duplicate returns the first member of object obj, in document order,
// whose key an earlier member of obj already has; [None] if the keys are
// unique or obj is not an object. Keys compare after unescaping, byte for
// byte.
func (t *Tree) Duplicate(obj Node) Node {
	nd := &t.nodes[obj]
	if nd.kind != Object || nd.n < 2 {
		return None
	}
	if nd.n <= 16 {
		for b := t.nodes[nd.first].next; b >= 0; b = t.nodes[b].next {
			for a := nd.first; a != b; a = t.nodes[a].next {
				if t.sameKey(a, b) {
					return b
				}
			}
		}
		return None
	}
	seen := make(map[string]struct{}, nd.n)
	for c := nd.first; c >= 0; c = t.nodes[c].next {
		k := t.Key(c)
		if _, dup := seen[k]; dup {
			return c
		}
		seen[k] = struct{}{}
	}
	return None
}

// FirstDuplicate returns the first member of any object in the tree, in
// document order, whose key an earlier member of the same object already
// has; [None] if there is none.
func (t *Tree) FirstDuplicate() Node {
	first := None
	for i := range t.nodes {
		if t.nodes[i].kind != Object || t.nodes[i].n < 2 {
			continue
		}
		if d := t.Duplicate(Node(i)); d >= 0 && (first < 0 || d < first) {
			first = d
		}
	}
	return first
}

// Path returns the dotted path of n from the root: keys and array indices
// joined by dots, such as "messages.3.tool_calls.0.id"; "" for the root.
// Keys are written unescaped, as they are.
func (t *Tree) Path(n Node) string {
	var segs []string
	for n >= 0 {
		nd := &t.nodes[n]
		if nd.parent < 0 {
			break
		}
		if t.nodes[nd.parent].kind == Object {
			segs = append(segs, t.Key(n))
		} else {
			segs = append(segs, strconv.Itoa(int(nd.pos)))
		}
		n = nd.parent
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		b.WriteString(segs[i])
		if i > 0 {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// Compact returns the bytes of n without white space outside strings,
// everything else as it is in the source. It aliases the source when n has
// no such white space.
func (t *Tree) Compact(n Node) []byte {
	nd := &t.nodes[n]
	b := t.src[nd.start:nd.end:nd.end]
	if !nd.ws {
		return b
	}
	return AppendCompact(make([]byte, 0, len(b)), b)
}

// AppendCompact appends [Tree.Compact] of n to dst.
func (t *Tree) AppendCompact(dst []byte, n Node) []byte {
	nd := &t.nodes[n]
	b := t.src[nd.start:nd.end]
	if !nd.ws {
		return append(dst, b...)
	}
	return AppendCompact(dst, b)
}

// AppendCompact appends src, which must be valid JSON (it is not checked),
// to dst without white space outside strings. Strings, numbers and escapes
// are copied as they are: nothing is HTML-escaped or re-encoded.
func AppendCompact(dst, src []byte) []byte {
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// stringEnd returns the offset just past the string whose opening quote is
// at src[i], or len(src) if it is not terminated.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// AppendUnescaped appends the decoded contents of a JSON string to dst;
// raw is what stands between the quotes and must be valid (as in a
// [Tree]). A lone surrogate escape becomes U+FFFD, as in encoding/json;
// other bytes are copied as they are.
func AppendUnescaped(dst, raw []byte) []byte {
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:i]...)
		var n int
		dst, n = appendEscape(dst, raw[i:])
		raw = raw[i+n:]
	}
	return dst
}

// unescape returns the decoded contents of a valid JSON string, with one
// allocation.
func unescape(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	var tmp [utf8.UTFMax]byte
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			b.Write(raw)
			break
		}
		b.Write(raw[:i])
		e, n := appendEscape(tmp[:0], raw[i:])
		b.Write(e)
		raw = raw[i+n:]
	}
	return b.String()
}

// appendEscape appends the decoding of the escape sequence at the start of
// raw, a valid JSON string's contents, and returns how many bytes it took:
// a \uXXXX\uXXXX surrogate pair is one sequence.
func appendEscape(dst, raw []byte) ([]byte, int) {
	switch raw[1] {
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r := hex4(raw[2:6])
		if !utf16.IsSurrogate(r) {
			return utf8.AppendRune(dst, r), 6
		}
		if len(raw) >= 12 && raw[6] == '\\' && raw[7] == 'u' {
			if d := utf16.DecodeRune(r, hex4(raw[8:12])); d != utf8.RuneError {
				return utf8.AppendRune(dst, d), 12
			}
		}
		return utf8.AppendRune(dst, utf8.RuneError), 6
	}
	return append(dst, raw[1]), 2 // '"', '\\', '/'
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

// ValidObject reports whether src, less the white space around it, is one
// valid JSON object, and returns it so trimmed.
func ValidObject(src []byte) ([]byte, bool) {
	src = bytes.Trim(src, " \t\r\n")
	if len(src) < 2 || src[0] != '{' {
		return src, false
	}
	t, err := Parse(src, nil)
	return src, err == nil && t.Kind(t.Root()) == Object
}
