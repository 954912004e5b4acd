package anthropic

import (
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// TestDecodeAfter decodes every test body split in two at each element
// of its messages array, the second part after the first, and wants the
// request decoding it whole gives.
func TestDecodeAfter(t *testing.T) {
	codectest.AfterFiles(t, "testdata/roundtrip/*.txtar", "messages", Decode, DecodeAfter, same)
	// What the archives lack: role "system" messages before the others
	// (ANT-SYSTEM-ROLE), beside a system field, and a result whose
	// content is an object (ANT-JSON-TYPE).
	for _, body := range []string{
		`{"model":"m","max_tokens":9,"system":"Be brief.","messages":[{"role":"system","content":"One."},{"role":"system","content":[{"type":"text","text":"Two."}]},` +
			`{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":{"a":1}}]},{"role":"system","content":"Late."}]}`,
	} {
		s, ok := codectest.SplitArray([]byte(body), "messages")
		if !ok {
			t.Fatalf("no messages array in %s", body)
		}
		codectest.After(t, body, s, Decode, DecodeAfter, same)
	}
}

// FuzzDecodeAfter is TestDecodeAfter for any body.
func FuzzDecodeAfter(f *testing.F) {
	codectest.FuzzAfter(f, "testdata/roundtrip/*.txtar", "messages", Decode, DecodeAfter, same)
}

func same(got, want *Request) bool { return reflect.DeepEqual(got, want) }
