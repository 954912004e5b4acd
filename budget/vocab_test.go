package budget

import (
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/toolwire/toolwire/budget/internal/vocab"
	"github.com/toolwire/toolwire/budget/internal/vocab/fromlib"
)

// TestVocabularies holds the embedded tables equal to the library's
// vocabularies they are made from (go generate ./budget remakes them).
func TestVocabularies(t *testing.T) {
	for _, v := range []struct {
		name  string
		table string
		c     *codec.Codec
	}{{"o200k_base", o200kVocab, codec.NewO200kBase()}, {"cl100k_base", cl100kVocab, codec.NewCl100kBase()}} {
		want := fromlib.Tokens(v.c)
		var got []vocab.Token
		if _, err := vocab.Read(v.table, func(rank uint32, off, size int) {
			got = append(got, vocab.Token{Rank: rank, Bytes: v.table[off : off+size]})
		}); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d tokens embedded, the library has %d (run go generate ./budget)", v.name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: token %d is %+v, the library's %+v (run go generate ./budget)", v.name, i, got[i], want[i])
			}
		}
	}
}
