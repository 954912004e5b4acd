// Command genvocab writes the vocabulary tables budget embeds, from
// github.com/tiktoken-go/tokenizer's vocabularies: go generate ./budget.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/toolwire/toolwire/budget/internal/vocab"
	"github.com/toolwire/toolwire/budget/internal/vocab/fromlib"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genvocab DIR")
		os.Exit(2)
	}
	for _, v := range []struct {
		file string
		c    *codec.Codec
	}{{"o200k_base.vocab", codec.NewO200kBase()}, {"cl100k_base.vocab", codec.NewCl100kBase()}} {
		toks := fromlib.Tokens(v.c)
		path := filepath.Join(os.Args[1], v.file)
		if err := os.WriteFile(path, vocab.Append(nil, toks), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "genvocab:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d tokens\n", path, len(toks))
	}
}
