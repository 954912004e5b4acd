package mcptool_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool/mcptool"
)

// FuzzEnvelope: whatever a server returns, Envelope gives an envelope of
// a known status, an error of a known type exactly when it failed, and
// one that renders.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hello"}]}`,
		`{"content":[{"type":"text","text":"{\"a\":[1,2]}"}],"structuredContent":{"a":[1,2]}}`,
		`{"content":[{"type":"text","text":"not found: order 7"}],"isError":true}`,
		`{"content":[{"type":"text","text":"{\"status\":\"error\",\"summary\":\"x\",\"error\":{\"type\":\"rate_limited\",\"message\":\"slow down\",\"retryable\":true}}"}],"isError":true}`,
		`{"content":[],"isError":true,"structuredContent":{"error":{"type":"conflict","message":"exists"}}}`,
		`{"content":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="},{"type":"audio","mimeType":"audio/wav","data":"UklGRg=="}]}`,
		`{"content":[{"type":"resource_link","uri":"file:///a","name":"a","size":-1},{"type":"resource","resource":{"uri":"x:","blob":"AAE="}}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"x:","text":"\xff"}}]}`,
		`{"content":[{"type":"text","text":"` + string(make([]byte, 300)) + `"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var res mcp.CallToolResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		env := mcptool.Envelope(&res, 256)
		if !env.Status.Valid() {
			t.Fatalf("status %q", env.Status)
		}
		if (env.Status == llm.StatusError) != (env.Error != nil) {
			t.Fatalf("status %s with error %+v", env.Status, env.Error)
		}
		if env.Error != nil && !env.Error.Type.Valid() {
			t.Fatalf("error type %q", env.Error.Type)
		}
		if env.Summary == "" {
			env.Summary = "s" // the executor writes one
		}
		if _, err := env.MarshalJSON(); err != nil {
			t.Fatalf("the envelope does not render: %v", err)
		}
	})
}
