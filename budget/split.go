package budget

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers of o200k_base and cl100k_base, written by hand.
//
// The exact counts are those of github.com/tiktoken-go/tokenizer, whose
// pre-tokenizer is a regular expression compiled by regexp2cg (the
// patterns are in its codec/o200k_base.go and codec/cl100k_base.go).
// These functions return, piece by piece, the matches that code returns,
// byte for byte — its two departures from OpenAI's own tokenizer
// included, because a count must not change:
//
//   - DEL (U+007F) is in none of its ASCII bitmaps, so no alternative
//     matches it and the scan skips it: DEL costs no token.
//   - `\s*[\r\n]+` backtracks to the first line break of the white space
//     run, not the last, so "\n \n  x" splits as "\n", " \n", " ", " x".
//
// TestClasses holds the character classes to regexp2's for every rune;
// FuzzExactCount holds the counts to the library's on any text.

// Character classes, as bits.
const (
	cUpper  = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cLetter             // \p{L}
	cDigit              // \p{N}
	cSpace              // \s: unicode.IsSpace
	cPrefix             // [^\r\n\p{L}\p{N}], the optional character before a word
	cPunct              // [^\s\p{L}\p{N}]
)

// The ASCII bitmaps of the two negated sets as the generated matcher has
// them (bit b of lo is character b, bit b of hi is character 64+b):
// neither has bit 63 of hi, DEL.
const (
	prefixLo, prefixHi = 0xfc00ffffffffdbff, 0x78000001f8000001
	punctLo, punctHi   = 0xfc00fffeffffc1ff, 0x78000001f8000001
)

// classOf returns the classes of r, from the Unicode tables.
func classOf(r rune) uint8 {
	var c uint8
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cUpper
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= cLower
	}
	letter, digit, space := unicode.In(r, unicode.L), unicode.In(r, unicode.N), unicode.IsSpace(r)
	if letter {
		c |= cLetter
	}
	if digit {
		c |= cDigit
	}
	if space {
		c |= cSpace
	}
	if r < 128 {
		if inBitmap(r, prefixLo, prefixHi) {
			c |= cPrefix
		}
		if inBitmap(r, punctLo, punctHi) {
			c |= cPunct
		}
		return c
	}
	if !letter && !digit {
		c |= cPrefix
		if !space {
			c |= cPunct
		}
	}
	return c
}

func inBitmap(r rune, lo, hi uint64) bool {
	if r < 64 {
		return lo&(1<<uint(r)) != 0
	}
	return hi&(1<<uint(r-64)) != 0
}

// classes holds the classes of the Basic Multilingual Plane; the other
// planes are looked up in the Unicode tables.
type classes [0x10000]uint8

// newClasses builds the table from the Unicode range tables rather than
// rune by rune (TestClasses holds it to classOf for every rune).
func newClasses() *classes {
	var t classes
	for r := range rune(256) {
		t[r] = classOf(r)
	}
	set := func(tab *unicode.RangeTable, c uint8) {
		for _, g := range tab.R16 {
			for r := int(g.Lo); r <= int(g.Hi); r += int(g.Stride) {
				if r >= 256 {
					t[r] |= c
				}
			}
		}
		for _, g := range tab.R32 {
			for r := g.Lo; r <= g.Hi && r < uint32(len(t)); r += g.Stride {
				if r >= 256 {
					t[r] |= c
				}
			}
		}
	}
	for _, x := range []struct {
		tab *unicode.RangeTable
		c   uint8
	}{
		{unicode.Lu, cUpper}, {unicode.Lt, cUpper}, {unicode.Ll, cLower},
		{unicode.Lm, cUpper | cLower}, {unicode.Lo, cUpper | cLower}, {unicode.M, cUpper | cLower},
		{unicode.L, cLetter}, {unicode.N, cDigit}, {unicode.White_Space, cSpace},
	} {
		set(x.tab, x.c)
	}
	for r := 256; r < len(t); r++ {
		if t[r]&(cLetter|cDigit) == 0 {
			t[r] |= cPrefix
			if t[r]&cSpace == 0 {
				t[r] |= cPunct
			}
		}
	}
	return &t
}

// at returns the rune at s[i], its size and its classes.
func (t *classes) at(s string, i int) (rune, int, uint8) {
	if b := s[i]; b < utf8.RuneSelf {
		return rune(b), 1, t[b]
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r < 0x10000 {
		return r, n, t[r]
	}
	return r, n, classOf(r)
}

// run returns the end of the run of runes from i that have a class in c.
func (t *classes) run(s string, i int, c uint8) int {
	for i < len(s) {
		_, n, k := t.at(s, i)
		if k&c == 0 {
			break
		}
		i += n
	}
	return i
}

// A splitter returns the end of the piece that starts at s[i], or -1
// when no alternative of the pattern matches there (the scan then skips
// the rune). i < len(s), and s is valid UTF-8.
type splitter func(t *classes, s string, i int) int

// splitO200k is the o200k_base pattern:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitO200k(t *classes, s string, i int) int {
	if e := asciiPiece(t, s, i, true); e > 0 {
		return e
	}
	_, n0, c0 := t.at(s, i)
	if c0&(cUpper|cLower|cPrefix) != 0 {
		// The two word alternatives, each first with the prefix
		// character (when there is one) and then without.
		for alt := range 2 {
			for _, p := range [2]int{i + n0, i} {
				if p == i+n0 && c0&cPrefix == 0 {
					continue
				}
				var e int
				if alt == 0 {
					e = lowerWord(t, s, p)
				} else {
					e = upperWord(t, s, p)
				}
				if e >= 0 {
					return contraction(s, e)
				}
			}
		}
	}
	return rest(t, s, i, c0, true)
}

// lowerWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// at p, backtracking the first loop as the regular expression does.
func lowerWord(t *classes, s string, p int) int {
	u := t.run(s, p, cUpper)
	for j := u; ; {
		if j < len(s) {
			if _, n, c := t.at(s, j); c&cLower != 0 {
				return t.run(s, j+n, cLower)
			}
		}
		if j == p {
			return -1
		}
		_, n := utf8.DecodeLastRuneInString(s[p:j])
		j -= n
	}
}

// upperWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* at p.
func upperWord(t *classes, s string, p int) int {
	u := t.run(s, p, cUpper)
	if u == p {
		return -1
	}
	return t.run(s, u, cLower)
}

// contraction extends a word ending at e by (?i:'s|'t|'re|'ve|'m|'ll|'d)
// when one follows ('ſ' is a case variant of 's').
func contraction(s string, e int) int {
	if n := matchContraction(s, e); n > 0 {
		return e + n
	}
	return e
}

// matchContraction returns the length of the contraction at s[e], or 0.
func matchContraction(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return 0
	}
	switch s[e+1] {
	case 'S', 'T', 's', 't', 'M', 'm', 'D', 'd':
		return 2
	case 'R', 'r', 'V', 'v':
		if e+2 < len(s) && s[e+2]|0x20 == 'e' {
			return 3
		}
	case 'L', 'l':
		if e+2 < len(s) && s[e+2]|0x20 == 'l' {
			return 3
		}
	case 0xC5: // 'ſ' is C5 BF
		if e+2 < len(s) && s[e+2] == 0xBF {
			return 3
		}
	}
	return 0
}

// splitCl100k is the cl100k_base pattern:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitCl100k(t *classes, s string, i int) int {
	if n := matchContraction(s, i); n > 0 {
		return i + n
	}
	if e := asciiPiece(t, s, i, false); e > 0 {
		return e
	}
	_, n0, c0 := t.at(s, i)
	if c0&cPrefix != 0 && i+n0 < len(s) {
		if _, _, c := t.at(s, i+n0); c&cLetter != 0 {
			return t.run(s, i+n0, cLetter)
		}
	}
	if c0&cLetter != 0 {
		return t.run(s, i, cLetter)
	}
	return rest(t, s, i, c0, false)
}

// asciiPiece is the common case of both patterns, a piece of ASCII
// characters followed by an ASCII character or the end of the text: it
// returns the end of that piece, or 0 when the general matcher must
// decide, because a character it looked at is not ASCII or the piece is
// white space. o200k says which pattern: its words are split at case
// changes (an upper-case run then a lower-case one) and may end with a
// contraction; cl100k_base's are runs of letters, and it matched
// contractions before calling.
func asciiPiece(t *classes, s string, i int, o200k bool) int {
	b := s[i]
	if b >= utf8.RuneSelf {
		return 0
	}
	c := t[b]
	j := i
	if c&cPrefix != 0 && j+1 < len(s) {
		if n := s[j+1]; n >= utf8.RuneSelf {
			return 0
		} else if t[n]&cLetter != 0 {
			j++
			c = t[n]
		}
	}
	switch {
	case c&cLetter != 0:
		j++
		if o200k {
			if c&cUpper != 0 {
				for j < len(s) && s[j] < utf8.RuneSelf && t[s[j]]&cUpper != 0 {
					j++
				}
			}
			for j < len(s) && s[j] < utf8.RuneSelf && t[s[j]]&cLower != 0 {
				j++
			}
		} else {
			for j < len(s) && s[j] < utf8.RuneSelf && t[s[j]]&cLetter != 0 {
				j++
			}
		}
		if j < len(s) && s[j] >= utf8.RuneSelf {
			return 0
		}
		if o200k {
			return contraction(s, j)
		}
		return j
	case c&cDigit != 0:
		for j++; j < len(s) && j < i+3; j++ {
			if s[j] >= utf8.RuneSelf {
				return 0
			}
			if t[s[j]]&cDigit == 0 {
				break
			}
		}
		return j
	case c&cPunct != 0 || b == ' ' && j+1 < len(s) && t[s[j+1]&0x7f]&cPunct != 0 && s[j+1] < utf8.RuneSelf:
		if b == ' ' {
			j++
		}
		for j < len(s) && s[j] < utf8.RuneSelf && t[s[j]]&cPunct != 0 {
			j++
		}
		if j < len(s) && s[j] >= utf8.RuneSelf {
			return 0
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n' || o200k && s[j] == '/') {
			j++
		}
		return j
	}
	return 0
}

// rest matches the alternatives the two patterns share after the words:
// \p{N}{1,3}, ` ?[^\s\p{L}\p{N}]+` followed by [\r\n/]* (slash) or
// [\r\n]*, then the white space ones.
func rest(t *classes, s string, i int, c0 uint8, slash bool) int {
	if c0&cDigit != 0 {
		e := i
		for range 3 {
			if e >= len(s) {
				break
			}
			_, n, c := t.at(s, e)
			if c&cDigit == 0 {
				break
			}
			e += n
		}
		return e
	}
	p := i
	if s[p] == ' ' {
		p++
	}
	if e := t.run(s, p, cPunct); e > p {
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || slash && s[e] == '/') {
			e++
		}
		return e
	}
	w := t.run(s, i, cSpace)
	if w == i {
		return -1
	}
	// \s*[\r\n]+, backtracking to the first line break (see above).
	for f := i; f < w; f++ {
		if s[f] == '\r' || s[f] == '\n' {
			for f < len(s) && (s[f] == '\r' || s[f] == '\n') {
				f++
			}
			return f
		}
	}
	// \s+(?!\S): all of it at the end of the text, else all but its last
	// character, which goes with what follows.
	if w == len(s) {
		return w
	}
	if _, n := utf8.DecodeLastRuneInString(s[i:w]); w-n > i {
		return w - n
	}
	return w // \s+
}
