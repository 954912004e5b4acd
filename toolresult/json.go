package toolresult

import (
	"errors"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// JSON is a JSON value parsed once: the bytes a tool returned and the
// tree that validating, shaping, counting and rendering them all read, so
// that none of them parses the bytes again (STYLE.md rule 16). Make one
// with [ParseJSON] and use it as [Envelope.Data]: it is rendered as the
// jsontext.Value of the same bytes would be, compact, without being
// compacted again when it already is.
//
// A JSON reads its bytes in place: they must not change while it is in
// use. It is immutable, and safe for concurrent use.
type JSON struct {
	t       *tree
	compact bool // the bytes hold no white space outside strings
	valid   bool // the bytes are valid UTF-8
}

// ParseJSON parses b, which must hold exactly one JSON value, as the
// [Shaper] reads a result: a member name given twice is an error;
// invalid UTF-8 is not (rendering replaces it by U+FFFD and sets
// meta.invalid_utf8). The error says where b stops being JSON.
func ParseJSON(b []byte) (*JSON, error) {
	t, err := parse(b)
	if err != nil {
		return nil, err
	}
	return &JSON{t: t, compact: t.compactLen() == len(b), valid: utf8.Valid(b)}, nil
}

// Bytes returns the bytes v was parsed from, as they were given. The
// caller must not change them.
func (v *JSON) Bytes() []byte { return v.t.src }

// ArrayLen returns the number of elements of v when it is an array; ok
// is false for any other value.
func (v *JSON) ArrayLen() (n int, ok bool) {
	root := &v.t.nodes[v.t.root]
	if root.kind != kArray {
		return 0, false
	}
	return int(root.n), true
}

// errInvalidUTF8 is why [JSON.Value] refuses a value.
var errInvalidUTF8 = errors.New("toolresult: the JSON value holds invalid UTF-8")

// Value returns v decoded as the module's strict reader decodes JSON into
// an any (what encoding/json does with UseNumber): map[string]any, []any,
// json.Number holding the number as written, string, bool or nil. It
// fails when v holds invalid UTF-8, which the strict reader refuses. The
// value is built from the parsed tree, without reading the bytes again;
// its strings share their memory.
func (v *JSON) Value() (any, error) {
	if !v.valid {
		return nil, errInvalidUTF8
	}
	d := decoder{t: v.t}
	val := d.value(&v.t.nodes[v.t.root])
	if d.invalid {
		return nil, errInvalidUTF8 // an escaped lone surrogate: "\ud800"
	}
	return val, nil
}

// MarshalJSON returns v as the envelope renders it (see
// [Envelope.MarshalJSON]): compact, invalid UTF-8 replaced by U+FFFD.
func (v *JSON) MarshalJSON() ([]byte, error) {
	b, _ := v.render()
	return b, nil
}

// render returns the bytes the envelope writes for v: its own when they
// are compact and valid UTF-8, else a compact copy written from the tree
// with invalid UTF-8 replaced byte by byte (as compactJSON does); and
// whether anything was replaced.
func (v *JSON) render() ([]byte, bool) {
	b := v.t.src
	if !v.compact {
		b = v.t.appendCompact(make([]byte, 0, v.t.compactLen()), &v.t.nodes[v.t.root])
	}
	if !v.valid {
		return []byte(jsonx.ValidUTF8(string(b))), true
	}
	return b, false
}

// compactLen returns the length of t's value written compactly: its
// scalars (member names included) as they are, and for each container
// its brackets and one separator (',' or ':') between children.
func (t *tree) compactLen() int {
	n := 0
	for i := range t.nodes {
		nd := &t.nodes[i]
		if nd.kind == kObject || nd.kind == kArray {
			n += 2 + max(int(nd.n)-1, 0)
		} else {
			n += int(nd.end - nd.start)
		}
	}
	return n
}

// appendCompact appends node n written compactly: every scalar as
// written, escapes kept.
func (t *tree) appendCompact(dst []byte, n *node) []byte {
	switch n.kind {
	case kObject:
		dst = append(dst, '{')
		kids := t.kids(n)
		for i := 0; i+1 < len(kids); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, t.raw(&kids[i])...)
			dst = append(dst, ':')
			dst = t.appendCompact(dst, &kids[i+1])
		}
		return append(dst, '}')
	case kArray:
		dst = append(dst, '[')
		for i := range t.kids(n) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = t.appendCompact(dst, &t.kids(n)[i])
		}
		return append(dst, ']')
	}
	return append(dst, t.raw(n)...)
}

// A decoder builds the any of a tree's value, noting escapes that the
// strict reader refuses.
type decoder struct {
	t       *tree
	invalid bool
}

// value decodes node n into an any, as jsonx.DecodeAny does.
func (d *decoder) value(n *node) any {
	t := d.t
	switch n.kind {
	case kNull:
		return nil
	case kFalse:
		return false
	case kTrue:
		return true
	case kNumber:
		r := t.raw(n)
		return jsonx.Number(unsafe.String(unsafe.SliceData(r), len(r)))
	case kString:
		return d.str(n)
	case kArray:
		kids := t.kids(n)
		a := make([]any, len(kids))
		for i := range kids {
			a[i] = d.value(&kids[i])
		}
		return a
	}
	kids := t.kids(n)
	m := make(map[string]any, len(kids)/2)
	for i := 0; i+1 < len(kids); i += 2 {
		m[d.str(&kids[i])] = d.value(&kids[i+1])
	}
	return m
}

// str returns the value of a string node; its bytes are valid UTF-8.
func (d *decoder) str(n *node) string {
	if n.flags&fEscaped == 0 {
		return d.t.str(n)
	}
	b, err := jsontext.AppendUnquote(nil, d.t.raw(n))
	if err != nil {
		d.invalid = true
	}
	return string(b)
}

// rendered is JSON data the shaper wrote (from a tree, or a description
// or an aggregate of one): compact by construction, only its invalid
// UTF-8, copied from the tool's bytes, still to replace. The envelope
// writes it as it is; Shape and Page hand it out as a jsontext.Value.
type rendered []byte

// bytes returns r as the envelope writes it, and whether invalid UTF-8
// was replaced.
func (r rendered) bytes() ([]byte, bool) {
	if utf8.Valid(r) {
		return r, false
	}
	return []byte(jsonx.ValidUTF8(string(r))), true
}
