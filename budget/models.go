package budget

import (
	"fmt"
	"strings"
)

// Limits are what a model can hold: its context window and its output
// limit, in tokens, how its tokens are counted, and whether it reads
// images in tool results.
type Limits struct {
	// Window is the context window: input and output tokens together.
	Window int
	// MaxOutput is the most tokens one response may have.
	MaxOutput int
	// Encoding says how tokens are counted: exactly for OpenAI models,
	// estimated for the others.
	Encoding Encoding
	// NoToolResultImages is set for models that refuse images inside
	// tool results even where their API has a place for them (Gemini 2.5:
	// GEM-MULTIMODAL-RESP).
	NoToolResultImages bool
}

// Validate reports whether l is usable: a positive window and an output
// limit below it.
func (l Limits) Validate() error {
	switch {
	case l.Window <= 0:
		return fmt.Errorf("budget: limits: window %d is not positive", l.Window)
	case l.MaxOutput < 0:
		return fmt.Errorf("budget: limits: max output %d is negative", l.MaxOutput)
	case l.MaxOutput >= l.Window:
		return fmt.Errorf("budget: limits: max output %d leaves no room in a window of %d", l.MaxOutput, l.Window)
	}
	switch l.Encoding {
	case "", O200kBase, Cl100kBase, Estimated:
	default:
		return fmt.Errorf("budget: limits: unknown encoding %q", l.Encoding)
	}
	return nil
}

// A Model is one row of a [Table]: the limits of every model whose name
// starts with Prefix.
type Model struct {
	Prefix string
	Limits
}

// A Table maps model names to their limits. The longest matching prefix
// wins, so "gpt-4o-mini" can differ from "gpt-4o". Build on
// [DefaultTable] with [Table.With], or write your own: the defaults are
// what the providers documented when this release was made, and they
// change.
type Table []Model

// DefaultTable returns, in a new slice, the limits of the common model
// families as their providers document them (docs/benchmarks.md repeats
// the table). Users override rows in configuration with [Table.With].
func DefaultTable() Table {
	const k = 1000
	return Table{
		// OpenAI: exact counts with o200k_base or cl100k_base.
		{"gpt-5", Limits{Window: 400 * k, MaxOutput: 128 * k, Encoding: O200kBase}},
		{"gpt-4.1", Limits{Window: 1_047_576, MaxOutput: 32_768, Encoding: O200kBase}},
		{"gpt-4o", Limits{Window: 128 * k, MaxOutput: 16_384, Encoding: O200kBase}},
		{"o1", Limits{Window: 200 * k, MaxOutput: 100 * k, Encoding: O200kBase}},
		{"o3", Limits{Window: 200 * k, MaxOutput: 100 * k, Encoding: O200kBase}},
		{"o4-mini", Limits{Window: 200 * k, MaxOutput: 100 * k, Encoding: O200kBase}},
		{"gpt-4-turbo", Limits{Window: 128 * k, MaxOutput: 4_096, Encoding: Cl100kBase}},
		{"gpt-4", Limits{Window: 8_192, MaxOutput: 4_096, Encoding: Cl100kBase}},
		{"gpt-3.5-turbo", Limits{Window: 16_385, MaxOutput: 4_096, Encoding: Cl100kBase}},
		// Anthropic: estimated.
		{"claude-opus-4-5", Limits{Window: 200 * k, MaxOutput: 64 * k, Encoding: Estimated}},
		{"claude-opus-4", Limits{Window: 200 * k, MaxOutput: 32 * k, Encoding: Estimated}},
		{"claude-sonnet-4", Limits{Window: 200 * k, MaxOutput: 64 * k, Encoding: Estimated}},
		{"claude-haiku-4", Limits{Window: 200 * k, MaxOutput: 64 * k, Encoding: Estimated}},
		{"claude-3-7-sonnet", Limits{Window: 200 * k, MaxOutput: 64 * k, Encoding: Estimated}},
		{"claude-3-5", Limits{Window: 200 * k, MaxOutput: 8_192, Encoding: Estimated}},
		// Gemini: estimated; 2.5 refuses images in function responses.
		{"gemini-3", Limits{Window: 1_048_576, MaxOutput: 65_536, Encoding: Estimated}},
		{"gemini-2.5", Limits{Window: 1_048_576, MaxOutput: 65_536, Encoding: Estimated, NoToolResultImages: true}},
		{"gemini-2.0", Limits{Window: 1_048_576, MaxOutput: 8_192, Encoding: Estimated, NoToolResultImages: true}},
	}
}

// With returns a new table with rows added; a row with the prefix of an
// existing one replaces it.
func (t Table) With(rows ...Model) Table {
	out := make(Table, 0, len(t)+len(rows))
	for _, m := range t {
		replaced := false
		for _, r := range rows {
			if r.Prefix == m.Prefix {
				replaced = true
			}
		}
		if !replaced {
			out = append(out, m)
		}
	}
	return append(out, rows...)
}

// Lookup returns the limits of the named model: those of the row with
// the longest prefix of name. A provider prefix ("openai/", "models/")
// is ignored.
func (t Table) Lookup(name string) (Limits, bool) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best := -1
	for i, m := range t {
		if strings.HasPrefix(name, m.Prefix) && (best < 0 || len(m.Prefix) > len(t[best].Prefix)) {
			best = i
		}
	}
	if best < 0 {
		return Limits{}, false
	}
	return t[best].Limits, true
}

// Validate reports every row of t that is unusable.
func (t Table) Validate() error {
	var problems []string
	for i, m := range t {
		if m.Prefix == "" {
			problems = append(problems, fmt.Sprintf("row %d: the prefix is empty", i))
		}
		if err := m.Limits.Validate(); err != nil {
			problems = append(problems, fmt.Sprintf("row %d (%s): %v", i, m.Prefix, strings.TrimPrefix(err.Error(), "budget: limits: ")))
		}
	}
	if problems != nil {
		return fmt.Errorf("budget: model table: %s", strings.Join(problems, "; "))
	}
	return nil
}
