// Package names finds the name nearest to a misspelt one, for "did you
// mean" hints: unknown tools, unknown keys in files.
package names

import (
	"slices"
	"strings"
)

// Closest returns up to n of candidates nearest to name by edit distance
// (case-insensitive), nearest first; a candidate qualifies when it is
// within a third of the longer name's length (at least 2 edits), or when
// one name contains the other.
func Closest(name string, candidates []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var found []scored
	lname := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := Distance(lname, lc)
		limit := max(len(lname), len(lc)) / 3
		if limit < 2 {
			limit = 2
		}
		if d <= limit || (len(lname) >= 3 && len(lc) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))) {
			found = append(found, scored{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, min(n, len(found)))
	for i := 0; i < len(found) && i < n; i++ {
		out = append(out, found[i].name)
	}
	return out
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	if len(a) > 256 || len(b) > 256 { // names are short; do not spend time on garbage
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
