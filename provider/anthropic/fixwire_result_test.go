package anthropic

import (
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

// TestFixWireResultContent checks that a tool_result whose content is an
// object (ANT-JSON-TYPE) is read, listed in Wire, written back as it was
// without FixWire, and with FixWire as the string of its JSON, which the
// check then accepts.
func TestFixWireResultContent(t *testing.T) {
	body := `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":{"temp":18},"cache_control":{"type":"ephemeral"}},{"type":"text","text":"and?"}]}]}`
	want := `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"{\"temp\":18}","cache_control":{"type":"ephemeral"}},{"type":"text","text":"and?"}]}]}`
	r, err := Decode([]byte(body))
	if err != nil {
		t.Fatalf("Decode(%s) error = %v, want ANT-JSON-TYPE in Wire", body, err)
	}
	if len(r.Wire) != 1 || r.Wire[0].Rule != "ANT-JSON-TYPE" || r.Wire[0].Path != "messages.2.content.0.content" {
		t.Fatalf("Decode(%s) Wire = %v, want ANT-JSON-TYPE at messages.2.content.0.content", body, r.Wire)
	}
	if got, _, err := Encode(r); err != nil || string(got) != body {
		t.Errorf("Encode(Decode(%s)) = %s, %v; want it unchanged without FixWire", body, got, err)
	}
	r.FixWire = true
	got, warns, err := Encode(r)
	if err != nil || string(got) != want || len(warns) != 0 {
		t.Errorf("Encode(%s) with FixWire = %s, %v, %v; want\n%s", body, got, warns, err, want)
	}
	back, err := Decode(got)
	if err != nil {
		t.Fatalf("Decode(%s) error: %v", got, err)
	}
	if vs := append(back.Wire, transcript.CheckRequest(transcript.Request{Messages: back.Messages}, Dialect)...); !transcript.Accepted(vs) {
		t.Errorf("check of %s = %v, want accepted", got, vs)
	}
}
