package tool

import "github.com/toolwire/toolwire/internal/names"

// closest returns up to n of candidates nearest to name; see
// [names.Closest].
func closest(name string, candidates []string, n int) []string {
	return names.Closest(name, candidates, n)
}
