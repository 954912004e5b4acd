package toolresult

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// maxDistinct bounds how many distinct values of one string field are
// counted; past it the count is reported as a lower bound.
const maxDistinct = 1000

// A fieldStat accumulates what the records hold at one dotted path.
// Fields are shared by path: a nested "user" then "role" and a member
// named "user.role" are one field, which describes, in each record, the
// value [tree.path] reads there.
type fieldStat struct {
	path  string                // as rendered: invalid UTF-8 replaced
	kids  map[string]*fieldStat // by member name, as in the data
	order []*fieldStat          // kids in first-seen order

	present int // records where the field holds a non-empty value
	types   uint8
	// whole is set when some record's object here was described as one
	// value, not by its members' paths (see [aggregate.members]).
	whole  bool
	listed bool // set by leaves

	nCount           int
	nMin, nMax, nSum float64

	distinct map[string]int
	overflow bool // more than maxDistinct distinct values

	trues, falses int

	aCount, aMin, aMax, aSum int
}

// Type bits.
const (
	tNumber uint8 = 1 << iota
	tString
	tBool
	tArray
	tObject
)

// child returns the field of the member named key in f's objects: the
// field of its path, shared with every other way of writing that path.
func (a *aggregate) child(f *fieldStat, key string) *fieldStat {
	if c := f.kids[key]; c != nil {
		return c
	}
	p := strings.Clone(jsonx.ValidUTF8(key))
	if f != a.root {
		p = f.path + "." + p
	}
	c := a.byPath[p]
	if c == nil {
		c = &fieldStat{path: p}
		a.byPath[p] = c
	}
	if f.kids == nil {
		f.kids = map[string]*fieldStat{}
	}
	f.kids[strings.Clone(key)] = c
	f.order = append(f.order, c)
	return c
}

// add records value n of one record at f.
func (a *aggregate) add(f *fieldStat, n *node) {
	if n.empty() {
		return
	}
	f.present++
	t := a.t
	switch n.kind {
	case kObject:
		f.types |= tObject
		a.members(f, n)
	case kNumber:
		v := t.num(n)
		extend(&f.nMin, &f.nMax, &f.nSum, &f.nCount, v)
		f.types |= tNumber
	case kString:
		f.types |= tString
		if f.distinct == nil {
			f.distinct = map[string]int{}
		}
		s := t.str(n)
		if c, ok := f.distinct[s]; ok {
			f.distinct[s] = c + 1
		} else if len(f.distinct) < maxDistinct {
			f.distinct[s] = 1
		} else {
			f.overflow = true
		}
	case kTrue:
		f.types |= tBool
		f.trues++
	case kFalse:
		f.types |= tBool
		f.falses++
	case kArray:
		f.types |= tArray
		extend(&f.aMin, &f.aMax, &f.aSum, &f.aCount, int(n.n))
	}
}

// members records the members of object n, which f describes, each at
// the field of its path. It follows the renderer's flattening rule: a
// member holding an object whose name another member's name starts, with
// a dot ("user" beside "user.role"), is described as one object, since
// the paths of its members would read the dotted member (see
// [tree.path]). So each value is counted under the one path that reads
// it, and no path twice in a record.
func (a *aggregate) members(f *fieldStat, n *node) {
	t := a.t
	kids := t.kids(n)
	// Objects are recorded after the other members, once the names that
	// hold a dot are known; every member's field is made in order.
	type object struct {
		c   *fieldStat
		key string
		v   *node
	}
	var buf [4]object
	objects := buf[:0]
	var dotted []string
	for i := 0; i+1 < len(kids); i += 2 {
		k, v := &kids[i], &kids[i+1]
		key := t.str(k)
		if hasDot(key) {
			dotted = append(dotted, jsonx.ValidUTF8(key))
		}
		if v.empty() {
			continue
		}
		c := a.child(f, key)
		switch {
		case v.kind == kObject:
			objects = append(objects, object{c, key, v})
		case f == a.root && key == "":
			// The empty path reads the record itself, not this member.
		default:
			a.add(c, v)
		}
	}
	slices.Sort(dotted)
	for _, o := range objects {
		switch whole := dotPrefixed(dotted, o.key); {
		case f == a.root && o.key == "":
			// Described by its members' paths (".x") only.
			if !whole {
				a.members(o.c, o.v)
			}
		case whole:
			o.c.present++
			o.c.types |= tObject
			o.c.whole = true
		default:
			a.add(o.c, o.v)
		}
	}
}

// extend adds v to a running minimum, maximum, sum and count.
func extend[T int | float64](lo, hi, sum *T, count *int, v T) {
	if *count == 0 || v < *lo {
		*lo = v
	}
	if *count == 0 || v > *hi {
		*hi = v
	}
	*sum += v
	*count++
}

// leaves returns the fields that hold values, depth first in first-seen
// order, each once: objects are described by their members' dotted
// paths, unless described whole.
func (f *fieldStat) leaves(out []*fieldStat) []*fieldStat {
	if f.listed {
		return out
	}
	f.listed = true
	if f.types&^tObject != 0 || f.whole {
		out = append(out, f)
	}
	for _, c := range f.order {
		out = c.leaves(out)
	}
	return out
}

func (f *fieldStat) typeName() string {
	var names []string
	for _, tn := range []struct {
		bit  uint8
		name string
	}{{tNumber, "number"}, {tString, "string"}, {tBool, "bool"}, {tArray, "array"}, {tObject, "object"}} {
		if f.types&tn.bit != 0 {
			names = append(names, tn.name)
		}
	}
	return strings.Join(names, "|")
}

// aggOpts bound the size of an aggregate.
type aggOpts struct {
	top       int // top values per string field
	sample    int // records in the sample
	maxFields int // fields described; the rest are named in the schema only
	maxStr    int // runes of a string in top values and the sample
}

// aggregate describes records: their count, a schema line, statistics
// per field and the first sample records.
type aggregate struct {
	t      *tree
	root   *fieldStat            // the records themselves: "(value)"
	byPath map[string]*fieldStat // every other field, by path
	fields []*fieldStat
	total  int
}

func newAggregate(rs *recordSet) *aggregate {
	a := &aggregate{t: rs.t, root: &fieldStat{}, byPath: map[string]*fieldStat{}, total: len(rs.order)}
	for _, i := range rs.order {
		a.add(a.root, &rs.recs[i])
	}
	a.fields = a.root.leaves(nil)
	// The records' own values are named "(value)": a member of that name
	// beside them would repeat the name, and is left out.
	if dup := a.byPath[rootName]; dup != nil && len(a.fields) > 0 && a.fields[0] == a.root {
		a.fields = slices.DeleteFunc(a.fields, func(f *fieldStat) bool { return f == dup })
	}
	return a
}

// rootName names the records' own values in an aggregate (a list of
// strings or numbers): the path of the records is empty.
const rootName = "(value)"

// name returns the name of f in the aggregate: its path, or rootName.
func (f *fieldStat) name() string {
	if f.path == "" {
		return rootName
	}
	return f.path
}

// render writes the aggregate as a JSON object:
//
//	{"records":N,"schema":"path:type, ...","fields":{path:{stats}},"sample":[...]}
func (a *aggregate) render(dst []byte, rs *recordSet, o aggOpts, rules Rules) []byte {
	if rs.wrapper != nil {
		// The wrapper's other members, with the aggregate in place of the
		// records.
		r := renderer{t: rs.t, dst: dst, maxStr: o.maxStr, maxArr: 3}
		rs.renderWrapper(&r, func(r *renderer) { r.dst = a.renderRecords(r.dst, rs, o, rules) })
		return r.dst
	}
	return a.renderRecords(dst, rs, o, rules)
}

func (a *aggregate) renderRecords(dst []byte, rs *recordSet, o aggOpts, rules Rules) []byte {
	dst = append(dst, `{"records":`...)
	dst = strconv.AppendInt(dst, int64(a.total), 10)
	dst = append(dst, `,"schema":`...)
	var schema strings.Builder
	for i, f := range a.fields {
		if i > 0 {
			schema.WriteString(", ")
		}
		schema.WriteString(f.name())
		schema.WriteByte(':')
		schema.WriteString(f.typeName())
		if f.present < a.total {
			schema.WriteString(" (in ")
			schema.WriteString(strconv.Itoa(f.present))
			schema.WriteByte(')')
		}
	}
	dst, _ = jsonx.AppendString(dst, schema.String())
	n := min(len(a.fields), o.maxFields)
	if n > 0 {
		dst = append(dst, `,"fields":{`...)
		first := true
		for _, f := range a.fields[:n] {
			if f.types == tObject {
				continue // described whole: the schema says all there is
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst, _ = jsonx.AppendString(dst, f.name())
			dst = append(dst, ':')
			dst = f.appendStats(dst, o)
		}
		dst = append(dst, '}')
	}
	if o.sample > 0 && len(rs.order) > 0 {
		dst = append(dst, `,"sample":[`...)
		r := renderer{t: rs.t, dst: dst, maxStr: o.maxStr, maxArr: 3, fields: rules.Fields}
		for i, idx := range rs.order[:min(o.sample, len(rs.order))] {
			if i > 0 {
				r.dst = append(r.dst, ',')
			}
			r.record(&rs.recs[idx])
		}
		dst = append(r.dst, ']')
	}
	return append(dst, '}')
}

// A vc is a string value as shown and how many records hold it.
type vc struct {
	v string
	c int
}

// mergeShown adds up the counts of the values that show alike.
func mergeShown(vals []vc) []vc {
	at := make(map[string]int, len(vals))
	out := vals[:0]
	for _, x := range vals {
		if i, ok := at[x.v]; ok {
			out[i].c += x.c
			continue
		}
		at[x.v] = len(out)
		out = append(out, x)
	}
	return out
}

func (f *fieldStat) appendStats(dst []byte, o aggOpts) []byte {
	dst = append(dst, '{')
	sep := func() {
		if dst[len(dst)-1] != '{' {
			dst = append(dst, ',')
		}
	}
	if f.nCount > 0 {
		sep()
		dst = append(dst, `"min":`...)
		dst = appendNumber(dst, f.nMin)
		dst = append(dst, `,"max":`...)
		dst = appendNumber(dst, f.nMax)
		dst = append(dst, `,"mean":`...)
		dst = appendNumber(dst, f.nSum/float64(f.nCount))
	}
	if f.distinct != nil {
		sep()
		dst = append(dst, `"distinct":`...)
		if f.overflow {
			dst = append(dst, `"more than `...)
			dst = strconv.AppendInt(dst, maxDistinct, 10)
			dst = append(dst, '"')
		} else {
			dst = strconv.AppendInt(dst, int64(len(f.distinct)), 10)
		}
		if o.top > 0 {
			// Values are counted as shown, cut and with invalid UTF-8
			// replaced: two that show alike are one key, counted once
			// with both counts.
			vals := make([]vc, 0, len(f.distinct))
			changed := false
			for v, c := range f.distinct {
				if len(v) > o.maxStr || !utf8.ValidString(v) {
					v = jsonx.ValidUTF8(clipRunes(v, o.maxStr))
					changed = true
				}
				vals = append(vals, vc{v, c})
			}
			if changed {
				vals = mergeShown(vals)
			}
			slices.SortFunc(vals, func(a, b vc) int {
				if c := cmp.Compare(b.c, a.c); c != 0 {
					return c
				}
				return strings.Compare(a.v, b.v)
			})
			// Top values are worth showing only when some repeat.
			if len(vals) > 0 && vals[0].c > 1 {
				dst = append(dst, `,"top":{`...)
				for i, v := range vals[:min(o.top, len(vals))] {
					if i > 0 {
						dst = append(dst, ',')
					}
					dst, _ = jsonx.AppendString(dst, v.v)
					dst = append(dst, ':')
					dst = strconv.AppendInt(dst, int64(v.c), 10)
				}
				dst = append(dst, '}')
			}
		}
	}
	if f.trues+f.falses > 0 {
		sep()
		dst = append(dst, `"true":`...)
		dst = strconv.AppendInt(dst, int64(f.trues), 10)
		dst = append(dst, `,"false":`...)
		dst = strconv.AppendInt(dst, int64(f.falses), 10)
	}
	if f.aCount > 0 {
		sep()
		dst = append(dst, `"length":{"min":`...)
		dst = strconv.AppendInt(dst, int64(f.aMin), 10)
		dst = append(dst, `,"max":`...)
		dst = strconv.AppendInt(dst, int64(f.aMax), 10)
		dst = append(dst, `,"mean":`...)
		dst = appendNumber(dst, float64(f.aSum)/float64(f.aCount))
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendNumber writes v with at most 6 significant digits, as a model
// reads it: 499.513, 1.5e+06. A number past float64 (1e999 in the data,
// or a sum that overflows) is written as the string "+Inf" or "-Inf":
// JSON has no such number.
func appendNumber(dst []byte, v float64) []byte {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		dst = append(dst, '"')
		return append(strconv.AppendFloat(dst, v, 'g', 6, 64), '"')
	}
	return strconv.AppendFloat(dst, v, 'g', 6, 64)
}
