package wire

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/transcript"
)

// The dialects, as the table tests name them.
const (
	chat = transcript.OpenAIChat
	rs   = transcript.OpenAIResponses
	ant  = transcript.Anthropic
	gem  = transcript.Gemini
)

func TestSniff(t *testing.T) {
	tests := []struct {
		body string
		want transcript.Dialect
	}{
		{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, transcript.OpenAIChat},
		{`{"model":"m","system":"s","messages":[{"role":"user","content":"hi"}]}`, transcript.Anthropic},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}`, transcript.Anthropic},
		{`{"model":"m","input":"hi"}`, transcript.OpenAIResponses},
		{`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, transcript.Gemini},
		{`[{"role":"model","parts":[{"text":"hi"}]}]`, transcript.Gemini},
		{`[{"type":"function_call_output","call_id":"c","output":"x"}]`, transcript.OpenAIResponses},
		{`[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"a","input":{}}]}]`, transcript.Anthropic},
		{`[{"role":"tool","tool_call_id":"c","content":"x"}]`, transcript.OpenAIChat},
		{`[{"role":"user","content":"hi"}]`, transcript.OpenAIChat},
		{`{"model":"claude-opus-4","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`, transcript.Anthropic},
		{`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a","input_schema":{"type":"object"}}]}`, transcript.Anthropic},
	}
	for _, tt := range tests {
		det, err := Detect([]byte(tt.body))
		got, why := det.Dialect, det.Reason
		if err != nil || got != tt.want || why == "" {
			t.Errorf("Detect(%q) = %q, %q, %v; want %q", tt.body, got, why, err, tt.want)
		}
	}
}

func TestBodyText(t *testing.T) {
	// A body with one skipped message before messages.1.
	shift := func(p string) string {
		if p == "messages.1" {
			return "messages.2"
		}
		if strings.HasPrefix(p, "messages.1.") {
			return "messages.2." + strings.TrimPrefix(p, "messages.1.")
		}
		return p
	}
	tests := []struct{ in, want string }{
		{"the assistant message messages.1 calls f", "the assistant message messages.2 calls f"},
		{"messages.1.content.3: unexpected `tool_use_id`", "messages.2.content.3: unexpected `tool_use_id`"},
		{"Duplicate value for 'tool_call_id' of 'x', in messages[0] and messages[1].", "Duplicate value for 'tool_call_id' of 'x', in messages[0] and messages[2]."},
		{"Invalid 'messages[1].tool_calls[0].id': string too long", "Invalid 'messages[2].tool_calls[0].id': string too long"},
		{"mymessages.1 and messages.10 stay", "mymessages.1 and messages.10 stay"},
		{"no paths here", "no paths here"},
	}
	for _, tt := range tests {
		if got := bodyText(tt.in, shift); got != tt.want {
			t.Errorf("bodyText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDetectCandidates covers the shapes that tell the dialects apart,
// and the bodies whose shape fits several: each case is written from what
// the dialects' own documentation allows where.
func TestDetectCandidates(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []transcript.Dialect
		why  string // a fragment of the reason
	}{
		{"an Anthropic body with only an image block", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}`,
			[]transcript.Dialect{ant}, `messages.0.content.0 has "source"`},
		{"a bare array with only a document block", `[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://e.x/a.pdf"}}]}]`,
			[]transcript.Dialect{ant}, `element 0.content.0 has "source"`},
		{"an image block without source is still Anthropic's type", `[{"role":"user","content":[{"type":"image"}]}]`,
			[]transcript.Dialect{ant}, `is a "image" part`},
		{"toolwire's own convert --to anthropic output", `{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"text","text":"what?"}]}]}`,
			[]transcript.Dialect{ant}, `"source"`},
		{"Chat's image_url part", `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://e.x/a.png"}}]}]`,
			[]transcript.Dialect{chat}, `"image_url" part`},
		{"Responses' input_text part", `[{"role":"user","content":[{"type":"input_text","text":"q"}]}]`,
			[]transcript.Dialect{rs}, `"input_text" part`},
		{"a Responses item type", `[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1","summary":[]}]`,
			[]transcript.Dialect{rs}, `element 1 is an item of type "reasoning"`},
		{"Gemini's role model", `[{"role":"model","text":"x"}]`, []transcript.Dialect{gem}, `role "model"`},
		{"Gemini parts written as one object", `[{"role":"user","parts":{"text":"x"}}]`, []transcript.Dialect{gem}, `has "parts"`},
		{"Anthropic's tool_choice", `{"messages":[{"role":"user","content":"q"}],"max_tokens":9,"tool_choice":{"type":"any"}}`,
			[]transcript.Dialect{ant}, `tool_choice is {"type": "any"}`},
		{"a Chat function tool", `{"messages":[{"role":"user","content":"q"}],"max_tokens":9,"tools":[{"type":"function","function":{"name":"f"}}]}`,
			[]transcript.Dialect{chat}, `tools.0 has type "function" and a "function" object`},
		{"a dated Anthropic server tool", `{"messages":[{"role":"user","content":"q"}],"max_tokens":9,"tools":[{"type":"web_search_20250305","name":"web_search"}]}`,
			[]transcript.Dialect{ant}, "dated Anthropic tool version"},
		{"a top-level field decides before a part that contradicts it", `{"system":"s","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`,
			[]transcript.Dialect{ant}, `the top-level "system" field`},
		{"no max_tokens, which Anthropic requires", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			[]transcript.Dialect{chat}, `there is no "max_tokens"`},
		{"a Claude model name with max_tokens", `{"model":"claude-sonnet-4-5","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`,
			[]transcript.Dialect{ant}, `model "claude-sonnet-4-5" (the shape fits openai-chat and anthropic)`},
		{"a developer message", `[{"role":"developer","content":"be brief"},{"role":"user","content":"hi"}]`,
			[]transcript.Dialect{chat, rs}, "fits openai-chat and openai-responses"},
		// Truly ambiguous: valid in each dialect listed.
		{"plain messages in a bare array", `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`,
			[]transcript.Dialect{chat, rs, ant}, "a bare array of messages whose shape fits openai-chat, openai-responses and anthropic"},
		{"text parts in a bare array", `[{"role":"user","content":[{"type":"text","text":"hi"}]}]`,
			[]transcript.Dialect{chat, ant}, "fits openai-chat and anthropic"},
		{"max_tokens and no other clue", `{"model":"x","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`,
			[]transcript.Dialect{chat, ant}, `a body with "messages" whose shape fits openai-chat and anthropic`},
		{"a Claude model without max_tokens: the weak clues disagree", `{"model":"claude-x","messages":[{"role":"user","content":"hi"}]}`,
			[]transcript.Dialect{chat, ant}, `model "claude-x" points to anthropic, but there is no "max_tokens"`},
		{"an empty array", `[]`, []transcript.Dialect{chat, rs, ant, gem}, "fits openai-chat, openai-responses, anthropic and gemini"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			det, err := Detect([]byte(tt.body))
			if err != nil {
				t.Fatalf("Detect(%s) error = %v", tt.body, err)
			}
			if !slices.Equal(det.Candidates, tt.want) || det.Dialect != tt.want[0] || det.Ambiguous() != (len(tt.want) > 1) || !strings.Contains(det.Reason, tt.why) {
				t.Errorf("Detect(%s) = %v %q (dialect %s), want %v with %q", tt.body, det.Candidates, det.Reason, det.Dialect, tt.want, tt.why)
			}
		})
	}
}

func TestDetectErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{"", "empty input: want a provider request body"},
		{" \n", "empty input"},
		{"hello", "not a JSON object or array: invalid JSON at line 1, column 1: invalid character 'h' at start of value (at byte 0)"},
		{"null", "not a JSON object or array: the input is null"},
		{`"x"`, "not a JSON object or array: the input is a string"},
		{"[1]", "element 0: want a message (a JSON object), got a number"},
		{"{}", `a JSON object without "messages", "input" or "contents"`},
		{`{"prompt":"x"}`, `a JSON object without "messages", "input" or "contents"`},
		{"{\n  \"messages\": [\n    {\"role\": \"user\",}\n  ]\n}", `messages.0: invalid JSON at line 3, column 20: invalid character ',' at start of value (at byte 37)`},
		{`{"messages":[]} {}`, "invalid JSON at line 1, column 17: unexpected data after the top-level value: '{' (at byte 16)"},
	}
	for _, tt := range tests {
		_, err := Detect([]byte(tt.body))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Detect(%q) error = %v, want it to contain %q", tt.body, err, tt.want)
		}
	}
}

// TestCheckAmbiguous judges a body whose shape fits several dialects in
// each one that reads it, and accepts it only when all do.
func TestCheckAmbiguous(t *testing.T) {
	body := []byte(`[{"role":"user","content":"hi"},{"role":"assistant","content":""}]`)
	rep, err := Check(body, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	n := 0
	for _, c := range rep.Candidates {
		got = append(got, fmt.Sprintf("%s:%v:%v", c.Dialect, c.Accepted(), c.Fixable()))
		n += len(c.Violations)
	}
	want := []string{"openai-chat:true:true", "openai-responses:true:true", "anthropic:false:true"}
	if rep.Dialect != "" || !slices.Equal(got, want) || rep.Accepted() || !rep.Fixable() || len(rep.Violations) != n {
		t.Errorf("Check(%s) = dialect %q, candidates %v, accepted %v, fixable %v, %d violations; want \"\", %v, false, true, %d", body, rep.Dialect, got, rep.Accepted(), rep.Fixable(), len(rep.Violations), want, n)
	}
	var amb *AmbiguousError
	if _, err := Fix(body, "", nil); !errors.As(err, &amb) || len(amb.Detection.Candidates) != 3 {
		t.Errorf("Fix(%s, \"\") error = %v, want an *AmbiguousError with 3 candidates", body, err)
	}
	if _, err := Convert(body, "", transcript.Gemini); !errors.As(err, &amb) {
		t.Errorf("Convert(%s, \"\") error = %v, want an *AmbiguousError", body, err)
	}
	// A candidate whose codec cannot read the body is not one.
	named := []byte(`{"max_tokens":9,"messages":[{"role":"user","content":"x","name":"ann"}]}`)
	rep, err = Check(named, "")
	if err != nil || rep.Dialect != transcript.OpenAIChat || rep.Candidates != nil || !strings.Contains(rep.Detected, "only openai-chat reads it") {
		t.Errorf("Check(%s) = %+v, %v; want openai-chat, as the only dialect that reads it", named, rep, err)
	}
	if f, err := Fix(named, "", nil); err != nil || f.Dialect != transcript.OpenAIChat || !bytes.Equal(f.Body, named) {
		t.Errorf("Fix(%s) = %+v, %v; want the body back, as openai-chat", named, f, err)
	}
}

// TestCheckFixable checks that a report says whether Fix repairs the body.
func TestCheckFixable(t *testing.T) {
	tests := []struct {
		body    string
		fixable bool
	}{
		{`[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]}]`, true},
		{`[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"1"},{"role":"tool","tool_call_id":"c1","content":"2"}]`, false},
	}
	for _, tt := range tests {
		rep, err := Check([]byte(tt.body), transcript.OpenAIChat)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Accepted() || rep.Fixable() != tt.fixable || (!tt.fixable && (rep.Unrepaired == nil || len(rep.Left) == 0)) {
			t.Errorf("Check(%s) accepted %v, fixable %v (left %v, %v); want rejected, fixable %v", tt.body, rep.Accepted(), rep.Fixable(), rep.Left, rep.Unrepaired, tt.fixable)
		}
	}
}

// FuzzDetect checks that Detect never panics, that what it finds is
// consistent, and that it reads every body a codec reads.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","content":"hi"}]`,
		`{"max_tokens":9,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]}`,
		`{"model":"claude-x","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"any"}}`,
		`{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}],"tools":[{"type":"function","name":"f"}]}`,
		`{"contents":[{"role":"model","parts":{"text":"x"}}],"tools":[{"functionDeclarations":[]}]}`,
		`[{"role":"developer","content":[{"type":"input_text","text":"x"}]},{"role":"tool","tool_call_id":"c","content":"r"}]`,
		`[]`, `[1]`, `{}`, `null`, `{"messages":[]} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		det, err := Detect(data)
		if err != nil {
			if det.Candidates != nil {
				t.Fatalf("Detect error %v with candidates %v", err, det.Candidates)
			}
			if strings.Contains(err.Error(), `without "messages", "input" or "contents"`) {
				return // no clue to the dialect: the caller must name it
			}
			for _, d := range transcript.Dialects() {
				if _, derr := Decode(data, d); derr == nil {
					t.Fatalf("Detect(%q) error = %v, but the %s codec reads it", data, err, d)
				}
			}
			return
		}
		if len(det.Candidates) == 0 || det.Dialect != det.Candidates[0] || det.Reason == "" {
			t.Fatalf("Detect(%q) = %+v: want candidates, the first as Dialect, and a reason", data, det)
		}
	})
}

// TestSetModel: a Gemini body names its model in its URL, not in the body;
// with SetModel, the rules of that model judge and repair it: a Gemini 3
// model wants a thought signature on the first call of a step of the
// current turn (GEM-THOUGHT-SIG), which Gemini 2.5 and an unknown model do
// not enforce.
func TestSetModel(t *testing.T) {
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}]}`)
	for _, c := range []struct {
		model string
		want  string // the rules found
	}{{"", ""}, {"gemini-2.5-flash", ""}, {"gemini-3-pro-preview", "GEM-THOUGHT-SIG"}} {
		b, err := Decode(body, transcript.Gemini)
		if err != nil {
			t.Fatal(err)
		}
		b.SetModel(c.model)
		if got := rules(b.Check()); got != c.want {
			t.Errorf("model %q: Check found %q, want %q", c.model, got, c.want)
		}
		if vs, _ := ViolationsFor(body, transcript.Gemini, c.model); rules(vs) != c.want {
			t.Errorf("model %q: ViolationsFor found %q, want %q", c.model, rules(vs), c.want)
		}
		f, err := b.Fix(nil)
		if err != nil || !f.Accepted() || (c.want != "") != (len(f.Changes) > 0) {
			t.Errorf("model %q: Fix = %v, %+v; want accepted, changed only when a rule was broken", c.model, err, f)
		}
	}
}

// rules lists the rule IDs of vs that are not warnings.
func rules(vs []transcript.Violation) string {
	var out []string
	for _, v := range vs {
		if !v.Warning {
			out = append(out, string(v.Rule))
		}
	}
	return strings.Join(out, ",")
}
