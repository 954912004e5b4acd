package toolresult

import (
	"strings"
	"unicode/utf8"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// A renderer writes the nodes of a tree compactly, pruning empty members
// (null, "", [], {}) and flattening nested objects into dotted keys where
// that is shorter. It counts what it did.
type renderer struct {
	t   *tree
	dst []byte
	// maxStr, when positive, clips strings to that many runes.
	maxStr int
	// maxArr, when positive, keeps only that many elements of arrays
	// nested inside the value rendered.
	maxArr int
	// fields, when set, keeps only these dotted paths of an object
	// rendered with record.
	fields []string

	// limit, when positive, abandons the rendering once it is longer:
	// over is then set and dst holds an unusable prefix.
	limit int
	over  bool

	pruned    int  // empty members left out
	flattened int  // nested objects written as dotted keys
	clipped   bool // a string or an array was cut
	replaced  bool // invalid UTF-8 was replaced by U+FFFD
	prefix    []byte
}

// value writes n.
func (r *renderer) value(n *node, depth int) {
	switch n.kind {
	case kNull, kFalse, kTrue, kNumber:
		r.dst = append(r.dst, r.t.raw(n)...)
	case kString:
		r.string(n)
	case kArray:
		r.dst = append(r.dst, '[')
		kids := r.t.kids(n)
		limit := len(kids)
		if r.maxArr > 0 && depth > 0 && limit > r.maxArr {
			limit = r.maxArr
			r.clipped = true
		}
		for i := range limit {
			if r.limit > 0 && len(r.dst) > r.limit {
				r.over = true
				return
			}
			if i > 0 {
				r.dst = append(r.dst, ',')
			}
			r.value(&kids[i], depth+1)
		}
		r.dst = append(r.dst, ']')
	case kObject:
		r.dst = append(r.dst, '{')
		first := true
		r.prefix = r.prefix[:0]
		r.members(n, &first, depth)
		r.dst = append(r.dst, '}')
	}
}

// record writes an object keeping only r.fields, or all of it when
// r.fields is empty. Other values are written whole. Each field is named
// by its path, which reads its value (see [tree.path]); r.fields holds
// no path twice (see [uniqueFields]).
func (r *renderer) record(n *node) {
	if len(r.fields) == 0 || n.kind != kObject {
		r.value(n, 0)
		return
	}
	r.dst = append(r.dst, '{')
	first := true
	for _, f := range r.fields {
		v := r.t.path(n, f)
		if v == nil || v.empty() {
			continue
		}
		if !first {
			r.dst = append(r.dst, ',')
		}
		first = false
		r.key(f)
		r.dst = append(r.dst, ':')
		r.value(v, 1)
	}
	r.dst = append(r.dst, '}')
}

// members writes the non-empty members of object n, their keys prefixed
// with r.prefix, flattening a nested object into the same braces when
// that is shorter and no other member's name starts with its key and a
// dot: "user" stays nested beside "user.role" (or "user.name"). So no key
// is written twice, even when the data holds both forms, and every
// dotted key written reads, by [tree.path], the value written under it;
// the nested form keeps the other value in sight.
func (r *renderer) members(n *node, first *bool, depth int) {
	kids := r.t.kids(n)
	// dotted lists the member names holding a dot, read on the first
	// object that could be flattened. The members of an object being
	// flattened (r.prefix set) hold no dot: flatter checked.
	var dotted []string
	read := len(r.prefix) > 0
	for i := 0; i+1 < len(kids); i += 2 {
		if r.limit > 0 && len(r.dst) > r.limit {
			r.over = true
			return
		}
		k, v := &kids[i], &kids[i+1]
		if v.empty() {
			r.pruned++
			continue
		}
		key := r.t.str(k)
		if v.kind == kObject && !strings.Contains(key, ".") && r.flatter(len(r.prefix)+len(key), v) {
			if !read {
				dotted, read = r.t.dotted(n), true
			}
			if !dotPrefixed(dotted, key) {
				r.flattened++
				mark := len(r.prefix)
				r.prefix = append(append(r.prefix, key...), '.')
				r.members(v, first, depth+1)
				r.prefix = r.prefix[:mark]
				continue
			}
		}
		if !*first {
			r.dst = append(r.dst, ',')
		}
		*first = false
		if len(r.prefix) > 0 {
			mark := len(r.prefix)
			r.prefix = append(r.prefix, key...)
			r.key(string(r.prefix))
			r.prefix = r.prefix[:mark]
		} else if k.flags&fEscaped == 0 {
			// As written; invalid UTF-8 in it is replaced, byte by byte,
			// when the envelope is rendered (see compactJSON).
			r.dst = append(r.dst, r.t.raw(k)...)
		} else {
			r.key(key)
		}
		r.dst = append(r.dst, ':')
		saved := r.prefix
		r.prefix = nil
		r.value(v, depth+1)
		r.prefix = saved
	}
}

// key writes a member name, replacing invalid UTF-8 byte by byte as the
// strict reader compares names: two names it holds distinct are written
// distinct.
func (r *renderer) key(name string) {
	var replaced bool
	r.dst, replaced = jsonx.AppendString(r.dst, name)
	r.replaced = r.replaced || replaced
}

// flatter reports whether writing the members of object v as
// "key.member" keys is shorter than nesting them: it is when
// m×(len(key)+1) < len(key)+5 for its m non-empty members, which holds
// for one member and, for two, when the key is at most 2 bytes. An
// object with a member name holding a dot, even one left out as empty,
// is never flattened: [tree.path] would read that member for the dotted
// keys written.
func (r *renderer) flatter(keyLen int, v *node) bool {
	kids := r.t.kids(v)
	m := 0
	for i := 0; i+1 < len(kids); i += 2 {
		if hasDot(r.t.str(&kids[i])) {
			return false
		}
		if kids[i+1].empty() {
			continue
		}
		if kids[i].flags&fEscaped != 0 {
			return false
		}
		m++
		if m*(keyLen+1) >= keyLen+5 {
			return false
		}
	}
	return m > 0
}

// string writes a string node, decoding escapes so that non-ASCII text
// reads as itself, and clipping it to maxStr runes.
func (r *renderer) string(n *node) {
	raw := r.t.raw(n)
	if n.flags&fEscaped == 0 && (r.maxStr <= 0 || len(raw)-2 <= r.maxStr) {
		r.dst = append(r.dst, raw...)
		return
	}
	if !utf8.Valid(raw) {
		r.replaced = true
	}
	s := r.t.str(n)
	if r.maxStr > 0 && utf8.RuneCountInString(s) > r.maxStr {
		s = clipRunes(s, r.maxStr)
		r.clipped = true
	}
	var replaced bool
	r.dst, replaced = jsonx.AppendString(r.dst, s)
	r.replaced = r.replaced || replaced
}

// clipRunes cuts s to n runes and marks the cut.
func clipRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
