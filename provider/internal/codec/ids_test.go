package codec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/llm"
)

// testRules accept ids without a dot, and rewrite a dot to "_".
func testRules() IDRules {
	return IDRules{Prefix: "id_", Valid: func(id string) bool { return !strings.Contains(id, ".") },
		Rewrite: func(id string) string { return strings.ReplaceAll(id, ".", "_") },
		Invalid: "has a dot (TEST-ID)", Missing: "TEST-MISSING", Call: "call", Result: "result"}
}

func call(id, name string) llm.ToolCall { return llm.ToolCall{ID: id, Name: name, Input: []byte(`{}`)} }
func result(id, name string) llm.ToolResult {
	return llm.ToolResult{CallID: id, Name: name, Status: llm.StatusSuccess}
}

// planned writes what p does with the calls and results of msgs: "c:ID"
// or "r:ID" per part, with "!" after an id that comes with a warning.
func planned(p *IDPlan, msgs []llm.Message) string {
	var out []string
	for i, m := range msgs {
		for j, part := range m.Parts {
			var id, w, kind string
			switch x := part.(type) {
			case llm.ToolCall:
				kind = "c"
				id, w = p.Call(i, j, x.ID)
			case llm.ToolResult:
				kind = "r"
				id, w = p.Result(i, j, x.CallID)
			default:
				continue
			}
			if w != "" {
				id += "!"
			}
			out = append(out, kind+":"+id)
		}
	}
	return strings.Join(out, " ")
}

func TestPlanIDs(t *testing.T) {
	user := llm.User("go")
	tests := []struct {
		name string
		msgs []llm.Message
		want string // "" when PlanIDs returns nil
	}{
		{name: "every id accepted",
			msgs: []llm.Message{user, llm.Assistant(call("a", "f")), llm.Tool(result("a", "f"))}},
		{name: "parallel id-less calls answered in order",
			msgs: []llm.Message{user, llm.Assistant(call("", "f"), call("", "f")), llm.Tool(result("", "f"), result("", "f"))},
			want: "c:id_1_0! c:id_1_1! r:id_1_0! r:id_1_1!"},
		{name: "answered out of order: paired by name",
			msgs: []llm.Message{user, llm.Assistant(call("", "f"), call("", "g")), llm.Tool(result("", "g"), result("", "f"))},
			want: "c:id_1_0! c:id_1_1! r:id_1_1! r:id_1_0!"},
		{name: "results split over two messages",
			msgs: []llm.Message{user, llm.Assistant(call("", "f"), call("", "f")), llm.Tool(result("", "f")), llm.Tool(result("", "f"))},
			want: "c:id_1_0! c:id_1_1! r:id_1_0! r:id_1_1!"},
		{name: "a result without a name takes the first open call",
			msgs: []llm.Message{user, llm.Assistant(call("", "f"), call("", "g")), llm.Tool(result("", ""), result("", ""))},
			want: "c:id_1_0! c:id_1_1! r:id_1_0! r:id_1_1!"},
		{name: "a result whose name no open call has is an orphan",
			msgs: []llm.Message{user, llm.Assistant(call("", "f")), llm.Tool(result("", "g"))},
			want: "c:id_1_0! r:id_2_0!"},
		{name: "a result after a later assistant message is an orphan",
			msgs: []llm.Message{user, llm.Assistant(call("", "f")), llm.Assistant(llm.Text{Text: "hm"}), llm.Tool(result("", "f"))},
			want: "c:id_1_0! r:id_3_0!"},
		{name: "made ids skip ids the transcript has",
			msgs: []llm.Message{user, llm.Assistant(call("id_1_1", "g"), call("", "f")), llm.Tool(result("id_1_1", "g"), result("", "f")),
				llm.Assistant(call("id_1_1_2", "h")), llm.Tool(result("id_1_1_2", "h"))},
			want: "c:id_1_1 c:id_1_1_3! r:id_1_1 r:id_1_1_3! c:id_1_1_2 r:id_1_1_2"},
		{name: "refused ids rewritten alike in call and result, uniquely",
			msgs: []llm.Message{user, llm.Assistant(call("a.b", "f"), call("a_b", "f")), llm.Tool(result("a.b", "f"), result("a_b", "f"))},
			want: "c:a_b_2! c:a_b r:a_b_2 r:a_b"},
		{name: "a result without an id answers the call with an id that no result names, by name",
			msgs: []llm.Message{user, llm.Assistant(call("c1", "f"), call("c2", "g")), llm.Tool(result("", "g"), result("c1", "f"))},
			want: "c:c1 c:c2 r:c2! r:c1"},
		{name: "a call with an id answered by name takes no id-less result",
			msgs: []llm.Message{user, llm.Assistant(call("c1", "f")), llm.Tool(result("c1", "f"), result("", "f"))},
			want: "c:c1 r:c1 r:id_2_1!"},
		{name: "a refused id only a result has is rewritten with a warning",
			msgs: []llm.Message{user, llm.Assistant(call("", "f")), llm.Tool(result("x.y", "f"))},
			want: "c:id_1_0! r:x_y!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PlanIDs(tt.msgs, testRules())
			if tt.want == "" {
				if p != nil {
					t.Errorf("PlanIDs(%s) = %s, want nil", tt.name, planned(p, tt.msgs))
				}
				return
			}
			if got := planned(p, tt.msgs); got != tt.want {
				t.Errorf("PlanIDs(%s) = %s, want %s", tt.name, got, tt.want)
			}
			if again := planned(PlanIDs(tt.msgs, testRules()), tt.msgs); again != tt.want {
				t.Errorf("PlanIDs(%s) a second time = %s, want %s (deterministic)", tt.name, again, tt.want)
			}
		})
	}
}

func TestPlanIDsWarnings(t *testing.T) {
	msgs := []llm.Message{llm.User("go"),
		llm.Assistant(call("", "f"), call("a.b", "g")),
		llm.Tool(result("", "f"), result("a.b", "g"), result("", "h"))}
	p := PlanIDs(msgs, testRules())
	var got []string
	for _, w := range []func() (string, string){
		func() (string, string) { return p.Call(1, 0, "") },
		func() (string, string) { return p.Call(1, 1, "a.b") },
		func() (string, string) { return p.Result(2, 0, "") },
		func() (string, string) { return p.Result(2, 1, "a.b") },
		func() (string, string) { return p.Result(2, 2, "") },
	} {
		id, msg := w()
		got = append(got, fmt.Sprintf("%s %s", id, msg))
	}
	want := []string{
		`id_1_0 tool call without an id; wrote id "id_1_0" (TEST-MISSING)`,
		`a_b tool call id "a.b" has a dot (TEST-ID); rewritten to "a_b" in the call and its result`,
		`id_1_0 tool result without a call id; matched to id "id_1_0"`,
		`a_b `,
		`id_2_2 tool result without a call id, and no call without an id before it that it could answer; wrote id "id_2_2", which no call has (TEST-MISSING)`,
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("PlanIDs warning %d = %q, want %q", k, got[k], want[k])
		}
	}
}

func TestNilIDPlan(t *testing.T) {
	var p *IDPlan
	if id, w := p.Call(0, 0, "x"); id != "x" || w != "" {
		t.Errorf("nil IDPlan.Call(x) = %q, %q, want x and no warning", id, w)
	}
	if id, w := p.Result(0, 0, ""); id != "" || w != "" {
		t.Errorf("nil IDPlan.Result(\"\") = %q, %q, want \"\" and no warning", id, w)
	}
}

// benchIDs is a transcript of 2,000 parallel pairs of calls and their
// results, with ids or without.
func benchIDs(withIDs bool) []llm.Message {
	var msgs []llm.Message
	for k := range 1000 {
		a, b := "", ""
		if withIDs {
			a, b = fmt.Sprintf("call_%d_a", k), fmt.Sprintf("call_%d_b", k)
		}
		msgs = append(msgs, llm.User("go"), llm.Assistant(call(a, "f"), call(b, "g")), llm.Tool(result(a, "f"), result(b, "g")))
	}
	return msgs
}

func BenchmarkPlanIDs(b *testing.B) {
	for _, withIDs := range []bool{true, false} {
		msgs := benchIDs(withIDs)
		b.Run(fmt.Sprintf("ids=%v", withIDs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := PlanIDs(msgs, testRules())
				for i, m := range msgs {
					for j, part := range m.Parts {
						if c, ok := part.(llm.ToolCall); ok {
							p.Call(i, j, c.ID)
						}
					}
				}
			}
		})
	}
}
