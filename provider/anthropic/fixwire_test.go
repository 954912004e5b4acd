package anthropic

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

// TestFixWire checks that FixWire writes the role "system" messages that
// open a body's messages array (ANT-SYSTEM-ROLE) into the top-level system
// field, in order, without losing text or block fields, and that the body
// is then accepted; without FixWire the body comes back as it was.
func TestFixWire(t *testing.T) {
	tests := []struct {
		name, body, want string
		warn             string // a fragment of the one warning, if any
		rejected         bool   // the fixed body still breaks ANT-SYSTEM-ROLE
	}{
		{name: "string field and a string message",
			body: `{"model":"m","max_tokens":9,"system":"top","messages":[{"role":"system","content":"more"},{"role":"user","content":"q"}]}`,
			want: `{"model":"m","max_tokens":9,"system":[{"type":"text","text":"top"},{"type":"text","text":"more"}],"messages":[{"role":"user","content":"q"}]}`},
		{name: "no field, one message: a string",
			body: `{"model":"m","max_tokens":9,"messages":[{"role":"system","content":"only"},{"role":"user","content":"q"}]}`,
			want: `{"model":"m","max_tokens":9,"system":"only","messages":[{"role":"user","content":"q"}]}`},
		{name: "no field, one message of blocks: blocks",
			body: `{"max_tokens":9,"messages":[{"role":"system","content":[{"type":"text","text":"only","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":"q"}]}`,
			want: `{"max_tokens":9,"system":[{"type":"text","text":"only","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"q"}]}`},
		{name: "block field and several messages, fields kept",
			body: `{"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}],"max_tokens":9,"messages":[{"role":"system","content":"b"},{"role":"system","content":[{"type":"text","text":"c"},{"type":"text","text":"d"}]},{"role":"user","content":"q"}]}`,
			want: `{"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b"},{"type":"text","text":"c"},{"type":"text","text":"d"}],"max_tokens":9,"messages":[{"role":"user","content":"q"}]}`},
		{name: "system field after the messages keeps its place",
			body: `{"max_tokens":9,"messages":[{"role":"system","content":"b"},{"role":"user","content":"q"}],"system":"a"}`,
			want: `{"max_tokens":9,"messages":[{"role":"user","content":"q"}],"system":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`},
		{name: "a bare array has no field",
			body: `[{"role":"system","content":"s"},{"role":"user","content":"q"}]`,
			want: `[{"role":"system","content":"s"},{"role":"user","content":"q"}]`,
			warn: "a bare messages array has no top-level system field", rejected: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode([]byte(tt.body))
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", tt.body, err)
			}
			if len(r.Wire) == 0 || r.Wire[0].Rule != "ANT-SYSTEM-ROLE" {
				t.Fatalf("Decode(%s) Wire = %v, want ANT-SYSTEM-ROLE", tt.body, r.Wire)
			}
			if got, _, err := Encode(r); err != nil || string(got) != tt.body {
				t.Errorf("Encode(Decode(%s)) = %s, %v; want it unchanged without FixWire", tt.body, got, err)
			}
			r.FixWire = true
			got, warns, err := Encode(r)
			if err != nil {
				t.Fatalf("Encode(%s) with FixWire error: %v", tt.body, err)
			}
			if string(got) != tt.want {
				t.Errorf("Encode(%s) with FixWire =\n%s\nwant\n%s", tt.body, got, tt.want)
			}
			if tt.warn == "" && len(warns) > 0 || tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0].Message, tt.warn)) {
				t.Errorf("Encode(%s) with FixWire warnings = %v, want %q", tt.body, warns, tt.warn)
			}
			back, err := Decode(got)
			if err != nil {
				t.Fatalf("Decode(%s) error: %v", got, err)
			}
			vs := append(back.Wire, transcript.CheckRequest(transcript.Request{Messages: back.Messages}, Dialect)...)
			if transcript.Accepted(vs) == tt.rejected {
				t.Errorf("check of %s = %v, want accepted %v", got, vs, !tt.rejected)
			}
		})
	}
}

// TestFixWireAfterRepair checks that the system messages transcript.Repair
// moves to the start go into the top-level system field too, after the
// text there, when there is no field yet as well. Repair moves them for a
// model that rejects them mid-conversation (ANT-SYSTEM-ROLE is keyed on
// the model).
func TestFixWireAfterRepair(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"max_tokens":9,"system":"top","messages":[{"role":"user","content":"q"},{"role":"system","content":"mid"},{"role":"assistant","content":"a"}]}`,
			`{"max_tokens":9,"system":[{"type":"text","text":"top"},{"type":"text","text":"mid"}],"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}`},
		{`{"max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"system","content":"mid"},{"role":"assistant","content":"a"}]}`,
			`{"max_tokens":9,"system":"mid","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}`},
	} {
		r, err := Decode([]byte(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		fixed, _, err := transcript.RepairRequest(transcript.Request{Messages: r.Messages, Model: "claude-sonnet-4-0"}, Dialect, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Messages, r.FixWire = fixed.Messages, true
		if got, _, err := Encode(r); err != nil || string(got) != tt.want {
			t.Errorf("Encode(Repair(%s)) with FixWire = %s, %v; want %s", tt.body, got, err, tt.want)
		}
	}
}
