package wire

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// FuzzFix runs every decodable body through the codecs and the
// checker: encode(decode(x)) is stable after one cycle, and the repaired
// transcript passes Check unless Repair names a problem it will not guess
// at.
func FuzzFix(f *testing.F) {
	for _, glob := range []string{"../../examples/transcripts/*.json", "../../cmd/toolwire/testdata/check_*.json"} {
		files, _ := filepath.Glob(glob)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"a.b","type":"function","function":{"name":"x","arguments":"{"}}]},{"role":"user","content":"?"},{"role":"tool","tool_call_id":"a.b","content":"r"}]`))
	f.Add([]byte(`[{"type":"function_call","call_id":"c","name":"x","arguments":"{}"},{"type":"reasoning","id":"rs_1","summary":[]}]`))
	f.Add([]byte(`[{"role":"model","parts":[{"functionCall":{"name":"x","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"x","response":{"output":"r"}}},{"functionResponse":{"name":"x","response":{"output":"r"}}}]}]`))
	// Issue 7: an Anthropic body of image blocks only; a placeholder
	// result and the real one for one call.
	f.Add([]byte(`{"max_tokens":9,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}`))
	f.Add([]byte(`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Tool call aborted."}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]}]`))
	// Issue 18: values of the wrong JSON type, a role of another dialect,
	// a prefill ending in white space, a BMP image, thinking with a forced
	// tool, a cached prefix, an unsigned Gemini 3 call.
	f.Add([]byte(`[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"a":[1]}}}]},{"role":"tool","tool_call_id":"c1","content":{"t":1}}]`))
	f.Add([]byte(`[{"type":"function_call","call_id":"c","name":"x","arguments":{}},{"type":"function_call_output","call_id":"c","output":{"o":"k"}}]`))
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"assistant","parts":[{"text":"a "}]}]}`))
	f.Add([]byte(`{"max_tokens":9,"thinking":{"type":"enabled","budget_tokens":1},"tool_choice":{"type":"any"},"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"Qk0="}}]},{"role":"assistant","content":"ok "}]}`))
	f.Add([]byte(`{"cachedContent":"cachedContents/x","model":"gemini-3-pro-preview","contents":[{"role":"user","parts":[{"functionResponse":{"name":"x","response":{}}}]},{"role":"model","parts":[{"functionCall":{"name":"y","args":{}}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range transcript.Dialects() {
			b, err := Decode(data, d)
			if err != nil {
				continue
			}
			once, _, err := b.Encode()
			if err != nil {
				t.Fatalf("%s: encode(decode(x)): %v", d, err)
			}
			b2, err := Decode(once, d)
			if err != nil {
				t.Fatalf("%s: decode(encode(decode(x))) = %v\n%s", d, err, once)
			}
			twice, _, err := b2.Encode()
			if err != nil || !bytes.Equal(once, twice) {
				t.Fatalf("%s: encode is not stable after one cycle (err %v)\n once: %s\ntwice: %s", d, err, once, twice)
			}
			// wire.Fix reads back what it writes, and gives an accepted
			// body back byte for byte.
			wf, err := Fix(data, d, nil)
			if err != nil {
				t.Fatalf("%s: Fix of a body that decodes: %v", d, err)
			}
			if transcript.Accepted(b.Check()) && !bytes.Equal(wf.Body, data) {
				t.Fatalf("%s: Fix changed an accepted body\n got: %s\nwant: %s", d, wf.Body, data)
			}
			fixed, _, err := transcript.RepairRequest(b.Request(), d, nil)
			var re *transcript.RepairError
			if errors.As(err, &re) && len(re.Problems) > 0 {
				continue
			}
			if err != nil {
				t.Fatalf("%s: Repair(decode(x)) = %v", d, err)
			}
			if vs := transcript.CheckRequest(fixed, d); !transcript.Accepted(vs) {
				t.Fatalf("%s: Check(Repair(decode(x))) = %v", d, vs)
			}
			// What check --fix prints, the repaired transcript written with
			// the codec's Wire fixes, is accepted when read back, unless what
			// is left needs a guess: a bare Anthropic array has no system
			// field for its system messages, and leaving out a Gemini part
			// without data may leave no contents at all.
			b.c.set(fixed)
			b.c.fixWire()
			out, _, err := b.Encode()
			if err != nil {
				t.Fatalf("%s: encode(Repair(decode(x))): %v", d, err)
			}
			back, err := Decode(out, d)
			if err != nil {
				t.Fatalf("%s: decode of the fixed body = %v\n%s", d, err, out)
			}
			if vs := back.Check(); !transcript.Accepted(vs) && !(d == transcript.Anthropic && back.Bare() && hasSystem(fixed)) {
				if _, _, err := transcript.RepairRequest(back.Request(), d, nil); !errors.As(err, &re) || len(re.Problems) == 0 {
					t.Fatalf("%s: check of the fixed body = %v\n%s", d, vs, out)
				}
			}
		}
	})
}

// hasSystem reports whether r has a system message.
func hasSystem(r transcript.Request) bool {
	for _, m := range r.Messages {
		if m.Role == llm.RoleSystem {
			return true
		}
	}
	return false
}
