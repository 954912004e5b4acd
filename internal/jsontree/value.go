package jsontree

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// Value returns n decoded into the Go values that encoding/json gives an
// any when its Decoder has UseNumber set: map[string]any for an object,
// []any for an array (empty, not nil, when it has no elements),
// [encoding/json.Number] for a number (its text, as written), string,
// bool, or nil for null. As in encoding/json, the last of duplicate keys
// wins (see [Tree.Duplicate] to refuse them), a lone surrogate escape
// becomes U+FFFD, and in a tree parsed with [Options].AllowInvalidUTF8
// every byte of a string or key that is not valid UTF-8 becomes U+FFFD.
//
// The result is new and the caller may change it. Value copies n's
// source bytes once and shares that copy among all the numbers, and the
// strings and keys without escapes, in the result: keeping any of them
// keeps the whole copy.
func (t *Tree) Value(n Node) any {
	nd := &t.nodes[n]
	d := valueDecoder{t: t, s: string(t.src[nd.start:nd.end]), base: nd.start}
	d.fixUTF8 = t.anyUTF8 && !utf8.ValidString(d.s)
	return d.value(n)
}

// valueDecoder builds [Tree.Value]: s is the source from offset base on.
type valueDecoder struct {
	t       *Tree
	s       string
	base    int32
	fixUTF8 bool // s holds invalid UTF-8, to be replaced
}

func (d *valueDecoder) value(n Node) any {
	nd := &d.t.nodes[n]
	switch nd.kind {
	case Null:
		return nil
	case Bool:
		return d.s[nd.start-d.base] == 't'
	case Number:
		return json.Number(d.s[nd.start-d.base : nd.end-d.base])
	case String:
		return d.str(nd.start+1, nd.end-1, nd.esc)
	case Array:
		a := make([]any, 0, nd.n)
		for c := nd.first; c >= 0; c = d.t.nodes[c].next {
			a = append(a, d.value(c))
		}
		return a
	}
	m := make(map[string]any, nd.n)
	for c := nd.first; c >= 0; c = d.t.nodes[c].next {
		cn := &d.t.nodes[c]
		m[d.str(cn.kstart, cn.kend, cn.kesc)] = d.value(c)
	}
	return m
}

// str decodes the string contents between source offsets start and end.
func (d *valueDecoder) str(start, end int32, esc bool) string {
	var s string
	if esc {
		s = unescape(d.t.src[start:end])
	} else {
		s = d.s[start-d.base : end-d.base]
	}
	if d.fixUTF8 {
		s = jsonx.ValidUTF8(s)
	}
	return s
}
