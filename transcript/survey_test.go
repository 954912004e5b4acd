package transcript

import (
	"testing"

	"github.com/toolwire/toolwire/llm"
)

// TestSurvey holds what load's survey says against the stages it lets
// Repair skip, on generated transcripts in every dialect: each flag must
// be what the stage itself would find.
func TestSurvey(t *testing.T) {
	state := uint32(11)
	seen := map[string]int{} // how often each flag was false, to know the sweep reaches both sides
	for k := 0; k < 3000; k++ {
		data := make([]byte, 48)
		for i := range data {
			state = state*1664525 + 1013904223
			data[i] = byte(state >> 24)
		}
		msgs := genTranscript(data)
		if k%4 == 0 { // a clean stretch, so that some transcripts pass every check
			msgs = benchTranscript(20, k%8 == 0)
		}
		for _, d := range Dialects() {
			newRepairer := func() *repairer {
				rp := &repairer{d: d, pol: Policy{Placeholder: DefaultPlaceholder}, req: Request{Messages: msgs}}
				rp.load()
				return rp
			}
			rp := newRepairer()
			sv := rp.sv
			want := survey{shapeOK: true, namesOK: true}
			nonSystem := false
			for _, m := range rp.w {
				want.shapeOK = want.shapeOK && m.role.Valid() && wellFormed(m)
				want.lateSys = want.lateSys || (m.role == llm.RoleSystem && nonSystem)
				nonSystem = nonSystem || m.role != llm.RoleSystem
				call := false
				for _, p := range m.parts {
					switch p := p.p.(type) {
					case llm.ToolCall:
						want.calls++
						call = true
						want.namesOK = want.namesOK && !badName(d, p.Name, false)
					case llm.ToolResult:
						want.results++
					}
				}
				if m.role == llm.RoleAssistant && (call || d == Anthropic) {
					want.turns++
				}
			}
			c := newRepairer()
			c.contentAll()
			want.contentOK = len(c.changes) == 0
			if sv != want {
				t.Fatalf("load(%s) survey = %+v, want %+v\n%s", d, sv, want, render(msgs))
			}
			for name, ok := range map[string]bool{"shape": sv.shapeOK, "late system": !sv.lateSys, "content": sv.contentOK, "names": sv.namesOK} {
				if !ok {
					seen[name]++
				}
			}
		}
	}
	for _, name := range []string{"shape", "late system", "content", "names"} {
		if seen[name] == 0 {
			t.Errorf("the sweep never made %s need work; want both cases", name)
		}
	}
}
