package openai

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// addSeeds adds every test body of a dialect to the fuzz corpus, besides
// the committed corpus under testdata/fuzz/.
func addSeeds(f *testing.F, dialect string) {
	files, err := filepath.Glob(filepath.Join("testdata", dialect, "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// fuzzCodec checks the codec contract on arbitrary bytes: decoding never
// panics and fails only with a *DecodeError; whatever decodes re-encodes
// without error to a body that decodes to the same llm form and encodes to
// the same bytes.
func fuzzCodec(t *testing.T, c codec, body []byte) {
	_, err := c.decode(body)
	if err != nil {
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("%s: decode(%q) error %T (%v), want *DecodeError", c.name, body, err, err)
		}
		return
	}
	checkStable(t, c, body)
}

func FuzzDecodeChat(f *testing.F) {
	addSeeds(f, "chat")
	f.Fuzz(func(t *testing.T, body []byte) { fuzzCodec(t, codecs[0], body) })
}

func FuzzDecodeResponses(f *testing.F) {
	addSeeds(f, "responses")
	f.Fuzz(func(t *testing.T, body []byte) { fuzzCodec(t, codecs[1], body) })
}
