package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/transcript"
)

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
	}{
		{name: "openai interrupted", args: []string{"check", oai}, code: exitRejected, golden: "check_openai.txt"},
		{name: "openai interrupted json", args: []string{"check", "--json", oai}, code: exitRejected, golden: "check_openai.json"},
		{name: "openai fix", args: []string{"check", "--fix", oai}, golden: "check_openai_fix.txt"},
		{name: "anthropic human before result", args: []string{"check", ant}, code: exitRejected, golden: "check_anthropic.txt"},
		{name: "anthropic fix", args: []string{"check", "--fix", ant}, golden: "check_anthropic_fix.txt"},
		{name: "anthropic fix json", args: []string{"check", "--fix", "--json", ant}, golden: "check_anthropic_fix.json"},
		{name: "gemini split responses", args: []string{"check", "--dialect", "gemini", gem}, code: exitRejected, golden: "check_gemini.txt"},
		{name: "gemini fix", args: []string{"check", "--fix", gem}, golden: "check_gemini_fix.txt"},
		{name: "accepted from stdin", stdin: `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`,
			args: []string{"check", "-"}, golden: "check_accepted.txt"},
		{name: "responses bare array", stdin: `[{"role":"user","content":"q"},{"type":"function_call","call_id":"c1","name":"a","arguments":"{}"}]`,
			args: []string{"check", "--json"}, code: exitRejected, golden: "check_responses.json"},
		{name: "chat wire violation fixed by re-encoding", stdin: `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","tool_calls":[]}]}`,
			args: []string{"check", "--fix"}, golden: "check_wire_fix.txt"},
		{name: "warnings only", stdin: `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"call_0123456789012345678901234567890123456789","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0123456789012345678901234567890123456789","content":"ok"}]}`,
			args: []string{"check"}, golden: "check_warning.txt"},
		{name: "conflicting duplicate is not guessed at", stdin: `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"1"},{"role":"tool","tool_call_id":"c1","content":"2"}]`,
			args: []string{"check", "--fix", "--dialect", "openai-chat"}, code: exitRejected, golden: "check_conflict_fix.txt", inStderr: "cannot repair without guessing"},
		{name: "missing thought signature is not invented", stdin: `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"a","args":{}},"thoughtSignature":"c2ln"}]},{"role":"user","parts":[{"functionResponse":{"name":"a","response":{"output":"1"}}}]},{"role":"model","parts":[{"functionCall":{"name":"b","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"b","response":{"output":"2"}}}]}]}`,
			args: []string{"check", "--fix"}, code: exitRejected, inStderr: "GEM-THOUGHT-SIG"},
		{name: "unknown dialect", args: []string{"check", "--dialect", "cohere", oai}, code: exitUsage, inStderr: `--dialect "cohere": unknown dialect`},
		{name: "not JSON", stdin: "hello", args: []string{"check"}, code: exitUsage, inStderr: "standard input: not a JSON object or array"},
		{name: "empty input", stdin: "", args: []string{"check"}, code: exitUsage, inStderr: "standard input: empty input"},
		{name: "unknown object", stdin: `{"prompt":"hi"}`, args: []string{"check"}, code: exitUsage, inStderr: `without "messages", "input" or "contents"`},
		{name: "decode error names the path", stdin: `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"a","arguments":{}}}]}]}`,
			args: []string{"check", "--dialect", "openai-chat"}, code: exitUsage, inStderr: "standard input: as openai-chat: openai: messages.0.tool_calls.0.function.arguments: want a string, got an object"},
		{name: "missing file", args: []string{"check", "nope.json"}, code: exitUsage, inStderr: "nope.json"},
		{name: "convert openai to anthropic", args: []string{"convert", "--to", "anthropic", oai}, golden: "convert_openai_anthropic.txt"},
		{name: "convert anthropic to openai-chat", args: []string{"convert", "--to", "openai-chat", "--from", "anthropic", ant}, golden: "convert_anthropic_chat.txt"},
		{name: "convert gemini to responses", args: []string{"convert", "--to", "openai-responses", gem}, golden: "convert_gemini_responses.txt"},
		{name: "convert without --to", args: []string{"convert", oai}, code: exitUsage, inStderr: "--to is required"},
		{name: "convert to unknown", args: []string{"convert", "--to", "palm", oai}, code: exitUsage, inStderr: `--to "palm": unknown dialect`},
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
		})
	}
}

// TestCheckJSONContract pins the documented JSON shape.
func TestCheckJSONContract(t *testing.T) {
	stdout, _, code := runCmd(t, `[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"x","content":"r"}]`, "check", "--json", "--dialect", "openai-chat")
	if code != exitRejected {
		t.Fatalf("check --json exit code = %d, want %d", code, exitRejected)
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
				if code != exitOK {
					t.Fatalf("convert --to %s exit code = %d", d, code)
				}
				fixed, stderr, code := runCmd(t, converted, "check", "--fix", "--dialect", string(d))
				if code != exitOK {
					t.Fatalf("check --fix --dialect %s exit code = %d\n%s", d, code, stderr)
				}
				if _, stderr, code := runCmd(t, fixed, "check", "--dialect", string(d)); code != exitOK {
					t.Errorf("check of the fixed body exit code = %d, want 0\n%s", code, stderr)
				}
			})
		}
	}
}

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
		got, why, err := sniff([]byte(tt.body))
		if err != nil || got != tt.want || why == "" {
			t.Errorf("sniff(%q) = %q, %q, %v; want %q", tt.body, got, why, err, tt.want)
		}
	}
}
