package codec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/toolresult"
)

func TestAppendBody(t *testing.T) {
	lower := func(k string) string { return strings.ToLower(k) }
	tests := []struct {
		name    string
		fields  []Field
		canon   func(string) string
		system  bool
		tools   bool
		want    string
		wantErr string
	}{
		{name: "no fields", system: true, tools: true, want: `{"system":S,"messages":M,"tools":T}`},
		{name: "nothing to write but messages", want: `{"messages":M}`},
		{name: "body order kept", system: true, tools: true,
			fields: []Field{{Key: "tools"}, {Key: "model", Value: jsontext.Value(` "m" `)}, {Key: "messages"}, {Key: "system"}},
			want:   `{"tools":T,"model":"m","messages":M,"system":S}`},
		{name: "system and tools go next to the messages", system: true, tools: true,
			fields: []Field{{Key: "model", Value: jsontext.Value(`"m"`)}, {Key: "messages"}, {Key: "max_tokens", Value: jsontext.Value(`9`)}},
			want:   `{"model":"m","system":S,"messages":M,"tools":T,"max_tokens":9}`},
		{name: "a tools field is written even without tools",
			fields: []Field{{Key: "messages"}, {Key: "tools"}},
			want:   `{"messages":M,"tools":T}`},
		{name: "a system field without a system prompt is left out",
			fields: []Field{{Key: "system"}, {Key: "messages"}},
			want:   `{"messages":M}`},
		{name: "keys keep their spelling", canon: lower, system: true,
			fields: []Field{{Key: "SYSTEM"}, {Key: "Messages"}},
			want:   `{"SYSTEM":S,"Messages":M}`},
		{name: "values are compacted", fields: []Field{{Key: "x", Value: jsontext.Value("{ \"a\" : [1, 2] }")}},
			want: `{"x":{"a":[1,2]},"messages":M}`},
		{name: "repeated key", fields: []Field{{Key: "a", Value: jsontext.Value(`1`)}, {Key: "a", Value: jsontext.Value(`2`)}},
			wantErr: `p: Fields[1]: field "a" repeats`},
		{name: "repeated key in another spelling", canon: lower, fields: []Field{{Key: "messages"}, {Key: "MESSAGES"}},
			wantErr: `p: Fields[1]: field "MESSAGES" repeats`},
		{name: "not JSON", fields: []Field{{Key: "a", Value: jsontext.Value(`{`)}},
			wantErr: `p: Fields[0] (a): value is not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Body{Canon: tt.canon, System: "system", Messages: "messages", Tools: "tools", HasTools: tt.tools,
				AppendMessages: func(dst []byte) []byte { return append(dst, 'M') },
				AppendTools:    func(dst []byte) []byte { return append(dst, 'T') }}
			if tt.system {
				b.AppendSystem = func(dst []byte) []byte { return append(dst, 'S') }
			}
			got, err := AppendBody(nil, "p", tt.fields, &b)
			if fmt.Sprint(err) != fmt.Sprint(errOrNil(tt.wantErr)) || string(got) != tt.want {
				t.Errorf("AppendBody(%v) = %s, %v, want %s, %v", tt.fields, got, err, tt.want, errOrNil(tt.wantErr))
			}
		})
	}
}

func errOrNil(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

func TestMatcher(t *testing.T) {
	// Two decoded messages: [text a, call c1] and [result of c1].
	parts := []llm.Part{
		llm.Text{Text: "a"},
		llm.ToolCall{ID: "c1", Name: "f", Input: []byte(`{}`)},
		llm.ToolResult{CallID: "c1", Status: llm.StatusSuccess},
	}
	msgs := []Msg{
		{Raw: []byte(`m0`), First: 0, Count: 2, Role: llm.RoleAssistant},
		{Raw: []byte(`m1`), First: 2, Count: 1, Role: llm.RoleTool},
	}
	identity := func(p llm.Part) string {
		switch p := p.(type) {
		case llm.ToolCall:
			return "c" + p.ID
		case llm.ToolResult:
			return "r" + p.CallID
		}
		return fmt.Sprint(p)
	}
	equal := func(a, b llm.Part) bool {
		return SamePart(a, b, func(a, b llm.ToolResult) bool { return a.CallID == b.CallID })
	}
	newMatcher := func() Matcher { return NewMatcher(msgs, testBlocks(parts), len(parts), identity) }
	match := func(m *Matcher, i, j int, p llm.Part, loose bool) (int, bool) {
		return m.Match(i, j, p, func(k int) bool { return equal(parts[k], p) }, loose)
	}

	m := newMatcher()
	if raw, ok := m.Verbatim(0, llm.RoleAssistant, 2, func(j, k int) bool { return equal(parts[j], parts[k]) }); !ok || string(raw) != "m0" {
		t.Errorf("Verbatim(unchanged message 0) = %s, %v, want m0, true", raw, ok)
	}
	if _, ok := m.Verbatim(0, llm.RoleAssistant, 2, func(j, k int) bool { return true }); ok {
		t.Errorf("Verbatim(message 0 again) = true, want false: its blocks are written")
	}
	if k, exact := match(&m, 1, 0, parts[2], true); k != 2 || !exact {
		t.Errorf("Match(unchanged result) = %d, %v, want 2, true", k, exact)
	}

	m = newMatcher()
	if _, ok := m.Verbatim(1, llm.RoleUser, 1, func(j, k int) bool { return true }); ok {
		t.Errorf("Verbatim(message 1 with another role) = true, want false")
	}
	if _, ok := m.Verbatim(2, llm.RoleUser, 0, func(j, k int) bool { return true }); ok {
		t.Errorf("Verbatim(a message that was not decoded) = true, want false")
	}
	// The call moved to another message: found by identity, exact.
	if k, exact := match(&m, 5, 0, parts[1], false); k != 1 || !exact {
		t.Errorf("Match(moved call) = %d, %v, want 1, true", k, exact)
	}
	// The result changed: found by its call id only when loose.
	changed := llm.ToolResult{CallID: "c1", Status: llm.StatusError, Content: []llm.Part{llm.Text{Text: "x"}}}
	if k, exact := match(&m, 1, 0, changed, false); k != -1 || exact {
		t.Errorf("Match(changed result, strict) = %d, %v, want -1, false", k, exact)
	}
	if k, exact := match(&m, 1, 0, changed, true); k != 2 || exact {
		t.Errorf("Match(changed result, loose) = %d, %v, want 2, false", k, exact)
	}
	m.Use(2)
	if k, _ := match(&m, 1, 0, changed, true); k != -1 {
		t.Errorf("Match(result whose block is written) = %d, want -1", k)
	}
	empty := NewMatcher(nil, testBlocks(nil), 0, identity)
	if k, _ := empty.Match(0, 0, parts[0], func(int) bool { return true }, true); k != -1 {
		t.Errorf("Match(no decoded blocks) = %d, want -1", k)
	}
}

type testBlocks []llm.Part

func (b testBlocks) Part(k int) llm.Part { return b[k] }

func TestEnvelopeStatus(t *testing.T) {
	partial, _ := toolresult.Partial("2 of 3 pages", nil).MarshalJSON()
	failure, _ := toolresult.Failure(toolresult.Timeout, "timed out").MarshalJSON()
	tests := []struct {
		text string
		want llm.Status
		ok   bool
	}{
		{string(partial), llm.StatusPartial, true},
		{" \n" + string(failure), llm.StatusError, true},
		{`{"summary":"x","status":"success"}`, llm.StatusSuccess, true},
		{`{"status":"weird","summary":"x"}`, "", false},
		{`{"status":"success"}`, "", false},
		{`plain text with "status" and "summary"`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		got, ok := EnvelopeStatus(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("EnvelopeStatus(%q) = %q, %v, want %q, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDataURL(t *testing.T) {
	tests := []struct {
		url, mt, data string
		ok            bool
	}{
		{"data:image/png;base64,aGk=", "image/png", "hi", true},
		{"data:;base64,aGk=", "", "hi", true},
		{"data:image/png;base64,", "", "", false},
		{"data:image/png,aGk=", "", "", false},
		{"data:image/png;base64,!!", "", "", false},
		{"https://example.com/a.png", "", "", false},
	}
	for _, tt := range tests {
		mt, data, ok := DataURL(tt.url)
		if mt != tt.mt || string(data) != tt.data || ok != tt.ok {
			t.Errorf("DataURL(%q) = %q, %q, %v, want %q, %q, %v", tt.url, mt, data, ok, tt.mt, tt.data, tt.ok)
		}
	}
}

func TestAppendInput(t *testing.T) {
	tests := []struct {
		in, want string
		wrapped  bool
	}{
		{` { "a" : 1 } `, `{"a":1}`, false},
		{`[1]`, `{"_raw":"[1]"}`, true},
		{`{"a":`, `{"_raw":"{\"a\":"}`, true},
		{`<b>`, `{"_raw":"<b>"}`, true},
	}
	for _, tt := range tests {
		got, wrapped := AppendInput(nil, []byte(tt.in))
		if string(got) != tt.want || wrapped != tt.wrapped {
			t.Errorf("AppendInput(%q) = %s, %v, want %s, %v", tt.in, got, wrapped, tt.want, tt.wrapped)
		}
	}
}

func TestLeadingSystem(t *testing.T) {
	msgs := []llm.Message{llm.System("a"), llm.System("b"), llm.User("u"), llm.System("c")}
	tests := []struct {
		bare    bool
		decoded int
		want    int
	}{
		{false, -1, 2},
		{false, 1, 1},
		{false, 0, 0},
		{false, 5, 2},
		{true, -1, 0},
	}
	for _, tt := range tests {
		if got := LeadingSystem(msgs, tt.bare, tt.decoded); got != tt.want {
			t.Errorf("LeadingSystem(bare=%v, decoded=%d) = %d, want %d", tt.bare, tt.decoded, got, tt.want)
		}
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		elems []string // "" writes nothing
		want  string
		n     int
	}{
		{nil, `[]`, 0},
		{[]string{"a"}, `[a]`, 1},
		{[]string{"", "a", "", "b", ""}, `[a,b]`, 2},
		{[]string{"a", "", ""}, `[a]`, 1},
		{[]string{"", ""}, `[]`, 0},
	}
	for _, tt := range tests {
		dst := []byte{'['}
		var l List
		for _, e := range tt.elems {
			var at int
			dst, at = l.Begin(dst)
			dst = append(dst, e...)
			dst = l.End(dst, at)
		}
		dst = append(dst, ']')
		if string(dst) != tt.want || l.Len() != tt.n {
			t.Errorf("List of %q = %s with Len %d, want %s with Len %d", tt.elems, dst, l.Len(), tt.want, tt.n)
		}
	}
}

func TestIsCompact(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":[1,2],"b":"x y\t"}`, true},
		{`{"a": 1}`, false},
		{`["a\"", 1]`, false},
		{`["a\\", 1]`, false},
		{`["a\\"]`, true},
		{`["a\\\" ",1]`, true},
		{"[1,\n2]", false},
		{`"  "`, true},
		{`{}`, true},
	}
	for _, tt := range tests {
		if got := isCompact([]byte(tt.in)); got != tt.want {
			t.Errorf("isCompact(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestIdentityKey pins the keys each dialect's Identity makes: the fields
// it names are in the key, the others are not.
func TestIdentityKey(t *testing.T) {
	all := Identity{Names: true, Signature: true, ReasoningText: true, OpaqueKind: true}
	tests := []struct {
		id   Identity
		p    llm.Part
		want string
	}{
		{Identity{}, llm.ToolCall{ID: "c1", Name: "f"}, "c\x00c1"},
		{all, llm.ToolCall{ID: "c1", Name: "f"}, "c\x00c1\x00f"},
		{Identity{}, llm.ToolResult{CallID: "c1", Name: "f"}, "r\x00c1"},
		{all, llm.ToolResult{CallID: "c1", Name: "f"}, "r\x00c1\x00f"},
		{all, llm.Text{Text: "hi"}, "t\x00hi"},
		{Identity{}, llm.Image{MediaType: "image/png", URL: "u", Data: []byte("abc")}, "i\x00image/png\x00u\x003"},
		{Identity{}, llm.Reasoning{Signature: "s", Text: "x", Data: []byte("d")}, "z\x00d"},
		{Identity{Signature: true}, llm.Reasoning{Signature: "s", Text: "x", Data: []byte("d")}, "z\x00s\x00d"},
		{all, llm.Reasoning{Signature: "s", Text: "x", Data: []byte("d")}, "z\x00s\x00x\x00d"},
		{Identity{}, llm.Opaque{Kind: "k", Data: []byte("d")}, "o\x00d"},
		{all, llm.Opaque{Kind: "k", Data: []byte("d")}, "o\x00k\x00d"},
		{all, nil, ""},
	}
	for _, tt := range tests {
		if got := tt.id.Key(tt.p); got != tt.want {
			t.Errorf("%+v.Key(%#v) = %q, want %q", tt.id, tt.p, got, tt.want)
		}
	}
}
