package budget

import (
	"unicode"
	"unicode/utf8"
)

// Estimator estimates token counts for models whose tokenizer is not
// published (Anthropic, Gemini), in one pass over the text and without
// allocating. It splits text the way byte-pair tokenizers do — words,
// digit groups, punctuation runs, white space — and gives each piece a
// cost calibrated on English prose, Chinese prose, JSON and Go code
// against o200k_base (docs/benchmarks.md has its error on each). A CJK
// character costs about one token, not the quarter a characters/4 rule
// gives it.
//
// The zero Estimator is ready to use. It is safe for concurrent use.
type Estimator struct {
	// Scale multiplies every estimate; 0 means 1. Set it above 1 for a
	// model known to use more tokens than o200k_base for the same text.
	Scale float64
}

var _ Counter = Estimator{}

// Costs, in hundredths of a token.
const (
	costWordChunk = 100 // a word, or each further 10 letters of a long one
	wordChunk     = 10
	costDigits    = 100 // each group of up to 3 digits
	costPunct     = 100 // each further 3 bytes of a punctuation run, after the first
	costSpaces    = 100 // a run of white space not absorbed by the next word
	costCJK       = 100 // a Han, kana or Hangul character, or CJK punctuation
	costOther     = 45  // another non-ASCII letter (Cyrillic, Greek, accented, ...)
	costSymbol    = 150 // another non-ASCII rune (emoji, symbols)
)

// Count returns the estimated number of tokens in text; 0 only for an
// empty text.
func (e Estimator) Count(text string) int {
	if text == "" {
		return 0
	}
	c := estimate(text)
	if e.Scale > 0 && e.Scale != 1 {
		c = int(float64(c) * e.Scale)
	}
	n := (c + 50) / 100
	return max(n, 1)
}

// class of an ASCII byte.
const (
	clsSpace = iota
	clsLetter
	clsUpper
	clsDigit
	clsPunct
)

var asciiClass = func() (t [128]uint8) {
	for b := range 128 {
		switch {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v':
			t[b] = clsSpace
		case b >= 'a' && b <= 'z':
			t[b] = clsLetter
		case b >= 'A' && b <= 'Z':
			t[b] = clsUpper
		case b >= '0' && b <= '9':
			t[b] = clsDigit
		default:
			t[b] = clsPunct
		}
	}
	return t
}()

// estimate returns the cost of s in hundredths of a token.
func estimate(s string) int {
	cost := 0
	i := 0
	for i < len(s) {
		b := s[i]
		if b >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n
			switch {
			case isCJK(r):
				cost += costCJK
			case unicode.IsLetter(r) || unicode.IsMark(r):
				cost += costOther
			case unicode.IsSpace(r):
				cost += costSpaces / 2
			default:
				cost += costSymbol
			}
			continue
		}
		switch asciiClass[b] {
		case clsSpace:
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == clsSpace {
				j++
			}
			// One space before a word or punctuation is part of it.
			if !(j == i+1 && b == ' ' && j < len(s)) {
				cost += costSpaces
			}
			i = j
		case clsLetter, clsUpper:
			// A word: uppercase letters then lowercase ones, as the
			// tokenizers' split patterns read them.
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == clsUpper {
				j++
			}
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == clsLetter {
				j++
			}
			if j < len(s) && s[j] == '\'' && j+1 < len(s) && asciiClass[s[j+1]&0x7f] == clsLetter {
				j += 2 // 's, 't, 're, ...
			}
			n := j - i
			cost += costWordChunk * ((n + wordChunk - 1) / wordChunk)
			i = j
		case clsDigit:
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			cost += costDigits * ((j - i + 2) / 3)
			i = j
		default:
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == clsPunct {
				j++
			}
			n := j - i
			cost += 100 + costPunct*((n-1)/3)
			i = j
		}
	}
	return cost
}

// isCJK reports whether r is a Han, kana, Hangul or fullwidth character or
// CJK punctuation: about one token each in every published tokenizer.
func isCJK(r rune) bool {
	switch {
	case r >= 0x2E80 && r <= 0x9FFF, // radicals, CJK punctuation, kana, Han
		r >= 0xAC00 && r <= 0xD7AF,   // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF,   // compatibility ideographs
		r >= 0xFF00 && r <= 0xFFEF,   // fullwidth forms
		r >= 0x20000 && r <= 0x3FFFF: // Han extensions
		return true
	}
	return false
}
