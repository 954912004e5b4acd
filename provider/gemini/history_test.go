package gemini

import (
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// TestDecodeAfter decodes every test body split in two at each element
// of its contents array, the second part after the first, and wants the
// request decoding it whole gives. The last body has what the archives
// lack: contents whose role comes after their parts, or is "assistant"
// (GEM-ROLE), beside a system instruction.
func TestDecodeAfter(t *testing.T) {
	codectest.AfterFiles(t, "testdata/roundtrip/*.txtar", "contents", Decode, DecodeAfter, nil,
		`{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"parts":[{"text":"q"}],"role":"user"},`+
			`{"role":"assistant","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}}]},`+
			`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"r"}}}]},{"parts":[{"text":"more"}]}]}`)
}

// FuzzDecodeAfter is TestDecodeAfter for any body.
func FuzzDecodeAfter(f *testing.F) {
	codectest.FuzzAfter(f, "testdata/roundtrip/*.txtar", "contents", Decode, DecodeAfter, nil)
}
