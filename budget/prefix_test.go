package budget

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// prefixAlphabet holds the runes whose pieces look far ahead or depend
// on what follows: upper- and lower-case letters, letters of both cases
// (Lo: Han), marks, digits, white space and line breaks, punctuation,
// apostrophes of contractions, DEL, and an invalid byte.
var prefixAlphabet = []string{
	"a", "b", "s", "t", "l", "e", "A", "B", "Z", "É", "é", "中", "文", "\u0301", "ſ",
	"0", "7", "٣", " ", " ", "  ", "\t", "\n", "\r\n", "\u3000", "\u00a0",
	"'", "\"", ",", ":", "{", "}", "[", "]", "/", "«", "😀", "\x7f",
}

// randomText returns n runes of prefixAlphabet, JSON-like often.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		if r.IntN(8) == 0 {
			b.WriteString([]string{`{"id":`, `,"name":"`, `"},`, "'re ", "'ll", "ABCDEFGHIJ", "中文中文", "    \n  "}[r.IntN(8)])
			continue
		}
		b.WriteString(prefixAlphabet[r.IntN(len(prefixAlphabet))])
	}
	return b.String()
}

// TestCountPrefix holds CountPrefix to its contract: for every more,
// Count(text+more) == tokens + Count(text[n:]+more), in both encodings,
// on texts whose pieces look far ahead (runs of capitals, white space).
func TestCountPrefix(t *testing.T) {
	fixed := []struct{ text, more string }{
		{`{"status":"success","data":[{"id":1,"name":"record-000001"}`, `,"meta":{"tokens_after":731}}`},
		{"中ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abc"},
		{"中ABCDEFGHIJKLMNOPQRSTUVWXYZ", "1"},
		{"«ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abc"},
		{"word \n                    ", "\nx"},
		{"word \n                    ", "x"},
		{"hello world, it", "'s here"},
		{"hello world, it'", "s here"},
		{"12345678901234567890", "12"},
		{strings.Repeat("Ab ", 40), "cd"},
		{strings.Repeat("中", 40) + "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "é"},
		{"invalid \xff UTF-8 and then some more text", "x"},
	}
	r := rand.New(rand.NewPCG(1, 17))
	type pair struct{ text, more string }
	var cases []pair
	for _, f := range fixed {
		cases = append(cases, pair(f))
	}
	for range 3000 {
		cases = append(cases, pair{randomText(r, r.IntN(60)), randomText(r, r.IntN(20))})
	}
	for _, enc := range []Encoding{O200kBase, Cl100kBase} {
		c, err := NewExact(enc)
		if err != nil {
			t.Fatal(err)
		}
		counted := 0
		for _, p := range cases {
			tokens, n := c.CountPrefix(p.text)
			if n < 0 || n > len(p.text) {
				t.Fatalf("%s: CountPrefix(%q) = %d, %d: n outside the text", enc, p.text, tokens, n)
			}
			counted += n
			if got, want := tokens+c.Count(p.text[n:]+p.more), c.Count(p.text+p.more); got != want {
				t.Errorf("%s: CountPrefix(%q) = %d, %d; with %q after it that makes %d, want Count = %d", enc, p.text, tokens, n, p.more, got, want)
			}
			// The pieces too, not only their counts, which may agree
			// by chance.
			if !utf8.ValidString(p.text + p.more) {
				continue
			}
			got := append(ourPieces(c, p.text[:n]), ourPieces(c, p.text[n:]+p.more)...)
			if want := ourPieces(c, p.text+p.more); !slices.Equal(got, want) {
				t.Errorf("%s: CountPrefix(%q) = %d, %d; with %q after it, pieces %q, want %q", enc, p.text, tokens, n, p.more, got, want)
			}
		}
		if counted == 0 {
			t.Errorf("%s: CountPrefix counted no prefix of %d texts", enc, len(cases))
		}
	}
}
