package openai

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/transcript"
)

// fromGemini holds, for each of codectest.GeminiWithoutIDs by name (Gemini
// bodies whose calls have no ids, or ids OpenAI refuses), the bodies the
// two codecs encode and their warnings.
var fromGemini = map[string]struct {
	chat, rs string // the encoded bodies
	chatWarn []string
	rsWarn   []string
}{
	"parallel calls answered in order": {
		chat: `{"messages":[{"role":"user","content":"Paris and Rome?"},` +
			`{"role":"assistant","tool_calls":[{"id":"call_1_0","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_1_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]},` +
			`{"role":"tool","tool_call_id":"call_1_0","content":"18C"},{"role":"tool","tool_call_id":"call_1_1","content":"22C"},` +
			`{"role":"assistant","content":"18C and 22C."}]}`,
		chatWarn: []string{
			`messages.1.tool_calls.0: tool call without an id; wrote id "call_1_0" (OAI-CC-RESULT-ID-REQUIRED)`,
			`messages.1.tool_calls.1: tool call without an id; wrote id "call_1_1" (OAI-CC-RESULT-ID-REQUIRED)`,
			`messages.2.tool_call_id: tool result without a call id; matched to id "call_1_0"`,
			`messages.3.tool_call_id: tool result without a call id; matched to id "call_1_1"`,
		},
		rs: `{"input":[{"type":"message","role":"user","content":"Paris and Rome?"},` +
			`{"type":"function_call","call_id":"call_1_0","name":"weather","arguments":"{\"city\":\"Paris\"}"},{"type":"function_call","call_id":"call_1_1","name":"weather","arguments":"{\"city\":\"Rome\"}"},` +
			`{"type":"function_call_output","call_id":"call_1_0","output":"18C"},{"type":"function_call_output","call_id":"call_1_1","output":"22C"},` +
			`{"type":"message","role":"assistant","content":"18C and 22C."}]}`,
		rsWarn: []string{
			`input.1.call_id: tool call without an id; wrote id "call_1_0" (OAI-RS-CALLID-LEN)`,
			`input.2.call_id: tool call without an id; wrote id "call_1_1" (OAI-RS-CALLID-LEN)`,
			`input.3.call_id: tool result without a call id; matched to id "call_1_0"`,
			`input.4.call_id: tool result without a call id; matched to id "call_1_1"`,
		},
	},
	"answered out of order, split over two contents, next to a taken id": {
		chat: `{"messages":[{"role":"user","content":"q"},` +
			`{"role":"assistant","tool_calls":[{"id":"call_1_1","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"call_1_1_2","type":"function","function":{"name":"b","arguments":"{}"}},{"id":"call_1_2","type":"function","function":{"name":"c","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"call_1_1","content":"A"},{"role":"tool","tool_call_id":"call_1_2","content":"C"},{"role":"tool","tool_call_id":"call_1_1_2","content":"B"}]}`,
		chatWarn: []string{
			`messages.1.tool_calls.1: tool call without an id; wrote id "call_1_1_2" (OAI-CC-RESULT-ID-REQUIRED)`,
			`messages.1.tool_calls.2: tool call without an id; wrote id "call_1_2" (OAI-CC-RESULT-ID-REQUIRED)`,
			`messages.3.tool_call_id: tool result without a call id; matched to id "call_1_2"`,
			`messages.4.tool_call_id: tool result without a call id; matched to id "call_1_1_2"`,
		},
		rs: `{"input":[{"type":"message","role":"user","content":"q"},` +
			`{"type":"function_call","call_id":"call_1_1","name":"a","arguments":"{}"},{"type":"function_call","call_id":"call_1_1_2","name":"b","arguments":"{}"},{"type":"function_call","call_id":"call_1_2","name":"c","arguments":"{}"},` +
			`{"type":"function_call_output","call_id":"call_1_1","output":"A"},{"type":"function_call_output","call_id":"call_1_2","output":"C"},{"type":"function_call_output","call_id":"call_1_1_2","output":"B"}]}`,
		rsWarn: []string{
			`input.2.call_id: tool call without an id; wrote id "call_1_1_2" (OAI-RS-CALLID-LEN)`,
			`input.3.call_id: tool call without an id; wrote id "call_1_2" (OAI-RS-CALLID-LEN)`,
			`input.5.call_id: tool result without a call id; matched to id "call_1_2"`,
			`input.6.call_id: tool result without a call id; matched to id "call_1_1_2"`,
		},
	},
	"an id longer than Responses takes": {
		chat: `{"messages":[{"role":"user","content":"q"},` +
			`{"role":"assistant","tool_calls":[{"id":"` + strings.Repeat("x", 70) + `","type":"function","function":{"name":"a","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"` + strings.Repeat("x", 70) + `","content":"A"}]}`,
		rs: `{"input":[{"type":"message","role":"user","content":"q"},` +
			`{"type":"function_call","call_id":"` + strings.Repeat("x", 52) + `_c71bd109","name":"a","arguments":"{}"},` +
			`{"type":"function_call_output","call_id":"` + strings.Repeat("x", 52) + `_c71bd109","output":"A"}]}`,
		rsWarn: []string{
			`input.1.call_id: tool call id "` + strings.Repeat("x", 70) + `" is longer than 64 characters (OAI-RS-CALLID-LEN); rewritten to "` + strings.Repeat("x", 52) + `_c71bd109" in the function_call and its function_call_output`,
		},
	},
}

// TestFromGemini converts Gemini bodies whose calls have no ids into Chat
// Completions and Responses: every call gets an id, every result the id of
// its call, each change comes with a warning, and the provider would
// accept the result.
func TestFromGemini(t *testing.T) {
	bodies := codectest.GeminiWithoutIDs()
	if len(bodies) != len(fromGemini) {
		t.Errorf("%d Gemini bodies, %d expected encodings", len(bodies), len(fromGemini))
	}
	for _, g := range bodies {
		t.Run(g.Name, func(t *testing.T) {
			tt, ok := fromGemini[g.Name]
			if !ok {
				t.Fatalf("no expected encoding of Gemini body %q", g.Name)
			}
			src, err := gemini.Decode([]byte(g.Body))
			if err != nil {
				t.Fatalf("gemini.Decode(%s) error: %v", g.Name, err)
			}
			for _, c := range []struct {
				dialect transcript.Dialect
				encode  func() ([]byte, []provider.Warning, error)
				decode  func([]byte) ([]llm.Message, []transcript.Violation, error)
				want    string
				warn    []string
			}{
				{transcript.OpenAIChat, func() ([]byte, []provider.Warning, error) { return EncodeChat(&ChatRequest{Messages: src.Messages}) },
					func(b []byte) ([]llm.Message, []transcript.Violation, error) {
						r, err := DecodeChat(b)
						if err != nil {
							return nil, nil, err
						}
						return r.Messages, r.Wire, nil
					}, tt.chat, tt.chatWarn},
				{transcript.OpenAIResponses, func() ([]byte, []provider.Warning, error) {
					return EncodeResponses(&ResponsesRequest{Messages: src.Messages})
				}, func(b []byte) ([]llm.Message, []transcript.Violation, error) {
					r, err := DecodeResponses(b)
					if err != nil {
						return nil, nil, err
					}
					return r.Messages, r.Wire, nil
				}, tt.rs, tt.rsWarn},
			} {
				got, warns, err := c.encode()
				if err != nil {
					t.Fatalf("encode %s as %s error: %v", g.Name, c.dialect, err)
				}
				if string(got) != c.want {
					t.Errorf("encode %s as %s =\n%s\nwant\n%s", g.Name, c.dialect, got, c.want)
				}
				if gw := warningStrings(warns); strings.Join(gw, "\n") != strings.Join(c.warn, "\n") {
					t.Errorf("encode %s as %s warnings =\n%s\nwant\n%s", g.Name, c.dialect, strings.Join(gw, "\n"), strings.Join(c.warn, "\n"))
				}
				again, _, _ := c.encode()
				if string(again) != string(got) {
					t.Errorf("encode %s as %s is not deterministic:\n%s\n%s", g.Name, c.dialect, got, again)
				}
				msgs, wire, err := c.decode(got)
				if err != nil {
					t.Fatalf("decode %s as %s error: %v", got, c.dialect, err)
				}
				vs := append(wire, transcript.Check(msgs, c.dialect)...)
				if !transcript.Accepted(vs) {
					t.Errorf("transcript.Check(%s as %s) = %v, want accepted", g.Name, c.dialect, vs)
				}
			}
		})
	}
}

// TestDecodedIDsKept checks that a decoded body is written back with its
// own ids, even empty ones: ids are made only for a conversion.
func TestDecodedIDsKept(t *testing.T) {
	chat := `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","content":"A"}]}`
	r, err := DecodeChat([]byte(chat))
	if err != nil {
		t.Fatal(err)
	}
	if got, warns, err := EncodeChat(r); err != nil || string(got) != chat || len(warns) != 0 {
		t.Errorf("EncodeChat(DecodeChat(%s)) = %s, %v, %v; want it unchanged, without warnings", chat, got, warns, err)
	}
	rs := `{"input":[{"type":"message","role":"user","content":"q"},{"type":"function_call","call_id":"","name":"a","arguments":"{}"},{"type":"function_call_output","call_id":"","output":"A"}]}`
	q, err := DecodeResponses([]byte(rs))
	if err != nil {
		t.Fatal(err)
	}
	if got, warns, err := EncodeResponses(q); err != nil || string(got) != rs || len(warns) != 0 {
		t.Errorf("EncodeResponses(DecodeResponses(%s)) = %s, %v, %v; want it unchanged, without warnings", rs, got, warns, err)
	}
}

func TestShortenID(t *testing.T) {
	for _, id := range []string{strings.Repeat("x", 65), strings.Repeat("é", 70), strings.Repeat("€", 70), "a" + strings.Repeat("€", 70)} {
		got := shortenID(id)
		if !utf8.ValidString(got) || len(got) > maxCallID-3 || !strings.HasPrefix(id, got[:len(got)-9]) {
			t.Errorf("shortenID(%q) = %q, want valid UTF-8 of at most %d bytes that starts like the id", id, got, maxCallID-3)
		}
	}
}

// TestDocumentsFromOtherDialects converts a PDF as the Anthropic codec
// reads a document block and the Gemini codec a fileData part: the inline
// one becomes a file part (Chat) or an input_file (Responses), the one
// given by URL is left out with a warning; neither becomes an image.
func TestDocumentsFromOtherDialects(t *testing.T) {
	ant, err := anthropic.Decode([]byte(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"read"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjM="}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	gem, err := gemini.Decode([]byte(`{"contents":[{"role":"user","parts":[{"text":"read"},{"fileData":{"mimeType":"application/pdf","fileUri":"https://x/a.pdf"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		msgs      []llm.Message
		chat, rs  string
		chatWarn  string
		rsWarning string
	}{
		{"anthropic document", ant.Messages,
			`{"messages":[{"role":"user","content":[{"type":"text","text":"read"},{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjM=","filename":"document.pdf"}}]}]}`,
			`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"read"},{"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjM="}]}]}`,
			"", ""},
		{"gemini fileData", gem.Messages,
			`{"messages":[{"role":"user","content":"read"}]}`,
			`{"input":[{"type":"message","role":"user","content":"read"}]}`,
			`messages.0: a document of type "application/pdf" given by URL has no Chat Completions form (a file part takes inline data); it is left out`,
			`input.0: a document of type "application/pdf" given by URL has no Responses form (a file part takes inline data); it is left out`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat, warns, err := EncodeChat(&ChatRequest{Messages: tt.msgs})
			if err != nil || string(chat) != tt.chat || strings.Join(warningStrings(warns), "\n") != tt.chatWarn {
				t.Errorf("EncodeChat(%s) = %s, %v, %v\nwant %s, %q", tt.name, chat, warningStrings(warns), err, tt.chat, tt.chatWarn)
			}
			rs, warns, err := EncodeResponses(&ResponsesRequest{Messages: tt.msgs})
			if err != nil || string(rs) != tt.rs || strings.Join(warningStrings(warns), "\n") != tt.rsWarning {
				t.Errorf("EncodeResponses(%s) = %s, %v, %v\nwant %s, %q", tt.name, rs, warningStrings(warns), err, tt.rs, tt.rsWarning)
			}
		})
	}
}
