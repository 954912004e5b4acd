// Package fromlib reads the vocabularies of
// github.com/tiktoken-go/tokenizer, which budget's embedded tables are
// made from (budget/internal/genvocab) and held equal to (its tests).
// Only the generator and tests import it: budget itself does not pull
// the library into a program.
package fromlib

import (
	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/toolwire/toolwire/budget/internal/vocab"
)

// Tokens reads a codec's vocabulary through its public API: the token of
// each id, decoded one at a time, until a long run of ids has none.
func Tokens(c *codec.Codec) []vocab.Token {
	var toks []vocab.Token
	id := []uint{0}
	for i, misses := uint(0), 0; misses < 1024; i++ {
		id[0] = i
		s, err := c.Decode(id)
		if err != nil || s == "" {
			misses++
			continue
		}
		misses = 0
		toks = append(toks, vocab.Token{Rank: uint32(i), Bytes: s})
	}
	return toks
}
