package toolresult

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/internal/jsonx"
)

// Level says how much of a result a model sees after shaping.
type Level string

// The levels, chosen automatically from the budget.
const (
	// LevelFull: the whole result, compacted and pruned, fits.
	LevelFull Level = "full"
	// LevelHead: the first records (or lines, or the first part of one
	// value) that fit, with a note saying how many there are and how to
	// read the rest.
	LevelHead Level = "head"
	// LevelAggregate: the record count, a schema line, per-field
	// statistics and a small sample.
	LevelAggregate Level = "aggregate"
	// LevelCleared: the result was shown earlier and its content has
	// since been cleared to keep the conversation inside the context
	// window (budget.Fitter); the summary and the ref remain, and
	// read_result reloads it.
	LevelCleared Level = "cleared"
)

// Order is the direction of a sort.
type Order string

// The orders.
const (
	Descending Order = "desc" // highest first: "top N"
	Ascending  Order = "asc"  // lowest first
)

// Rules say how a tool's output is shaped, as its contract declares
// them. The zero Rules mean the pipeline decides alone: all fields, the
// tool's own order, as many records as fit.
type Rules struct {
	// Fields are the fields that matter, as dotted paths
	// ("address.city"); records show only these. Empty: every field.
	Fields []string
	// SortBy is the dotted path of the field records are ordered by
	// before the first are kept; records without it come last. Empty:
	// the tool's order.
	SortBy string
	// Order is the direction of SortBy; empty means [Descending], so
	// that SortBy "score" keeps the best-scored records.
	Order Order
	// MaxRecords caps the records shown, even when more would fit. 0: no
	// cap.
	MaxRecords int
}

// IsZero reports whether r leaves every decision to the pipeline.
func (r Rules) IsZero() bool {
	return len(r.Fields) == 0 && r.SortBy == "" && r.Order == "" && r.MaxRecords == 0
}

// Validate reports whether r can be applied: non-empty field paths, a
// known order, a non-negative cap.
func (r Rules) Validate() error {
	var problems []string
	for i, f := range r.Fields {
		if strings.TrimSpace(f) == "" {
			problems = append(problems, fmt.Sprintf("fields[%d] is empty (want a dotted path such as address.city)", i))
		}
	}
	switch r.Order {
	case "", Descending, Ascending:
	default:
		problems = append(problems, fmt.Sprintf("order %q is not %q or %q", r.Order, Descending, Ascending))
	}
	if r.Order != "" && r.SortBy == "" {
		problems = append(problems, "order is set but sort_by is not (name the field to sort by)")
	}
	if r.MaxRecords < 0 {
		problems = append(problems, fmt.Sprintf("max_records %d is negative (use 0 for no cap)", r.MaxRecords))
	}
	if problems != nil {
		return fmt.Errorf("toolresult: invalid shaping rules: %s", strings.Join(problems, "; "))
	}
	return nil
}

// uniqueFields returns fields without the paths named more than once
// (as rendered: invalid UTF-8 replaced), keeping the first of each, so
// that a record shows each field once. It returns fields itself when no
// path repeats.
func uniqueFields(fields []string) []string {
	seen := make(map[string]bool, len(fields))
	var out []string
	for i, f := range fields {
		f = jsonx.ValidUTF8(f)
		if seen[f] {
			if out == nil {
				out = slices.Clone(fields[:i])
			}
			continue
		}
		seen[f] = true
		if out != nil {
			out = append(out, fields[i])
		}
	}
	if out == nil {
		return fields
	}
	return out
}

func (r Rules) order() Order {
	if r.Order == "" {
		return Descending
	}
	return r.Order
}
