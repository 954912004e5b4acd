package budget

import (
	"math/bits"

	"github.com/toolwire/toolwire/budget/internal/vocab"
)

// rankTable maps the tokens of a vocabulary to their ranks (their ids):
// an open-addressing hash table of token numbers over the embedded table
// itself, which holds every token (about 3 MB more for o200k_base's
// 200,000 tokens, where a map[string]uint32 takes 8), built in a few
// milliseconds.
type rankTable struct {
	blob  string
	toks  []rankedToken
	slots []uint32 // 1 + an index in toks; 0: empty
	mask  uint32
	pairs [1 << 16]uint32 // the rank of each two-byte token, noRank for the others
}

type rankedToken struct {
	off  uint32
	len  uint32
	rank uint32
}

// ranksOf reads a vocabulary table of about size tokens (see
// internal/vocab) into a rankTable whose tokens are slices of it.
func ranksOf(table string, size int) *rankTable {
	t := &rankTable{blob: table, toks: make([]rankedToken, 0, size)}
	if _, err := vocab.Read(table, func(rank uint32, off, size int) {
		t.toks = append(t.toks, rankedToken{uint32(off), uint32(size), rank})
	}); err != nil {
		panic("budget: the embedded vocabulary is damaged: " + err.Error()) // a build defect, caught by TestVocabularies
	}
	slots := 1 << bits.Len(uint(len(t.toks))*2) // at most half full
	t.slots = make([]uint32, slots)
	t.mask = uint32(slots - 1)
	for i := range t.pairs {
		t.pairs[i] = noRank
	}
	for i, tok := range t.toks {
		s := t.blob[tok.off : tok.off+tok.len]
		if len(s) == 2 {
			t.pairs[uint16(s[0])<<8|uint16(s[1])] = tok.rank
		}
		h := rankHash(s) & t.mask
		for t.slots[h] != 0 {
			h = (h + 1) & t.mask
		}
		t.slots[h] = uint32(i + 1)
	}
	return t
}

// rank returns the rank of the token s, or noRank when s is not one.
func (t *rankTable) rank(s string) uint32 {
	if len(s) == 2 {
		return t.pairs[uint16(s[0])<<8|uint16(s[1])]
	}
	for h := rankHash(s) & t.mask; ; h = (h + 1) & t.mask {
		i := t.slots[h]
		if i == 0 {
			return noRank
		}
		tok := &t.toks[i-1]
		if int(tok.len) == len(s) && t.blob[tok.off:tok.off+tok.len] == s {
			return tok.rank
		}
	}
}

// rankHash is FNV-1a, folded so that the low bits depend on every byte.
func rankHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h ^ h>>15
}
