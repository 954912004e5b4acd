package anthropic

import (
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
)

// TestDecodeAfter decodes every test body split in two at each element
// of its messages array, the second part after the first, and wants the
// request decoding it whole gives. The last body has what the archives
// lack: role "system" messages before the others (ANT-SYSTEM-ROLE) beside
// a system field, and a result whose content is an object (ANT-JSON-TYPE).
func TestDecodeAfter(t *testing.T) {
	codectest.AfterFiles(t, "testdata/roundtrip/*.txtar", "messages", Decode, DecodeAfter, nil,
		`{"model":"m","max_tokens":9,"system":"Be brief.","messages":[{"role":"system","content":"One."},{"role":"system","content":[{"type":"text","text":"Two."}]},`+
			`{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},`+
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":{"a":1}}]},{"role":"system","content":"Late."}]}`)
}

// FuzzDecodeAfter is TestDecodeAfter for any body.
func FuzzDecodeAfter(f *testing.F) {
	codectest.FuzzAfter(f, "testdata/roundtrip/*.txtar", "messages", Decode, DecodeAfter, nil)
}
