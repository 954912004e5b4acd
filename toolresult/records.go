package toolresult

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// A recordSet is the list of records inside a JSON result: the result
// itself when it is an array, or the longest array member of a result
// object ({"total": 30000, "data": [...]}, the "holder"), with the other
// members kept as context.
type recordSet struct {
	t       *tree
	wrapper *node  // the result object holding the records; nil for an array
	key     string // the member of wrapper that holds them
	recs    []node // the records, in the tool's order
	order   []int32
}

// findRecords returns the records of t, or nil when t has no list of
// records: a scalar, or an object without an array member holding at
// least half of its bytes (a document with a list of sections is one
// value, not a list).
func findRecords(t *tree) *recordSet {
	root := &t.nodes[t.root]
	switch root.kind {
	case kArray:
		rs := &recordSet{t: t, recs: t.kids(root)}
		rs.order = identity(len(rs.recs))
		return rs
	case kObject:
		kids := t.kids(root)
		best := -1
		for i := 1; i < len(kids); i += 2 {
			v := &kids[i]
			if v.kind == kArray && v.n > 0 && (best < 0 || v.n > kids[best].n) {
				best = i
			}
		}
		if best < 0 || 2*(kids[best].end-kids[best].start) < root.end-root.start {
			return nil
		}
		rs := &recordSet{t: t, wrapper: root, key: t.str(&kids[best-1]), recs: t.kids(&kids[best])}
		rs.order = identity(len(rs.recs))
		return rs
	}
	return nil
}

func identity(n int) []int32 {
	o := make([]int32, n)
	for i := range o {
		o[i] = int32(i)
	}
	return o
}

// sort orders the records by the dotted path key, stably; records
// without a value there come last, whatever the order.
func (rs *recordSet) sort(key string, o Order) {
	type keyed struct {
		num   float64
		str   string
		kind  kind
		valid bool
	}
	keys := make([]keyed, len(rs.recs))
	for i := range rs.recs {
		v := rs.t.path(&rs.recs[i], key)
		if v == nil || v.empty() {
			continue
		}
		k := keyed{kind: v.kind, valid: true}
		switch v.kind {
		case kNumber:
			k.num = rs.t.num(v)
		case kString:
			k.str = rs.t.str(v)
		case kTrue:
			k.num = 1
		case kFalse:
		default:
			k.str = string(rs.t.raw(v))
		}
		keys[i] = k
	}
	slices.SortStableFunc(rs.order, func(a, b int32) int {
		ka, kb := &keys[a], &keys[b]
		switch {
		case !ka.valid || !kb.valid:
			return cmp.Compare(boolInt(!ka.valid), boolInt(!kb.valid))
		}
		c := 0
		switch {
		case ka.kind == kString && kb.kind == kString:
			c = strings.Compare(ka.str, kb.str)
		case ka.kind == kString:
			c = 1 // numbers before strings
		case kb.kind == kString:
			c = -1
		default:
			c = cmp.Compare(ka.num, kb.num)
		}
		if o == Descending {
			c = -c
		}
		return c
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A Filter keeps the records whose fields equal the given values: each
// key is a dotted path, each value a JSON value. It is read_result's
// "filter" argument.
type Filter map[string]jsontext.Value

// filter keeps the records matching every condition of f.
func (rs *recordSet) filter(f Filter) error {
	if len(f) == 0 {
		return nil
	}
	type cond struct {
		path string
		t    *tree
	}
	conds := make([]cond, 0, len(f))
	for _, p := range slices.Sorted(mapsKeys(f)) {
		vt, err := parse(f[p])
		if err != nil {
			return fmt.Errorf("filter %s: %w", p, err)
		}
		conds = append(conds, cond{p, vt})
	}
	kept := rs.order[:0]
	for _, i := range rs.order {
		ok := true
		for _, c := range conds {
			if !sameValue(rs.t, rs.t.path(&rs.recs[i], c.path), c.t, &c.t.nodes[c.t.root]) {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, i)
		}
	}
	rs.order = kept
	return nil
}

func mapsKeys(f Filter) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for k := range f {
			if !yield(k) {
				return
			}
		}
	}
}

// sameValue reports whether a (in ta) equals b (in tb): strings by
// value, numbers numerically, containers by their compact text. A
// missing value equals only null.
func sameValue(ta *tree, a *node, tb *tree, b *node) bool {
	if a == nil {
		return b.kind == kNull
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kString:
		return ta.str(a) == tb.str(b)
	case kNumber:
		return ta.num(a) == tb.num(b)
	case kNull, kTrue, kFalse:
		return true
	}
	ra := renderer{t: ta}
	ra.value(a, 0)
	rb := renderer{t: tb}
	rb.value(b, 0)
	return bytes.Equal(ra.dst, rb.dst)
}

// render writes the records order[from:from+n] as the result's data: an
// array, or the wrapper object with that array in place of the holder's.
func (rs *recordSet) render(r *renderer, from, n int, withWrapper bool) {
	if rs.wrapper == nil || !withWrapper {
		rs.renderArray(r, from, n)
		return
	}
	rs.renderWrapper(r, func(r *renderer) { rs.renderArray(r, from, n) })
}

// renderWrapper writes the wrapper object, calling holder to write the
// value of the member that holds the records.
func (rs *recordSet) renderWrapper(r *renderer, holder func(*renderer)) {
	r.dst = append(r.dst, '{')
	kids := rs.t.kids(rs.wrapper)
	first := true
	for i := 0; i+1 < len(kids); i += 2 {
		k, v := &kids[i], &kids[i+1]
		isHolder := v.kind == kArray && v.n > 0 && &rs.t.kids(v)[0] == &rs.recs[0]
		if !isHolder && v.empty() {
			r.pruned++
			continue
		}
		if !first {
			r.dst = append(r.dst, ',')
		}
		first = false
		r.key(rs.t.str(k))
		r.dst = append(r.dst, ':')
		if isHolder {
			holder(r)
		} else {
			r.value(v, 1)
		}
	}
	r.dst = append(r.dst, '}')
}

func (rs *recordSet) renderArray(r *renderer, from, n int) {
	r.dst = append(r.dst, '[')
	for j, i := range rs.order[from : from+n] {
		if r.limit > 0 && len(r.dst) > r.limit {
			r.over = true
			return
		}
		if j > 0 {
			r.dst = append(r.dst, ',')
		}
		r.record(&rs.recs[i])
	}
	r.dst = append(r.dst, ']')
}

// textLines splits text into lines for paging; a final newline ends the
// last line rather than starting an empty one.
func textLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// looksText reports whether b reads as text: valid UTF-8, or nearly (at
// most 8 invalid bytes, or 5% of them, which rendering replaces), and no
// NUL byte.
func looksText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	if utf8.Valid(b) {
		return true
	}
	bad, size := 0, len(b)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		b = b[n:]
	}
	return bad <= 8 || bad*20 <= size
}
