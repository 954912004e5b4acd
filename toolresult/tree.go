package toolresult

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// kind is the kind of a JSON value in a tree.
type kind uint8

const (
	kNull kind = iota
	kFalse
	kTrue
	kNumber
	kString
	kObject
	kArray
)

// node flags.
const (
	fEscaped uint8 = 1 << iota // a string whose raw form holds escapes
	fEmpty                     // null, "", [] or {}, or an object of only such members
)

// A node is one value of a parsed result. Scalars keep their raw span in
// the source; containers keep the range of their children in tree.nodes:
// an array's elements, or an object's keys and values, alternating.
type node struct {
	kind       kind
	flags      uint8
	start, end int32 // raw span in src
	first, n   int32 // children, in tree.nodes
}

func (n *node) empty() bool { return n.flags&fEmpty != 0 }

// A tree is a JSON value parsed by jsontext into one slice of nodes. It
// reads its strings from src without copying them; src must not change
// while the tree is in use.
type tree struct {
	src   []byte
	nodes []node
	root  int32
}

// maxTreeBytes bounds what parse accepts: node spans are int32.
const maxTreeBytes = 1<<31 - 1

// errNotJSON wraps every parse failure.
var errNotJSON = errors.New("not JSON")

// parse reads src, which must hold exactly one JSON value, strictly (no
// duplicate names) but accepting invalid UTF-8, which rendering replaces.
// The error says where src stops being JSON.
func parse(src []byte) (*tree, error) {
	if len(src) > maxTreeBytes {
		return nil, fmt.Errorf("%w: %d bytes is more than the 2 GiB the pipeline reads", errNotJSON, len(src))
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(src), jsontext.AllowInvalidUTF8(true))
	// Every key and every value is a node: about one per ':' and ','
	// (and one per container), counted up front so that the arena is
	// allocated once.
	est := bytes.Count(src, []byte{':'}) + bytes.Count(src, []byte{','}) + bytes.Count(src, []byte{'['}) + 2
	t := &tree{src: src, nodes: make([]node, 0, est)}
	// stack holds the nodes of open containers' children; frames the
	// index in stack of each open container.
	stack := make([]node, 0, 64)
	frames := make([]int, 0, 16)
	for {
		k := dec.PeekKind()
		switch k {
		case 0:
			_, err := dec.ReadToken()
			return nil, parseError(src, dec, err)
		case '{', '[':
			if _, err := dec.ReadToken(); err != nil {
				return nil, parseError(src, dec, err)
			}
			nk := kObject
			if k == '[' {
				nk = kArray
			}
			off := int32(dec.InputOffset())
			stack = append(stack, node{kind: nk, start: off - 1})
			frames = append(frames, len(stack))
			continue
		case '}', ']':
			if _, err := dec.ReadToken(); err != nil {
				return nil, parseError(src, dec, err)
			}
			at := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			c := &stack[at-1]
			c.end = int32(dec.InputOffset())
			kids := stack[at:]
			c.first, c.n = int32(len(t.nodes)), int32(len(kids))
			empty := true
			if c.kind == kObject {
				for i := 1; i < len(kids); i += 2 {
					if !kids[i].empty() {
						empty = false
						break
					}
				}
			} else {
				empty = len(kids) == 0
			}
			if empty {
				c.flags |= fEmpty
			}
			t.nodes = append(t.nodes, kids...)
			stack = stack[:at]
		default:
			v, err := dec.ReadValue()
			if err != nil {
				return nil, parseError(src, dec, err)
			}
			end := dec.InputOffset()
			n := node{start: int32(end - int64(len(v))), end: int32(end)}
			switch k {
			case 'n':
				n.kind, n.flags = kNull, fEmpty
			case 'f':
				n.kind = kFalse
			case 't':
				n.kind = kTrue
			case '0':
				n.kind = kNumber
			case '"':
				n.kind = kString
				if len(v) == 2 {
					n.flags |= fEmpty
				}
				if bytes.IndexByte(v, '\\') >= 0 {
					n.flags |= fEscaped
				}
			}
			stack = append(stack, n)
		}
		if len(frames) == 0 {
			break
		}
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("more data after the first value")
		}
		return nil, parseError(src, dec, err)
	}
	t.root = int32(len(t.nodes))
	t.nodes = append(t.nodes, stack[0])
	return t, nil
}

// parseError turns a jsontext error into one that names the line and
// column, for a person fixing the input.
func parseError(src []byte, dec *jsontext.Decoder, err error) error {
	off := dec.InputOffset()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = se.ByteOffset
		err = se.Err
	}
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(src[:off], '\n')
	if err == nil {
		err = errors.New("unexpected end of input")
	}
	return fmt.Errorf("%w: line %d, column %d: %v", errNotJSON, line, col, err)
}

// raw returns the raw bytes of a scalar node.
func (t *tree) raw(n *node) []byte { return t.src[n.start:n.end] }

// str returns the value of a string node, without copying when it has no
// escapes. The result aliases src.
func (t *tree) str(n *node) string {
	r := t.src[n.start+1 : n.end-1]
	if n.flags&fEscaped == 0 {
		return unsafe.String(unsafe.SliceData(r), len(r))
	}
	b, err := jsontext.AppendUnquote(nil, t.src[n.start:n.end])
	if err != nil {
		// Invalid UTF-8 next to escapes: replace it, then unquote.
		valid := bytes.ToValidUTF8(t.src[n.start:n.end], []byte("\uFFFD"))
		if b, err = jsontext.AppendUnquote(nil, valid); err != nil {
			return string(r)
		}
	}
	return string(b)
}

// num returns the value of a number node.
func (t *tree) num(n *node) float64 {
	r := t.raw(n)
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(r), len(r)), 64)
	return f
}

// kids returns the children of a container node.
func (t *tree) kids(n *node) []node { return t.nodes[n.first : n.first+n.n] }

// path returns the value at the dotted path p ("address.city") under
// n, or nil. A name may itself hold dots, so a path can mean more than
// one member; it reads exactly one, chosen at each object in turn: the
// member whose name is the rest of the path, else the member with the
// longest name that starts the rest followed by a dot. The choice is
// final (a path that goes on past it and finds nothing reads nil). So:
//
//   - a member named "user.role" is what "user.role" reads, whatever
//     "user" holds: the name as written wins over the nested path;
//   - "a.b.c" reads "c" in a member named "a.b" before "b.c" or "b" then
//     "c" in a member named "a";
//   - a trailing dot names the empty key ("a." is a's member ""), and
//     the empty path is n itself.
//
// The renderer (see [renderer.members]) and the aggregate (see
// [aggregate.members]) name values by paths that read them under this
// rule.
func (t *tree) path(n *node, p string) *node {
	if p == "" {
		return n
	}
	for n != nil && n.kind == kObject {
		kids := t.kids(n)
		var best *node
		bestLen := -1
		for i := 0; i+1 < len(kids); i += 2 {
			k := t.str(&kids[i])
			if len(k) > bestLen && strings.HasPrefix(p, k) && (len(k) == len(p) || p[len(k)] == '.') {
				best, bestLen = &kids[i+1], len(k)
			}
		}
		if best == nil || bestLen == len(p) {
			return best
		}
		n, p = best, p[bestLen+1:]
	}
	return nil
}

// dotted returns the member names of object n that hold a dot, as
// rendered (invalid UTF-8 replaced) and sorted, for [dotPrefixed]; nil
// when no name holds one.
func (t *tree) dotted(n *node) []string {
	var names []string
	kids := t.kids(n)
	for i := 0; i+1 < len(kids); i += 2 {
		if name := t.str(&kids[i]); hasDot(name) {
			names = append(names, jsonx.ValidUTF8(name))
		}
	}
	slices.Sort(names)
	return names
}

// hasDot reports whether name holds a dot. Names are short: a loop costs
// less than a call of strings.IndexByte.
func hasDot(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			return true
		}
	}
	return false
}

// dotPrefixed reports whether one of the sorted names (from [tree.dotted])
// starts with name followed by a dot: "user" and "user.name" for a
// member named "user.name.first". A member whose name does is kept
// whole: flattening it, or describing it by its members' paths, would
// make names that repeat the dotted member or that [tree.path] reads
// elsewhere.
func dotPrefixed(sorted []string, name string) bool {
	if len(sorted) == 0 {
		return false
	}
	name = jsonx.ValidUTF8(name) + "."
	i, _ := slices.BinarySearch(sorted, name)
	return i < len(sorted) && strings.HasPrefix(sorted[i], name)
}
