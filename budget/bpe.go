package budget

import (
	_ "embed"
	"math"
	"sync"
)

// A tokenizer counts the tokens of an encoding: its pre-tokenizer splits
// a text into pieces, and each piece is one token when the vocabulary
// has it, else as many as byte-pair merging leaves. It holds only
// immutable tables, shared by every counter of the encoding.
type tokenizer struct {
	split splitter
	o200k bool // split is splitO200k, else splitCl100k
	cls   *classes
	ranks *rankTable
	memos *sync.Pool // of *memo; nil counts without one
}

// A memo remembers the token counts of short pieces: the pieces a text
// repeats (keys, words, punctuation) are counted once and found in a
// table small enough to stay in the processor's cache, where the ranks
// are not. A count takes a memo from a pool for its duration, so memos
// are never shared and need no lock.
type memo struct {
	entries [memoSize]memoEntry
}

const (
	memoSize  = 4096 // entries, a power of two
	memoPiece = 22   // the longest piece remembered, in bytes
)

type memoEntry struct {
	piece [memoPiece]byte
	len   uint8 // 0: empty
	count uint8
}

// The vocabularies, made from github.com/tiktoken-go/tokenizer's by
// internal/genvocab (TestVocabularies holds them equal): reading these
// tables takes a few milliseconds where building the library's own takes
// about 75 (see the commit that added them).
//
//go:generate go run ./internal/genvocab .
var (
	//go:embed o200k_base.vocab
	o200kVocab string
	//go:embed cl100k_base.vocab
	cl100kVocab string
)

// Built once per process per encoding from the tables above: immutable
// once built.
var (
	classesOnce sync.Once
	classTable  *classes
	tokenizers  [2]struct {
		once sync.Once
		t    *tokenizer
	}
)

// tokenizerFor returns the tokenizer of o200k_base or cl100k_base.
func tokenizerFor(e Encoding) *tokenizer {
	classesOnce.Do(func() { classTable = newClasses() })
	i, split, table, size := 0, splitter(splitO200k), o200kVocab, 200_000
	if e == Cl100kBase {
		i, split, table, size = 1, splitCl100k, cl100kVocab, 100_256
	}
	tk := &tokenizers[i]
	tk.once.Do(func() {
		tk.t = &tokenizer{split: split, o200k: i == 0, cls: classTable, ranks: ranksOf(table, size),
			memos: &sync.Pool{New: func() any { return new(memo) }}}
	})
	return tk.t
}

// count returns the number of tokens in s.
func (t *tokenizer) count(s string) int {
	var m *memo
	if t.memos != nil {
		m = t.memos.Get().(*memo)
		defer t.memos.Put(m)
	}
	n := 0
	for i := 0; i < len(s); {
		e := t.split(t.cls, s, i)
		if e < 0 {
			_, size, _ := t.cls.at(s, i)
			i += size
			continue
		}
		piece := s[i:e]
		i = e
		switch {
		case len(piece) == 1: // every byte is a token
			n++
			continue
		case len(piece) == 2: // a token, else its two bytes
			n++
			if t.ranks.pairs[uint16(piece[0])<<8|uint16(piece[1])] == noRank {
				n++
			}
			continue
		}
		if m == nil || len(piece) > memoPiece {
			n += t.pieceTokens(piece)
			continue
		}
		slot := &m.entries[rankHash(piece)&(memoSize-1)]
		if int(slot.len) == len(piece) && string(slot.piece[:slot.len]) == piece {
			n += int(slot.count)
			continue
		}
		c := t.pieceTokens(piece)
		slot.len, slot.count = uint8(len(piece)), uint8(c)
		copy(slot.piece[:], piece)
		n += c
	}
	return n
}

// prefixMargin is how far past the end of a piece the ASCII matcher
// (asciiPiece) may look to decide it: a contraction's three bytes, or a
// rune of four.
const prefixMargin = 8

// countPrefix returns the tokens of the pieces s begins with that no text
// appended to s can change, and where they end: for every more,
// count(s+more) == tokens + count(s[end:]+more).
//
// They are the pieces up to the last one the ASCII matcher decided that
// ends prefixMargin bytes before the end of s: that one ends there
// whatever follows, and so does every piece before it, since a matcher
// that looks far ahead (through a run of capitals, of white space) reads
// runes that the pieces after it cover, up to the end of that ASCII
// piece at least (TestCountPrefix).
func (t *tokenizer) countPrefix(s string) (tokens, end int) {
	var m *memo
	if t.memos != nil {
		m = t.memos.Get().(*memo)
		defer t.memos.Put(m)
	}
	limit := len(s) - prefixMargin
	n := 0
	for i := 0; i < len(s); {
		// split would call the ASCII matcher first too.
		e := t.ascii(s, i)
		ascii := e > 0
		if !ascii {
			e = t.split(t.cls, s, i)
		}
		if e < 0 {
			_, size, _ := t.cls.at(s, i)
			i += size
			continue
		}
		if e > limit {
			break
		}
		n += t.piece(m, s[i:e])
		if ascii {
			tokens, end = n, e
		}
		i = e
	}
	return tokens, end
}

// ascii returns the end of the piece at s[i] when the ASCII matcher
// decides it, else 0: what the splitter returns first.
func (t *tokenizer) ascii(s string, i int) int {
	if !t.o200k {
		if n := matchContraction(s, i); n > 0 {
			return i + n
		}
	}
	return asciiPiece(t.cls, s, i, t.o200k)
}

// piece returns the number of tokens of one piece, as count counts it.
func (t *tokenizer) piece(m *memo, piece string) int {
	switch {
	case len(piece) == 1:
		return 1
	case len(piece) == 2:
		if t.ranks.pairs[uint16(piece[0])<<8|uint16(piece[1])] == noRank {
			return 2
		}
		return 1
	case m == nil || len(piece) > memoPiece:
		return t.pieceTokens(piece)
	}
	slot := &m.entries[rankHash(piece)&(memoSize-1)]
	if int(slot.len) == len(piece) && string(slot.piece[:slot.len]) == piece {
		return int(slot.count)
	}
	c := t.pieceTokens(piece)
	slot.len, slot.count = uint8(len(piece)), uint8(c)
	copy(slot.piece[:], piece)
	return c
}

// pieceTokens returns the number of tokens byte-pair merging turns piece
// into: the library's mergePairs, counting only.
func (t *tokenizer) pieceTokens(piece string) int {
	if len(piece) == 1 || t.rank(piece) != noRank {
		return 1 // a byte, or a token of the vocabulary
	}
	if len(piece) < mergeHeapThreshold {
		return t.mergeScan(piece)
	}
	return t.mergeHeap(piece)
}

// mergeHeapThreshold is the piece length from which merging keeps its
// candidates in a heap rather than scanning for the lowest rank.
const mergeHeapThreshold = 96

const noRank = math.MaxUint32

func (t *tokenizer) rank(piece string) uint32 { return t.ranks.rank(piece) }

// mergeScan repeatedly merges the leftmost pair of parts with the lowest
// rank, found by a linear scan: O(n²), without allocating.
func (t *tokenizer) mergeScan(piece string) int {
	type part struct {
		off  int32
		rank uint32 // of this part merged with the next
	}
	var buf [mergeHeapThreshold + 1]part
	parts := buf[:len(piece)+1]
	for i := range parts {
		parts[i] = part{int32(i), noRank}
	}
	rankAt := func(i, skip int) uint32 {
		if i+skip+2 < len(parts) {
			return t.rank(piece[parts[i].off:parts[i+skip+2].off])
		}
		return noRank
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rankAt(i, 0)
	}
	for len(parts) > 1 {
		minRank, minIndex := uint32(noRank), 0
		for i, p := range parts[:len(parts)-1] {
			if p.rank < minRank {
				minRank, minIndex = p.rank, i
			}
		}
		if minRank == noRank {
			break
		}
		parts[minIndex].rank = rankAt(minIndex, 1)
		if minIndex > 0 {
			parts[minIndex-1].rank = rankAt(minIndex-1, 1)
		}
		parts = append(parts[:minIndex+1], parts[minIndex+2:]...)
	}
	return len(parts) - 1
}

// mergeNode is a part boundary in mergeHeap's doubly linked list; rank is
// that of the token this part and the next one merge into.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

type mergeCandidate struct {
	rank   uint32
	offset int32
}

// mergeHeap returns what mergeScan does, in O(n log n).
func (t *tokenizer) mergeHeap(piece string) int {
	n := int32(len(piece))
	nodes := make([]mergeNode, n+1)
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		return t.rank(piece[i:k])
	}
	h := make(candidateHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := rankOf(i); r != noRank {
			nodes[i].rank = r
			h = append(h, mergeCandidate{r, i})
		}
	}
	h.init()
	parts := int(n)
	for len(h) > 0 {
		top := h.pop()
		i := top.offset
		if nodes[i].rank != top.rank {
			continue // stale
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		parts--
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankOf(b)
			if nodes[b].rank != noRank {
				h.push(mergeCandidate{nodes[b].rank, b})
			}
		}
	}
	return parts
}

// candidateHeap is a binary min-heap of merge candidates by rank, then
// offset, so that among equal ranks the leftmost pair merges first.
type candidateHeap []mergeCandidate

func (h candidateHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].offset < h[b].offset
}

func (h candidateHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *candidateHeap) push(c mergeCandidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *candidateHeap) pop() mergeCandidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h candidateHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h candidateHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
