package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/transcript"
)

// TestRecords checks that a repaired and a rejected request are each
// recorded as a session of their own, with the violations, the repairs
// and the diff, and that an accepted one is not.
func TestRecords(t *testing.T) {
	store := newStore(t)
	catalog := store.(session.Catalog)
	dangling := brokenHistories()[1].Messages
	for _, tc := range []struct {
		policy  Policy
		data    []byte
		verdict Verdict
		status  session.Status
	}{
		{Repair, body(t, transcript.Anthropic, dangling, false), VerdictRepaired, session.StatusDone},
		{Reject, body(t, transcript.Anthropic, dangling, false), VerdictRejected, session.StatusFailed},
		{Repair, body(t, transcript.Anthropic, okHistory("sunny"), false), VerdictAccepted, ""},
	} {
		t.Run(string(tc.policy)+"/"+string(tc.verdict), func(t *testing.T) {
			up := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
			base, _ := newGateway(t, up.URL, Config{Policy: tc.policy, Store: store})
			resp, b := post(t, base, transcript.Anthropic, tc.data, false)
			if got := Verdict(resp.Header.Get(VerdictHeader)); got != tc.verdict {
				t.Fatalf("verdict %q, want %q: %s", got, tc.verdict, b)
			}
			id := resp.Header.Get(RecordHeader)
			if tc.status == "" {
				if id != "" {
					t.Errorf("an accepted request was recorded as %s", id)
				}
				return
			}
			if !strings.HasPrefix(id, "gw_") {
				t.Fatalf("%s = %q, want a record id", RecordHeader, id)
			}
			tr, err := catalog.Show(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Session.Agent != RecordAgent || tr.Session.Status != tc.status || len(tr.Steps) != 1 || tr.Session.Model.Spec != "anthropic:claude-sonnet-4-5" {
				t.Fatalf("session = %+v, %d steps; want agent %q, status %s, one step, model anthropic:claude-sonnet-4-5", tr.Session, len(tr.Steps), RecordAgent, tc.status)
			}
			rec, err := ParseRecord(tr.Steps[0].State)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Verdict != tc.verdict || rec.Policy != tc.policy || rec.Dialect != transcript.Anthropic || rec.Path != "/v1/messages" || rec.BytesIn != len(tc.data) {
				t.Errorf("record = %+v", rec)
			}
			if len(rec.Violations) == 0 || rec.Violations[0].Rule != "ANT-RESULT-NEXT" || len(rec.Changes) == 0 {
				t.Errorf("record violations %+v, changes %+v; want ANT-RESULT-NEXT and its repair", rec.Violations, rec.Changes)
			}
			switch tc.verdict {
			case VerdictRepaired:
				if len(rec.Diff) == 0 || rec.BytesOut == 0 {
					t.Errorf("a repaired record has no diff (%d bytes out)", rec.BytesOut)
				}
				if !strings.Contains(tr.Session.Title, "repaired") {
					t.Errorf("title %q", tr.Session.Title)
				}
			case VerdictRejected:
				if rec.Status != 400 || rec.Message == "" || len(rec.Diff) != 0 {
					t.Errorf("a rejected record: status %d, message %q, diff %v", rec.Status, rec.Message, rec.Diff)
				}
			}
		})
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want []DiffLine
	}{
		{"equal", `{"a":1,"m":[1,2]}`, `{"a":1,"m":[1,2]}`, nil},
		{"field changed", `{"a":1}`, `{"a":2}`, []DiffLine{{"-", "a", "1"}, {"+", "a", "2"}}},
		{"field added and removed", `{"a":1}`, `{"b":2}`, []DiffLine{{"-", "a", "1"}, {"+", "b", "2"}}},
		{"element inserted", `{"m":[1,2,3]}`, `{"m":[1,2,9,3]}`, []DiffLine{{"+", "m.2", "9"}}},
		{"element dropped", `{"m":[1,2,3]}`, `{"m":[1,3]}`, []DiffLine{{"-", "m.1", "2"}}},
		{"element moved", `{"m":[1,{"x": 2},3,4]}`, `{"m":[1,3,{"x":2},4]}`, []DiffLine{{"-", "m.1", `{"x":2}`}, {"+", "m.2", `{"x":2}`}}},
		{"not an object", `[1]`, `[2]`, []DiffLine{{"-", "", "[1]"}, {"+", "", "[2]"}}},
	} {
		got := Diff([]byte(tc.a), []byte(tc.b))
		if !equalLines(got, tc.want) {
			t.Errorf("%s: Diff(%s, %s) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

func equalLines(a, b []DiffLine) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzDiff checks that Diff never fails on any two inputs, and finds no
// difference between a body and itself.
func FuzzDiff(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hi"}]}`), []byte(`{"messages":[{"role":"user","content":"hi"},{"role":"user","content":"and?"}]}`))
	f.Add([]byte(`{"a":[1,2,3],"b":{"c":[]}}`), []byte(`{"b":{"c":[1]},"a":[3,2,1]}`))
	f.Add([]byte(`[`), []byte(`{"a":`))
	f.Add([]byte(`{"a":"\u00e9\ud800"}`), []byte(`{"a":"é"}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		_ = Diff(a, b)
		if d := Diff(a, a); len(d) != 0 {
			t.Errorf("Diff(a, a) = %v, want nothing", d)
		}
		for _, l := range Diff(a, b) {
			if (l.Op != "-" && l.Op != "+") || len(l.Value) > diffValueMax+len("…") {
				t.Errorf("line %+v", l)
			}
		}
	})
}
