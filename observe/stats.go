package observe

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// maxDistinct bounds how many distinct values of one string field are
// counted; past it the count is reported as a lower bound.
const maxDistinct = 1000

// A fieldStat accumulates what the records hold at one dotted path.
type fieldStat struct {
	path  string
	kids  map[string]*fieldStat
	order []*fieldStat // kids in first-seen order

	present int // records where the field holds a non-empty value
	types   uint8

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

func (f *fieldStat) child(key string) *fieldStat {
	if c := f.kids[key]; c != nil {
		return c
	}
	if f.kids == nil {
		f.kids = map[string]*fieldStat{}
	}
	p := strings.Clone(key)
	if f.path != "" {
		p = f.path + "." + key
	}
	c := &fieldStat{path: p}
	f.kids[strings.Clone(key)] = c
	f.order = append(f.order, c)
	return c
}

// add records value n of one record at f.
func (f *fieldStat) add(t *tree, n *node) {
	if n.empty() {
		return
	}
	f.present++
	switch n.kind {
	case kObject:
		f.types |= tObject
		kids := t.kids(n)
		for i := 0; i+1 < len(kids); i += 2 {
			if kids[i+1].empty() {
				continue
			}
			f.child(t.str(&kids[i])).add(t, &kids[i+1])
		}
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
// order: objects are described by their members' dotted paths.
func (f *fieldStat) leaves(out []*fieldStat) []*fieldStat {
	if f.types&^tObject != 0 {
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
	root   *fieldStat
	fields []*fieldStat
	total  int
}

func newAggregate(rs *recordSet) *aggregate {
	a := &aggregate{t: rs.t, root: &fieldStat{}, total: len(rs.order)}
	for _, i := range rs.order {
		a.root.add(rs.t, &rs.recs[i])
	}
	a.fields = a.root.leaves(nil)
	return a
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
		name := f.path
		if name == "" {
			name = "(value)"
		}
		schema.WriteString(name)
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
		for i, f := range a.fields[:n] {
			if i > 0 {
				dst = append(dst, ',')
			}
			name := f.path
			if name == "" {
				name = "(value)"
			}
			dst, _ = jsonx.AppendString(dst, name)
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
			type vc struct {
				v string
				c int
			}
			vals := make([]vc, 0, len(f.distinct))
			for v, c := range f.distinct {
				vals = append(vals, vc{v, c})
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
					dst, _ = jsonx.AppendString(dst, clipRunes(v.v, o.maxStr))
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
// reads it: 499.513, 1.5e+06.
func appendNumber(dst []byte, v float64) []byte {
	return strconv.AppendFloat(dst, v, 'g', 6, 64)
}
