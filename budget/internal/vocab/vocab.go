// Package vocab reads and writes the vocabularies of the exact token
// counters in the compact form budget embeds: for each token, in the
// order of its rank, the rank and the token's bytes. The tables are made
// from github.com/tiktoken-go/tokenizer's vocabularies by
// budget/internal/genvocab (go generate ./budget), and a test holds them
// equal to the library's; reading one takes a few milliseconds where
// building the library's own takes tens.
package vocab

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// magic starts every table; the digit is the format's version.
const magic = "toolwire-vocab-1\n"

// A Token is one token of a vocabulary and its rank (its id).
type Token struct {
	Rank  uint32
	Bytes string
}

// Append writes toks, in rank order, as a table after dst.
func Append(dst []byte, toks []Token) []byte {
	dst = append(dst, magic...)
	dst = binary.AppendUvarint(dst, uint64(len(toks)))
	prev := uint32(0)
	for i, t := range toks {
		gap := t.Rank - prev
		if i == 0 {
			gap = t.Rank
		}
		dst = binary.AppendUvarint(dst, uint64(gap))
		dst = binary.AppendUvarint(dst, uint64(len(t.Bytes)))
		dst = append(dst, t.Bytes...)
		prev = t.Rank
	}
	return dst
}

// Read calls fn with each token of the table data, in rank order: its
// rank and where its bytes are in data (data[off:off+size]), so that a
// caller can keep data as the one string of all tokens. It fails on a
// table that is not one.
func Read(data string, fn func(rank uint32, off, size int)) (n int, err error) {
	if len(data) < len(magic) || data[:len(magic)] != magic {
		return 0, errors.New("vocab: not a vocabulary table")
	}
	p := len(magic)
	count, k := uvarint(data[p:])
	if k <= 0 {
		return 0, errors.New("vocab: the table has no token count")
	}
	p += k
	rank := uint64(0)
	for i := uint64(0); i < count; i++ {
		gap, k1 := uvarint(data[p:])
		if k1 <= 0 {
			return int(i), fmt.Errorf("vocab: token %d: bad rank", i)
		}
		size, k2 := uvarint(data[p+k1:])
		if k2 <= 0 || uint64(len(data)-p-k1-k2) < size {
			return int(i), fmt.Errorf("vocab: token %d: bad length", i)
		}
		if i > 0 && gap == 0 {
			return int(i), fmt.Errorf("vocab: token %d: rank not increasing", i)
		}
		rank += gap
		if rank > 1<<31 {
			return int(i), fmt.Errorf("vocab: token %d: rank %d too large", i, rank)
		}
		fn(uint32(rank), p+k1+k2, int(size))
		p += k1 + k2 + int(size)
	}
	if p != len(data) {
		return int(count), errors.New("vocab: data after the last token")
	}
	return int(count), nil
}

// uvarint is binary.Uvarint on a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<(7*i), i + 1
		}
		x |= uint64(b&0x7f) << (7 * i)
	}
	return 0, 0
}
