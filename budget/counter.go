// Package budget counts tokens and keeps a conversation inside a model's
// context window: a [Counter] contract with an exact counter for OpenAI
// encodings and a calibrated estimator for the others, a table of context
// windows and output limits ([Models]), and a [Fitter] that compacts a
// history without ever separating a tool call from its result.
package budget

import (
	"fmt"
	"unicode/utf8"
)

// A Counter counts the tokens a model reads for a text. Implementations
// must be safe for concurrent use and must never fail: a text that cannot
// be tokenized exactly is estimated.
//
// [toolresult.Counter] has the same method, so every Counter here shapes
// tool results too.
type Counter interface {
	Count(text string) int
}

// Encoding names how a model's tokens are counted.
type Encoding string

// The encodings.
const (
	// O200kBase is the exact tokenizer of gpt-4o, gpt-4.1, gpt-5 and the
	// o-series.
	O200kBase Encoding = "o200k_base"
	// Cl100kBase is the exact tokenizer of gpt-4 and gpt-3.5-turbo.
	Cl100kBase Encoding = "cl100k_base"
	// Estimated is the calibrated [Estimator], for models whose tokenizer
	// is not published (Anthropic, Gemini).
	Estimated Encoding = "estimate"
)

// NewCounter returns the counter for an encoding: an [*Exact] counter
// for o200k_base and cl100k_base, an [Estimator] for "estimate". Building
// an exact counter reads its vocabulary, embedded in the binary (no
// network), and builds its tables once per process; that takes a few
// milliseconds.
func NewCounter(e Encoding) (Counter, error) {
	switch e {
	case O200kBase, Cl100kBase:
		return NewExact(e)
	case Estimated:
		return Estimator{}, nil
	}
	return nil, fmt.Errorf("budget: new counter: unknown encoding %q (want %s, %s or %s)", e, O200kBase, Cl100kBase, Estimated)
}

// Exact counts tokens as an OpenAI tokenizer does: exactly as
// github.com/tiktoken-go/tokenizer counts them, whose vocabularies it
// reads, with a pre-tokenizer written by hand in place of the library's
// regular expression (11 to 28 times faster on English, JSON and code;
// docs/benchmarks.md, which also names the two corner cases where the
// library, and so Exact, differs from OpenAI's own tokenizer). It is safe
// for concurrent use.
type Exact struct {
	enc Encoding
	tok *tokenizer
}

var _ Counter = (*Exact)(nil)

// NewExact returns an exact counter for o200k_base or cl100k_base.
func NewExact(e Encoding) (*Exact, error) {
	switch e {
	case O200kBase, Cl100kBase:
		return &Exact{enc: e, tok: tokenizerFor(e)}, nil
	}
	return nil, fmt.Errorf("budget: new exact counter: %q has no exact tokenizer (want %s or %s)", e, O200kBase, Cl100kBase)
}

// Encoding returns the counter's encoding.
func (c *Exact) Encoding() Encoding { return c.enc }

// Count returns the number of tokens in text. Invalid UTF-8 is counted as
// the replacement characters a provider would see.
func (c *Exact) Count(text string) int {
	if !utf8.ValidString(text) {
		text = toValid(text)
	}
	return c.tok.count(text)
}

// CountPrefix counts the start of a text once for every text that begins
// with it: it returns the tokens of the pieces text begins with that no
// text appended to it can change, and how many bytes of text they take,
// so that for every more
//
//	c.Count(text+more) == tokens + c.Count(text[n:]+more)
//
// n falls short of the end of text by a few bytes at least (and is 0 for
// a short text, or one that is not valid UTF-8). A caller that renders a
// long text, then the same text with a different ending, counts the
// long part once. It implements [toolresult.PrefixCounter].
func (c *Exact) CountPrefix(text string) (tokens, n int) {
	if !utf8.ValidString(text) {
		return 0, 0
	}
	return c.tok.countPrefix(text)
}

func toValid(s string) string {
	b := make([]byte, 0, len(s))
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[:n]...)
		}
		s = s[n:]
	}
	return string(b)
}
