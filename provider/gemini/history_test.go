package gemini

import (
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// TestDecodeAfter decodes every test body split in two at each element
// of its contents array, the second part after the first, and wants the
// request decoding it whole gives.
func TestDecodeAfter(t *testing.T) {
	codectest.AfterFiles(t, "testdata/roundtrip/*.txtar", "contents", Decode, DecodeAfter, same)
	// What the archives lack: contents whose role is written after their
	// parts, or is "assistant" (GEM-ROLE), beside a system instruction.
	for _, body := range []string{
		`{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"parts":[{"text":"q"}],"role":"user"},` +
			`{"role":"assistant","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"r"}}}]},{"parts":[{"text":"more"}]}]}`,
	} {
		s, ok := codectest.SplitArray([]byte(body), "contents")
		if !ok {
			t.Fatalf("no contents array in %s", body)
		}
		codectest.After(t, body, s, Decode, DecodeAfter, same)
	}
}

// FuzzDecodeAfter is TestDecodeAfter for any body.
func FuzzDecodeAfter(f *testing.F) {
	codectest.FuzzAfter(f, "testdata/roundtrip/*.txtar", "contents", Decode, DecodeAfter, same)
}

func same(got, want *Request) bool { return reflect.DeepEqual(got, want) }
