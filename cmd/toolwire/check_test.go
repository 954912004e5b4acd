package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/transcript"
)

// chatOptions is a Chat Completions body with generation options.
const chatOptions = `{"model":"gpt-4.1","max_tokens":300,"temperature":0.2,"top_p":0.9,"stop":"END","seed":7,"n":2,"messages":[{"role":"user","content":"hi"}]}`

// TestCheckCommand drives toolwire check and convert from the repository
// root, so that file names in the output read as in the README.
func TestCheckCommand(t *testing.T) {
	t.Chdir("../..")
	const (
		oai = "examples/transcripts/openai-interrupted.json"
		ant = "examples/transcripts/anthropic-human-before-result.json"
		gem = "examples/transcripts/gemini-split-responses.json"
	)
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		golden   string // stdout then stderr, under cmd/toolwire/testdata
		inStderr string
		inStdout string
	}{
		{name: "openai interrupted", args: []string{"check", oai}, code: exitcode.Rejected, golden: "check_openai.txt"},
		{name: "openai interrupted json", args: []string{"check", "--json", oai}, code: exitcode.Rejected, golden: "check_openai.json"},
		{name: "openai fix", args: []string{"check", "--fix", oai}, golden: "check_openai_fix.txt"},
		{name: "anthropic human before result", args: []string{"check", ant}, code: exitcode.Rejected, golden: "check_anthropic.txt"},
		{name: "anthropic fix", args: []string{"check", "--fix", ant}, golden: "check_anthropic_fix.txt"},
		{name: "anthropic fix json", args: []string{"check", "--fix", "--json", ant}, golden: "check_anthropic_fix.json"},
		{name: "gemini split responses", args: []string{"check", "--dialect", "gemini", gem}, code: exitcode.Rejected, golden: "check_gemini.txt"},
		{name: "gemini fix", args: []string{"check", "--fix", gem}, golden: "check_gemini_fix.txt"},
		{name: "accepted from stdin", stdin: `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`,
			args: []string{"check", "-"}, golden: "check_accepted.txt"},
		{name: "responses bare array", stdin: `[{"role":"user","content":"q"},{"type":"function_call","call_id":"c1","name":"a","arguments":"{}"}]`,
			args: []string{"check", "--json"}, code: exitcode.Rejected, golden: "check_responses.json"},
		{name: "chat wire violation fixed by re-encoding", stdin: `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","tool_calls":[]}]}`,
			args: []string{"check", "--fix"}, golden: "check_wire_fix.txt"},
		{name: "warnings only", stdin: `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"call_0123456789012345678901234567890123456789","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0123456789012345678901234567890123456789","content":"ok"}]}`,
			args: []string{"check"}, golden: "check_warning.txt"},
		// A field the API does not document, and an option out of its
		// range, are named; the body is still accepted.
		{name: "unknown field and absurd number", stdin: `{"model":"gpt-4o","temprature":0.2,"max_tokens":-5,"messages":[{"role":"user","content":"q"}]}`,
			args: []string{"check"}, golden: "check_fields.txt"},
		// Where the provider's 400 for an option is recorded, it is a
		// rejection with the provider's text.
		{name: "option the provider rejects", stdin: `{"model":"gpt-4o","temperature":-1,"input":[{"role":"user","content":"q"}]}`,
			args: []string{"check", "--dialect", "openai-responses"}, code: exitcode.Rejected,
			inStdout: "provider error: Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."},
		{name: "conflicting duplicate is not guessed at", stdin: `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"1"},{"role":"tool","tool_call_id":"c1","content":"2"}]`,
			args: []string{"check", "--fix", "--dialect", "openai-chat"}, code: exitcode.Rejected, golden: "check_conflict_fix.txt", inStderr: "cannot repair without guessing"},
		{name: "missing thought signature gets Google's placeholder", stdin: `{"model":"models/gemini-3-pro-preview","contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"a","args":{}},"thoughtSignature":"c2ln"}]},{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":"1"}}}]},{"role":"model","parts":[{"functionCall":{"name":"b","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"b","response":{"output":"2"}}}]}]}`,
			args: []string{"check", "--fix"}, inStdout: `"thoughtSignature":"skip_thought_signature_validator"`, inStderr: "GEM-THOUGHT-SIG"},
		// A Gemini body names no model: --model gives the one its URL names.
		{name: "gemini 3 named by --model", stdin: gemini3NoSig, args: []string{"check", "--model", "gemini-3-pro-preview"}, code: exitcode.Rejected, inStdout: "GEM-THOUGHT-SIG"},
		{name: "gemini 3 named by --model, fixed", stdin: gemini3NoSig, args: []string{"check", "--fix", "--model", "gemini-3-pro-preview"},
			inStdout: `"thoughtSignature":"skip_thought_signature_validator"`, inStderr: "GEM-THOUGHT-SIG"},
		{name: "gemini 2.5 named by --model", stdin: gemini3NoSig, args: []string{"check", "--model", "gemini-2.5-flash"}, golden: "check_gemini_25.txt"},
		{name: "unknown dialect", args: []string{"check", "--dialect", "cohere", oai}, code: exitcode.Usage, inStderr: `--dialect "cohere": unknown dialect`},
		{name: "not JSON", stdin: "hello", args: []string{"check"}, code: exitcode.Usage, inStderr: "standard input: not a JSON object or array"},
		{name: "empty input", stdin: "", args: []string{"check"}, code: exitcode.Usage, inStderr: "standard input: empty input"},
		{name: "unknown object", stdin: `{"prompt":"hi"}`, args: []string{"check"}, code: exitcode.Usage, inStderr: `without "messages", "input" or "contents"`},
		{name: "decode error names the path", stdin: `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"a","arguments":1}}]}]}`,
			args: []string{"check", "--dialect", "openai-chat"}, code: exitcode.Usage, inStderr: "standard input: as openai-chat: openai: messages.0.tool_calls.0.function.arguments: want a string, got a number"},
		{name: "missing file", args: []string{"check", "nope.json"}, code: exitcode.Usage, inStderr: "nope.json"},
		{name: "convert openai to anthropic", args: []string{"convert", "--to", "anthropic", oai}, golden: "convert_openai_anthropic.txt"},
		{name: "convert anthropic to openai-chat", args: []string{"convert", "--to", "openai-chat", "--from", "anthropic", ant}, golden: "convert_anthropic_chat.txt"},
		{name: "convert gemini to responses", args: []string{"convert", "--to", "openai-responses", gem}, golden: "convert_gemini_responses.txt"},
		// Generation options go over under the target's names; one the
		// target lacks is named in a warning, never dropped silently.
		{name: "convert options to anthropic", stdin: chatOptions, args: []string{"convert", "--to", "anthropic"}, golden: "convert_options_anthropic.txt",
			inStdout: `"max_tokens":300,"temperature":0.2,"top_p":0.9,"stop_sequences":["END"]`, inStderr: "warning: seed: anthropic has no such option; it is not carried over"},
		{name: "convert options to gemini", stdin: chatOptions, args: []string{"convert", "--to", "gemini"}, golden: "convert_options_gemini.txt",
			inStdout: `"generationConfig":{"maxOutputTokens":300,"temperature":0.2,"topP":0.9,"stopSequences":["END"],"seed":7}`},
		{name: "convert options to responses", stdin: chatOptions, args: []string{"convert", "--to", "openai-responses"}, golden: "convert_options_responses.txt",
			inStdout: `"max_output_tokens":300,"temperature":0.2,"top_p":0.9`, inStderr: "warning: stop: openai-responses has no such option"},
		{name: "convert gemini options to chat", stdin: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":200,"temperature":1,"topK":40,"candidateCount":1}}`,
			args: []string{"convert", "--to", "openai-chat"}, golden: "convert_options_gemini_chat.txt",
			inStdout: `"max_completion_tokens":200,"temperature":1`, inStderr: "warning: generationConfig.topK: openai-chat has no such option"},
		{name: "convert without --to", args: []string{"convert", oai}, code: exitcode.Usage, inStderr: "--to is required"},
		{name: "convert to unknown", args: []string{"convert", "--to", "palm", oai}, code: exitcode.Usage, inStderr: `--to "palm": unknown dialect`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("run(%q) exit code = %d, want %d\nstdout: %s\nstderr: %s", tt.args, code, tt.code, stdout, stderr)
			}
			if tt.golden != "" {
				golden.Check(t, filepath.Join("cmd", "toolwire", "testdata", tt.golden), []byte(stdout+"--- stderr\n"+stderr))
			}
			if tt.inStderr != "" && !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr, tt.inStderr)
			}
			if tt.inStdout != "" && !strings.Contains(stdout, tt.inStdout) {
				t.Errorf("run(%q) stdout = %q, want it to contain %q", tt.args, stdout, tt.inStdout)
			}
		})
	}
}

// gemini3NoSig is a Gemini body whose call has no thought signature,
// which a Gemini 3 model rejects (GEM-THOUGHT-SIG) and Gemini 2.5 takes.
const gemini3NoSig = `{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},` +
	`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},` +
	`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}]}`

// TestCheckJSONContract pins the documented JSON shape.
func TestCheckJSONContract(t *testing.T) {
	stdout, _, code := runCmd(t, `[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"x","content":"r"}]`, "check", "--json", "--dialect", "openai-chat")
	if code != exitcode.Rejected {
		t.Fatalf("check --json exit code = %d, want %d", code, exitcode.Rejected)
	}
	var got struct {
		Accepted   *bool  `json:"accepted"`
		Dialect    string `json:"dialect"`
		Violations []struct {
			Rule          *string `json:"rule"`
			Path          *string `json:"path"`
			Message       *string `json:"message"`
			ProviderError *string `json:"provider_error"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("check --json output %q: %v", stdout, err)
	}
	if got.Accepted == nil || *got.Accepted || got.Dialect != "openai-chat" || len(got.Violations) != 1 {
		t.Fatalf("check --json = %s, want one violation, accepted false, dialect openai-chat", stdout)
	}
	v := got.Violations[0]
	if v.Rule == nil || *v.Rule != "OAI-CC-NO-ORPHAN-RESULT" || v.Path == nil || *v.Path != "messages.1" || v.Message == nil || v.ProviderError == nil {
		t.Errorf("check --json violation = %s, want rule OAI-CC-NO-ORPHAN-RESULT at messages.1 with message and provider_error", stdout)
	}
	if !strings.HasPrefix(stdout, `{"accepted":false,"dialect":"openai-chat","violations":[`) {
		t.Errorf("check --json = %s, want keys accepted, dialect, violations first", stdout)
	}
}

// TestFixOutputIsAccepted re-checks what check --fix printed, in every
// dialect, for every example transcript converted into it.
func TestFixOutputIsAccepted(t *testing.T) {
	t.Chdir("../..")
	for _, ex := range []string{"openai-interrupted.json", "anthropic-human-before-result.json", "gemini-split-responses.json"} {
		for _, d := range transcript.Dialects() {
			t.Run(ex+"/"+string(d), func(t *testing.T) {
				converted, _, code := runCmd(t, "", "convert", "--to", string(d), filepath.Join("examples", "transcripts", ex))
				if code != exitcode.OK {
					t.Fatalf("convert --to %s exit code = %d", d, code)
				}
				fixed, stderr, code := runCmd(t, converted, "check", "--fix", "--dialect", string(d))
				if code != exitcode.OK {
					t.Fatalf("check --fix --dialect %s exit code = %d\n%s", d, code, stderr)
				}
				if _, stderr, code := runCmd(t, fixed, "check", "--dialect", string(d)); code != exitcode.OK {
					t.Errorf("check of the fixed body exit code = %d, want 0\n%s", code, stderr)
				}
			})
		}
	}
}

// TestCheckPathsInBody checks that the paths check prints, and the paths
// its messages and the repairs of --fix name, point at the problem in the
// input body, for bodies that hold what the llm form skips or counts
// differently: a legacy function message, an audio part, an
// item_reference, role "system" messages at the start of an Anthropic
// messages array, a string content.
func TestCheckPathsInBody(t *testing.T) {
	tests := []struct {
		name, dialect, body string
		// rule → a fragment of the JSON found at the rule's path
		want map[string]string
		// a fragment the message of the first wanted rule holds
		inMessage string
		// "rule action" → a fragment of the JSON at the path of that --fix
		// repair
		fix map[string]string
	}{
		{name: "chat legacy function message", dialect: "openai-chat",
			body:      `{"messages":[{"role":"user","content":"q"},{"role":"function","name":"f","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"next"}]}`,
			want:      map[string]string{"OAI-CC-ANSWER-ALL": `"id":"c1"`},
			inMessage: "the assistant message messages.2 calls f (c1), but no tool message answers it before messages.3 (user)",
			fix:       map[string]string{"OAI-CC-ANSWER-ALL answer": `"id":"c1"`}},
		{name: "chat audio part", dialect: "openai-chat",
			body: `{"messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}},{"type":"text","text":"q"}]},{"role":"function","name":"f","content":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`,
			want: map[string]string{"OAI-CC-TOOL-IMAGE": `"tool_call_id":"c1"`},
			fix:  map[string]string{"OAI-CC-TOOL-IMAGE lift-image": `"tool_call_id":"c1"`, "OAI-CC-TOOL-IMAGE move": `"tool_calls"`}},
		{name: "responses item_reference", dialect: "openai-responses",
			body:      `{"model":"m","input":[{"role":"user","content":"q"},{"type":"item_reference","id":"msg_1"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"role":"user","content":"next"}]}`,
			want:      map[string]string{"OAI-RS-ANSWER-ALL": `"call_id":"c1"`},
			inMessage: "function_call input.2 (f)",
			fix:       map[string]string{"OAI-RS-ANSWER-ALL answer": `"call_id":"c1"`}},
		{name: "responses orphan output after two assistant messages", dialect: "openai-responses",
			body: `{"input":[{"type":"item_reference","id":"msg_0"},{"role":"user","content":"q"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]},{"type":"function_call_output","call_id":"zz","output":"x"}]}`,
			want: map[string]string{"OAI-RS-NO-ORPHAN-OUTPUT": `"call_id":"zz"`}},
		{name: "anthropic system field and system message", dialect: "anthropic",
			body:      `{"model":"claude-x","max_tokens":9,"system":"top","messages":[{"role":"system","content":"more"},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":"next"}]}`,
			want:      map[string]string{"ANT-SYSTEM-ROLE": `"role":"system"`, "ANT-RESULT-NEXT": `"id":"t1"`},
			inMessage: "provider error messages.2: `tool_use` ids were found",
			fix:       map[string]string{"ANT-RESULT-NEXT answer": `"id":"t1"`}},
		{name: "anthropic bare array with a system message", dialect: "anthropic",
			body: `[{"role":"system","content":"s"},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":"next"}]`,
			want: map[string]string{"ANT-SYSTEM-ROLE": `"role":"system"`, "ANT-RESULT-NEXT": `"id":"t1"`}},
		{name: "anthropic empty string content", dialect: "anthropic",
			body: `{"system":"s","messages":[{"role":"user","content":"q"},{"role":"assistant","content":""}]}`,
			want: map[string]string{"ANT-TEXT-NONEMPTY": `""`},
			fix:  map[string]string{"ANT-TEXT-NONEMPTY drop": `""`}},
		{name: "gemini", dialect: "gemini",
			body: `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"text":"next"}]}]}`,
			want: map[string]string{"GEM-RESP-COUNT": `"functionCall"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc any
			if err := json.Unmarshal([]byte(tt.body), &doc); err != nil {
				t.Fatal(err)
			}
			// at returns the JSON at a path of the body; a bare array's paths
			// are those of a full body.
			at := func(path string) string {
				v := doc
				segs := strings.Split(path, ".")
				if _, bare := doc.([]any); bare && len(segs) > 0 {
					segs = segs[1:]
				}
				for _, s := range segs {
					switch x := v.(type) {
					case map[string]any:
						v = x[s]
					case []any:
						k, err := strconv.Atoi(s)
						if err != nil || k >= len(x) {
							return "<no such path>"
						}
						v = x[k]
					default:
						return "<no such path>"
					}
				}
				b, _ := json.Marshal(v)
				return string(b)
			}
			stdout, stderr, _ := runCmd(t, tt.body, "check", "--json", "--dialect", tt.dialect)
			var rep struct{ Violations []violationJSON }
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("check --json = %q, %q: %v", stdout, stderr, err)
			}
			found := map[string]bool{}
			for _, v := range rep.Violations {
				frag, ok := tt.want[v.Rule]
				if !ok {
					continue
				}
				found[v.Rule] = true
				if got := at(v.Path); !strings.Contains(got, frag) {
					t.Errorf("check %s: %s at %s, where the body has %s; want it to hold %s", tt.body, v.Rule, v.Path, got, frag)
				}
			}
			for rule := range tt.want {
				if !found[rule] {
					t.Errorf("check %s = %s, want a %s violation", tt.body, stdout, rule)
				}
			}
			if tt.inMessage != "" {
				human, _, _ := runCmd(t, tt.body, "check", "--dialect", tt.dialect)
				if !strings.Contains(strings.ReplaceAll(human, "provider error: ", "provider error "), tt.inMessage) {
					t.Errorf("check %s =\n%s\nwant it to say %q", tt.body, human, tt.inMessage)
				}
			}
			if tt.fix == nil {
				return
			}
			_, stderr, _ = runCmd(t, tt.body, "check", "--fix", "--json", "--dialect", tt.dialect)
			var fix struct{ Changes []changeJSON }
			if err := json.Unmarshal([]byte(stderr), &fix); err != nil {
				t.Fatalf("check --fix --json stderr = %q: %v", stderr, err)
			}
			found = map[string]bool{}
			for _, c := range fix.Changes {
				frag, ok := tt.fix[c.Rule+" "+c.Action]
				if !ok {
					continue
				}
				found[c.Rule+" "+c.Action] = true
				if got := at(c.Path); !strings.Contains(got, frag) {
					t.Errorf("check --fix %s: repair %s at %s, where the body has %s; want it to hold %s", tt.body, c.Rule, c.Path, got, frag)
				}
			}
			for change := range tt.fix {
				if !found[change] {
					t.Errorf("check --fix %s: repairs %s, want a %s repair", tt.body, stderr, change)
				}
			}
		})
	}
}

// TestConvertReportsUnmodeled checks that convert names, for every source
// dialect, what the source body holds that the llm form does not, and so
// does not reach the target: the codec's Unmodeled notes, with their paths.
func TestConvertReportsUnmodeled(t *testing.T) {
	tests := []struct {
		from, to, body, want string
	}{
		{"anthropic", "openai-chat",
			`{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]}]}`,
			`warning: messages.0.content.0.cache_control: lost in conversion: the "cache_control" field is not part of the llm form`},
		{"anthropic", "gemini",
			`[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a","citations":[{"type":"char_location"}]}]}]`,
			`warning: messages.1.content.0.citations: lost in conversion: the "citations" field is not part of the llm form`},
		{"gemini", "anthropic",
			`{"contents":[{"role":"user","parts":[{"text":"q","videoMetadata":{"fps":1}}]}]}`,
			`warning: contents.0.parts.0.videoMetadata: lost in conversion: the "videoMetadata" field is not part of the llm form`},
		{"gemini", "openai-responses",
			`{"contents":[{"role":"user","parts":[{"text":"q"}]}],"tools":[{"googleSearch":{}}]}`,
			`warning: tools.0: lost in conversion: a tool without function declarations (googleSearch, codeExecution, ...) is not part of the llm form`},
		{"openai-chat", "anthropic",
			`{"messages":[{"role":"user","content":"q","name":"ann"}]}`,
			`warning: messages.0.name: lost in conversion: the "name" field of a user message is not part of the llm form`},
		{"openai-responses", "gemini",
			`{"input":[{"type":"item_reference","id":"msg_1"},{"role":"user","content":"q"}]}`,
			`warning: input.0: lost in conversion: an item of type "item_reference" is not part of the llm form`},
	}
	for _, tt := range tests {
		_, stderr, code := runCmd(t, tt.body, "convert", "--from", tt.from, "--to", tt.to)
		if code != exitcode.OK || !strings.Contains(stderr, tt.want) {
			t.Errorf("convert --from %s --to %s %s: exit %d, stderr %q; want it to contain %q", tt.from, tt.to, tt.body, code, stderr, tt.want)
		}
	}
}

// TestConvertIDlessCalls converts Gemini bodies whose calls have no ids
// (functionCall.id is optional) into every other dialect: the converted
// body must pass check as it is, with each id it made reported.
func TestConvertIDlessCalls(t *testing.T) {
	bodies := map[string]string{
		"parallel calls answered in order": `{"contents":[{"role":"user","parts":[{"text":"Paris and Rome?"}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Paris"}}},{"functionCall":{"name":"weather","args":{"city":"Rome"}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"output":"18C"}}},{"functionResponse":{"name":"weather","response":{"output":"22C"}}}]},` +
			`{"role":"model","parts":[{"text":"18C and 22C."}]}]}`,
		"two turns, answered out of order": `{"contents":[{"role":"user","parts":[{"text":"q"}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"b","args":{}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"name":"b","response":{"output":"B"}}},{"functionResponse":{"name":"a","response":{"output":"A"}}}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"a","args":{"again":true}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":"A2"}}}]}]}`,
	}
	for name, body := range bodies {
		for _, d := range []transcript.Dialect{transcript.OpenAIChat, transcript.OpenAIResponses, transcript.Anthropic} {
			t.Run(name+"/"+string(d), func(t *testing.T) {
				converted, stderr, code := runCmd(t, body, "convert", "--to", string(d))
				if code != exitcode.OK {
					t.Fatalf("convert --to %s exit code = %d\n%s", d, code, stderr)
				}
				if strings.Contains(stderr, "note: the converted body breaks") {
					t.Errorf("convert --to %s stderr = %s, want no broken rule", d, stderr)
				}
				if !strings.Contains(stderr, "tool call without an id; wrote id") || !strings.Contains(stderr, "tool result without a call id; matched to id") {
					t.Errorf("convert --to %s stderr = %s, want a warning for each id it made", d, stderr)
				}
				if out, stderr, code := runCmd(t, converted, "check", "--dialect", string(d)); code != exitcode.OK {
					t.Errorf("check --dialect %s of the converted body exit code = %d, want 0\n%s%s", d, code, out, stderr)
				}
			})
		}
	}
}

// wireCases are bodies that break each rule a codec reports in Wire (what
// the llm form cannot show), with the body check --fix must print.
var wireCases = []struct {
	rule, name, dialect, body, fixed string
}{
	{"ANT-JSON-TYPE", "a tool result whose content is an object", "anthropic",
		`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":{"temp":18}}]}]}`,
		`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"{\"temp\":18}"}]}]}`},
	{"GEM-ROLE", "a content with the role assistant", "gemini",
		`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"assistant","parts":[{"text":"a"}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"}]}]}`},
	{"OAI-CC-JSON-TYPE", "arguments and a tool output as objects", "openai-chat",
		`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"a":1}}}]},{"role":"tool","tool_call_id":"c1","content":{"temp":18}}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"{\"temp\":18}"}]}`},
	{"OAI-RS-JSON-TYPE", "arguments and an output as objects", "openai-responses",
		`{"model":"m","input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"c1","name":"f","arguments":{"a":1}},{"type":"function_call_output","call_id":"c1","output":{"temp":18}}]}`,
		`{"model":"m","input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"a\":1}"},{"type":"function_call_output","call_id":"c1","output":"{\"temp\":18}"}]}`},
	{"ANT-SYSTEM-ROLE", "system field and a system message", "anthropic",
		`{"model":"m","max_tokens":9,"system":"top","messages":[{"role":"system","content":"more"},{"role":"user","content":"q"}]}`,
		`{"model":"m","max_tokens":9,"system":[{"type":"text","text":"top"},{"type":"text","text":"more"}],"messages":[{"role":"user","content":"q"}]}`},
	{"ANT-SYSTEM-ROLE", "system messages, no system field", "anthropic",
		`{"model":"m","max_tokens":9,"messages":[{"role":"system","content":"a"},{"role":"system","content":[{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":"q"}]}`,
		`{"model":"m","max_tokens":9,"system":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"q"}]}`},
	{"ANT-SYSTEM-ROLE", "one system message, and one in the middle", "anthropic",
		`{"model":"claude-sonnet-4-0","max_tokens":9,"messages":[{"role":"system","content":"a"},{"role":"user","content":"q"},{"role":"system","content":"b"},{"role":"assistant","content":"r"}]}`,
		`{"model":"claude-sonnet-4-0","max_tokens":9,"system":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"r"}]}`},
	{"ANT-MAX-TOKENS", "no max_tokens", "anthropic",
		`{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"q"}]}`,
		`{"model":"claude-sonnet-4-5","max_tokens":4096,"messages":[{"role":"user","content":"q"}]}`},
	{"GEM-PARTS-NONEMPTY", "a model part without data", "gemini",
		`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"},{}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"}]}]}`},
	{"GEM-RESPONSE-OBJECT", "a string response", "gemini",
		`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":"ok"}}]}]}`,
		`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"ok"}}}]}]}`},
	{"OAI-CC-EMPTY-TOOLCALLS", "empty tool_calls", "openai-chat",
		`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","tool_calls":[]}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}`},
	{"OAI-CC-PART-TYPE", "a message written where a content part belongs", "openai-chat",
		`{"model":"m","messages":[{"role":"user","content":[{"role":"system","content":"Say hi."},{"text":"Hello"}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Say hi."},{"type":"text","text":"Hello"}]}]}`},
	{"OAI-CC-NULL-CONTENT", "null user content", "openai-chat",
		`{"model":"m","messages":[{"role":"user","content":null},{"role":"assistant","content":"a"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"(empty)"},{"role":"assistant","content":"a"}]}`},
	{"OAI-CC-NULL-CONTENT", "assistant without content or calls", "openai-chat",
		`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}]}`},
	{"OAI-CC-EMPTY-TOOL-CONTENT", "empty tool content array", "openai-chat",
		`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[]}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":""}]}`},
	{"OAI-RS-DUP-ITEM", "a message id twice", "openai-responses",
		`{"model":"m","input":[{"type":"message","id":"msg_1","role":"user","content":"q"},{"type":"message","id":"msg_1","role":"user","content":"r"}]}`,
		`{"model":"m","input":[{"type":"message","id":"msg_1","role":"user","content":"q"},{"type":"message","role":"user","content":"r"}]}`},
	{"OAI-RS-REASONING-FOLLOW", "a stored reasoning item followed by a message without an id", "openai-responses",
		`{"model":"gpt-5","input":[{"role":"user","content":"q"},{"type":"reasoning","id":"rs_1","summary":[]},{"role":"assistant","content":"a"},{"role":"user","content":"more?"}]}`,
		`{"model":"gpt-5","input":[{"role":"user","content":"q"},{"role":"assistant","content":"a"},{"role":"user","content":"more?"}]}`},
	{"OAI-RS-DUP-ITEM", "an opaque item twice", "openai-responses",
		`{"model":"m","input":[{"type":"message","role":"user","content":"q"},{"type":"item_reference","id":"x"},{"type":"item_reference","id":"x"}]}`,
		`{"model":"m","input":[{"type":"message","role":"user","content":"q"},{"type":"item_reference","id":"x"}]}`},
}

// TestFixClearsWire checks, for every rule a codec reports in Wire, that
// check reports it, that check --fix prints a body the provider accepts
// and lists the repair, and that check then accepts the printed body.
func TestFixClearsWire(t *testing.T) {
	for _, tt := range wireCases {
		t.Run(tt.rule+"/"+tt.name, func(t *testing.T) {
			stdout, _, code := runCmd(t, tt.body, "check", "--json", "--dialect", tt.dialect)
			if code != exitcode.Rejected || !strings.Contains(stdout, `"rule":"`+tt.rule+`"`) {
				t.Fatalf("check %s exit code = %d, report %s; want 1 with %s", tt.body, code, stdout, tt.rule)
			}
			fixed, stderr, code := runCmd(t, tt.body, "check", "--fix", "--dialect", tt.dialect)
			if code != exitcode.OK {
				t.Errorf("check --fix %s exit code = %d, want 0\n%s", tt.body, code, stderr)
			}
			if got := strings.TrimSuffix(fixed, "\n"); got != tt.fixed {
				t.Errorf("check --fix %s =\n%s\nwant\n%s", tt.body, got, tt.fixed)
			}
			if !strings.Contains(stderr, tt.rule) {
				t.Errorf("check --fix %s repairs =\n%s\nwant one for %s", tt.body, stderr, tt.rule)
			}
			if out, stderr, code := runCmd(t, fixed, "check", "--dialect", tt.dialect); code != exitcode.OK {
				t.Errorf("check of the fixed body %s exit code = %d, want 0\n%s%s", fixed, code, out, stderr)
			}
		})
	}
}

// TestWireCasesComplete checks that wireCases covers every rule a codec
// reports in Wire, by finding the rule IDs in the codecs' source.
func TestWireCasesComplete(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "provider", "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no codec sources found: %v", err)
	}
	// Rule IDs where a decoder records a Wire violation: a Violation
	// literal's Rule, or the OpenAI decoders' violation helper.
	rule := regexp.MustCompile(`(?:Rule: |d\.violation\()"([A-Z]+(?:-[A-Z]+)+)"`)
	covered := map[string]bool{}
	for _, c := range wireCases {
		covered[c.rule] = true
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rule.FindAllStringSubmatch(string(src), -1) {
			found++
			if !covered[m[1]] {
				t.Errorf("%s reports %s in Wire, and no wireCases entry proves check --fix clears it", f, m[1])
			}
		}
	}
	if found < len(covered) {
		t.Errorf("found %d Wire rules in the codecs, want at least the %d wireCases cover", found, len(covered))
	}
}

// TestCheckSeveralFiles: check takes several files (the dumps of a run):
// a report for each, the worst exit code, and with --json one array.
func TestCheckSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.json", `{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`)
	bad := writeFile(t, dir, "bad.json", `{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"},{"role":"tool","tool_call_id":"c1","content":"x"}]}`)
	junk := writeFile(t, dir, "junk.json", `{"messages":[`)
	tests := []struct {
		files []string
		code  int
	}{
		{[]string{good, good}, 0},
		{[]string{good, bad}, 1},
		{[]string{bad, junk, good}, 2},
	}
	for _, tt := range tests {
		stdout, stderr, code := runWith(t, nil, append([]string{"check", "--dialect", "openai-chat"}, tt.files...)...)
		if code != tt.code {
			t.Errorf("check %v: exit %d, want %d\n%s%s", tt.files, code, tt.code, stdout, stderr)
		}
		stdout, _, code = runWith(t, nil, append([]string{"check", "--json", "--dialect", "openai-chat"}, tt.files...)...)
		var reports []struct {
			File     string `json:"file"`
			Error    string `json:"error"`
			Accepted bool   `json:"accepted"`
		}
		if err := json.Unmarshal([]byte(stdout), &reports); err != nil || len(reports) != len(tt.files) || code != tt.code {
			t.Errorf("check --json %v: exit %d, %v:\n%s; want an array of %d reports", tt.files, code, err, stdout, len(tt.files))
			continue
		}
		for i, r := range reports {
			if r.File != tt.files[i] || (tt.files[i] == junk) != (r.Error != "") || (tt.files[i] == good) != r.Accepted {
				t.Errorf("check --json %v: report %d = %+v", tt.files, i, r)
			}
		}
	}
	if _, stderr, code := runWith(t, nil, "check", "--fix", good, bad); code != 2 || !strings.Contains(stderr, "one FILE") {
		t.Errorf("check --fix with two files: exit %d, %s; want a usage error", code, stderr)
	}
}

// TestCheckJSONOnUnusableInput: check --json prints one JSON document
// whatever the input, with an "error" when nothing could be checked.
func TestCheckJSONOnUnusableInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string // in the "error" field
		fix   bool   // the document is on stderr, where --fix --json writes its report
	}{
		{name: "not JSON", stdin: "hello", args: []string{"check", "--json"}, want: "standard input: not a JSON object or array"},
		{name: "empty", stdin: "", args: []string{"check", "--json", "-"}, want: "empty input"},
		{name: "directory", args: []string{"check", "--json", dir}, want: "is a directory"},
		{name: "unknown dialect", stdin: "[]", args: []string{"check", "--json", "--dialect", "cohere"}, want: `--dialect "cohere"`},
		{name: "ambiguous with --fix", stdin: `[{"role":"user","content":"hi"}]`, args: []string{"check", "--json", "--fix"}, want: "ambiguous", fix: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, tt.stdin, tt.args...)
			if code != exitcode.Usage {
				t.Errorf("toolwire %q exit = %d, want %d", tt.args, code, exitcode.Usage)
			}
			doc := stdout
			if tt.fix {
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				doc, stdout = lines[len(lines)-1], ""
			}
			var got struct {
				Accepted   *bool             `json:"accepted"`
				Error      string            `json:"error"`
				Violations []json.RawMessage `json:"violations"`
			}
			if err := json.Unmarshal([]byte(doc), &got); err != nil {
				t.Fatalf("toolwire %q printed %q, want one JSON document: %v (stderr %q)", tt.args, doc, err, stderr)
			}
			if got.Accepted == nil || *got.Accepted || got.Violations == nil || !strings.Contains(got.Error, tt.want) {
				t.Errorf("toolwire %q = %s, want accepted false, violations [] and an error containing %q", tt.args, doc, tt.want)
			}
			if tt.fix && stdout != "" {
				t.Errorf("toolwire %q stdout = %q, want nothing (no repaired body)", tt.args, stdout)
			}
		})
	}
}
