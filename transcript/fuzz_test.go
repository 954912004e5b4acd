package transcript

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm"
)

// byteGen turns fuzz bytes into choices; it returns 0 once the bytes run
// out, so every input makes a finite transcript.
type byteGen struct {
	b []byte
	i int
}

func (g *byteGen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return int(c)
}

func (g *byteGen) pick(xs []string) string { return xs[g.next()%len(xs)] }

// genTranscript builds an llm transcript from fuzz bytes. It favours the
// shapes that go wrong in practice: calls answered late, twice, not at
// all, out of order, by foreign ids; empty and whitespace text; reasoning
// from every provider; system messages anywhere; misplaced parts.
func genTranscript(data []byte) []llm.Message {
	g := &byteGen{b: data}
	ids := []string{"c1", "c2", "toolu_3", "call.4|x", "", "fc:5", strings.Repeat("z", 70), "c1"}
	names := []string{"get_weather", "search", "get.weather", "", "1bad", "search"}
	texts := []string{"hi", "", " ", "\n", "ok", "answer"}
	providers := []string{"anthropic", "openai-responses", "gemini"}
	var msgs []llm.Message
	var recent []llm.ToolCall
	n := g.next() % 20
	for k := 0; k < n; k++ {
		switch g.next() % 11 {
		case 0:
			msgs = append(msgs, llm.System(g.pick(texts)))
		case 1, 2:
			m := llm.Message{Role: llm.RoleUser}
			for p := g.next() % 3; p > 0; p-- {
				if g.next()%5 == 0 {
					m.Parts = append(m.Parts, llm.Image{MediaType: "image/png", Data: []byte{1}})
				} else {
					m.Parts = append(m.Parts, llm.Text{Text: g.pick(texts)})
				}
			}
			msgs = append(msgs, m)
		case 3, 4, 5:
			m := llm.Message{Role: llm.RoleAssistant}
			recent = recent[:0]
			for p := g.next() % 4; p > 0; p-- {
				switch g.next() % 5 {
				case 0:
					m.Parts = append(m.Parts, llm.Text{Text: g.pick(texts)})
				case 1:
					r := llm.Reasoning{Provider: g.pick(providers), Signature: "sig"}
					if g.next()%2 == 0 {
						r.Text = "thought"
					}
					if r.Provider == "openai-responses" {
						r.Data = jsontext.Value(`{"type":"reasoning","id":"rs_` + string(rune('a'+g.next()%3)) + `"}`)
					}
					m.Parts = append(m.Parts, r)
				default:
					c := llm.ToolCall{ID: g.pick(ids), Name: g.pick(names), Input: jsontext.Value(`{}`)}
					if g.next()%3 == 0 {
						c.ItemID = "fc_" + string(rune('a'+g.next()%3))
					}
					recent = append(recent, c)
					m.Parts = append(m.Parts, c)
				}
			}
			msgs = append(msgs, m)
		case 6, 7, 8:
			m := llm.Message{Role: llm.RoleTool}
			for p := 1 + g.next()%3; p > 0; p-- {
				r := llm.ToolResult{Status: llm.StatusSuccess, Content: []llm.Part{llm.Text{Text: g.pick(texts)}}}
				if len(recent) > 0 && g.next()%4 != 0 {
					c := recent[g.next()%len(recent)]
					r.CallID, r.Name = c.ID, c.Name
				} else {
					r.CallID, r.Name = g.pick(ids), g.pick(names)
				}
				switch g.next() % 6 {
				case 0:
					r.Status = llm.StatusError
				case 3:
					// A placeholder: a call the run stopped before it ended.
					r.Status = llm.StatusError
					r.Content = []llm.Part{llm.Text{Text: "Tool call aborted."}}
				case 1:
					r.Content = append(r.Content, llm.Image{MediaType: "image/png", Data: []byte{2}})
				case 2:
					r.Content = nil
				}
				m.Parts = append(m.Parts, r)
			}
			if g.next()%4 == 0 {
				m.Parts = append(m.Parts, llm.Text{Text: g.pick(texts)})
			}
			msgs = append(msgs, m)
		case 9:
			// A misplaced or nil part.
			m := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: "x"}}}
			switch g.next() % 3 {
			case 0:
				m.Parts = append(m.Parts, nil)
			case 1:
				m.Parts = append(m.Parts, llm.ToolResult{CallID: g.pick(ids), Name: "search", Status: llm.StatusSuccess})
			case 2:
				m.Role = llm.RoleTool
			}
			msgs = append(msgs, m)
		case 10:
			if len(msgs) > 0 {
				msgs = append(msgs, msgs[len(msgs)-1])
			}
		}
	}
	return msgs
}

// checkRepairProperties checks, for one transcript and dialect: Check does
// not panic; Repair's output passes Check unless Repair reports a problem
// it cannot fix; Repair of its own output changes nothing.
func checkRepairProperties(t *testing.T, msgs []llm.Message, d Dialect) {
	t.Helper()
	before := render(msgs)
	vs := Check(msgs, d)
	// The Duplicates policies settle conflicts, and hold Repair's
	// guarantees.
	for _, pol := range []*Policy{{Duplicates: KeepFirst}, {Duplicates: KeepLast}} {
		out, changes, err := Repair(msgs, d, pol)
		var re *RepairError
		switch {
		case errors.As(err, &re) && len(re.Problems) > 0:
			for _, p := range re.Problems {
				if strings.Contains(p.Message, "two results with different content") {
					t.Fatalf("Repair(%s, Duplicates %d) left a conflict: %v\ninput:\n%s", d, pol.Duplicates, p, before)
				}
			}
		case err != nil:
			t.Fatalf("Repair(%s, Duplicates %d) error = %v, want a *RepairError naming a problem\ninput:\n%s", d, pol.Duplicates, err, before)
		default:
			if msg := unsettled(out, d, pol); msg != "" {
				t.Fatalf("Duplicates %d: %s\ninput:\n%s\nrepaired:\n%s\nchanges:\n%s", pol.Duplicates, msg, before, render(out), renderChanges(changes))
			}
		}
	}
	out, changes, err := Repair(msgs, d, nil)
	if render(msgs) != before {
		t.Fatalf("Repair(%s) modified its input", d)
	}
	if Accepted(vs) {
		if err != nil || len(changes) > 0 || !reflect.DeepEqual(out, msgs) {
			t.Fatalf("Repair(%s) of an accepted transcript: %d changes, err %v; want it unchanged\n%s", d, len(changes), err, before)
		}
		return
	}
	if err != nil {
		var re *RepairError
		if !errors.As(err, &re) {
			t.Fatalf("Repair(%s) error = %T %v, want *RepairError", d, err, err)
		}
		if len(re.Problems) == 0 {
			t.Fatalf("Repair(%s) left %q without naming a problem\ninput:\n%s\nrepaired:\n%s\nchanges:\n%s", d, ruleList(re.Remaining), before, render(out), renderChanges(changes))
		}
		return
	}
	if msg := unsettled(out, d, nil); msg != "" {
		t.Fatalf("%s\ninput:\n%s\nrepaired:\n%s\nchanges:\n%s", msg, before, render(out), renderChanges(changes))
	}
	// The other policy must hold the same guarantees.
	pol := &Policy{Unanswered: StripCall, Orphans: DropOrphan}
	strip, stripChanges, err := Repair(msgs, d, pol)
	if err != nil {
		var re *RepairError
		if !errors.As(err, &re) || len(re.Problems) == 0 {
			t.Fatalf("Repair(%s, strip) error = %v, want a *RepairError naming a problem\ninput:\n%s\nrepaired:\n%s\nchanges:\n%s", d, err, before, render(strip), renderChanges(stripChanges))
		}
		return
	}
	if msg := unsettled(strip, d, pol); msg != "" {
		t.Fatalf("strip: %s\ninput:\n%s\nrepaired:\n%s\nchanges:\n%s", msg, before, render(strip), renderChanges(stripChanges))
	}
}

func FuzzRepair(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{6, 1, 0, 3, 2, 2, 0, 1, 6, 1, 0},
		{12, 1, 1, 0, 3, 3, 2, 0, 2, 1, 1, 6, 2, 0, 0, 5, 0, 0, 1, 0, 9, 1},
		{15, 3, 2, 2, 4, 0, 0, 2, 3, 6, 1, 1, 0, 0, 7, 1, 0, 1, 0, 10, 2, 1, 1},
		[]byte("a transcript made of text"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs := genTranscript(data)
		for _, d := range Dialects() {
			checkRepairProperties(t, msgs, d)
		}
	})
}

// TestRepairProperties runs the fuzz properties over a deterministic
// sweep of generated transcripts, so that plain go test exercises them.
func TestRepairProperties(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	state := uint32(1)
	for k := 0; k < n; k++ {
		data := make([]byte, 64)
		for i := range data {
			state = state*1664525 + 1013904223
			data[i] = byte(state >> 24)
		}
		msgs := genTranscript(data)
		for _, d := range Dialects() {
			checkRepairProperties(t, msgs, d)
		}
	}
}
