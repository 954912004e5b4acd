package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text, 北京 ✓", "plain text, 北京 ✓"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"title\x1b]0;pwned\x07", `title\u001b]0;pwned\u0007`},
		{"\x1b[2Kall checks passed", `\u001b[2Kall checks passed`},
		{"fake\rreal", `fake\u000dreal`},
		{"windows\r\nline", "windows\nline"},
		{"nul\x00 bs\x08 del\x7f", `nul\u0000 bs\u0008 del\u007f`},
		{"csi\u009b31m nel\u0085", `csi\u009b31m nel\u0085`},
		{"file\u202egnp.exe", `file\u202egnp.exe`},
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"bad \xff\xfe utf-8", "bad \ufffd\ufffd utf-8"},
		{"raw c1 byte \x9b31m", "raw c1 byte \ufffd31m"},
	}
	for _, tt := range tests {
		if got := printable(tt.in); got != tt.want {
			t.Errorf("printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// unsafeFor reports the first character of s a terminal could act on: a
// C0 or C1 control other than newline and tab, DEL, a bidi override, or
// a byte that is not UTF-8 (reported as U+FFFD).
func unsafeFor(s string) (rune, bool) {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20, r >= 0x7f && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == utf8.RuneError && size == 1:
			return r, true
		}
	}
	return 0, false
}

// FuzzPrintable: printable's output is always safe for a terminal, and
// printing it again changes nothing.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "plain", hostile, "a\r\nb\r", "\xff\x9b\xc2", "\u202e\u2069\ufffd", "\x1b[2K\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := printable(s)
		if r, bad := unsafeFor(got); bad {
			t.Fatalf("printable(%q) = %q, which holds %U", s, got, r)
		}
		if again := printable(got); again != got {
			t.Fatalf("printable(%q) = %q, but printable(%q) = %q", s, got, got, again)
		}
	})
}

// hostile is text an injected model could send to take over a terminal.
const hostile = "ok\x1b]0;pwned\x07\x1b[2K\r all checks passed \u202egnp.exe\u009b31m\x7f"

// Model text, tool names, session titles and provider errors reach the
// terminal with their control characters shown, never acted on.
func TestTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "toolwire.db")
	agentFile := writeFile(t, dir, "agent.yaml", "name: evil\nmodel: replay:turns.json\ntools: [get_weather]\n")
	h, _ := json.Marshal(hostile)
	writeFile(t, dir, "turns.json", fmt.Sprintf(`{"turns":[{"text":%[1]s,"calls":[{"name":"get_weather","args":{"city":%[1]s}}]},{"text":%[1]s}]}`, h))
	writeFile(t, dir, "names.json", fmt.Sprintf(`{"turns":[{"calls":[{"name":%[1]s,"args":{}}]},{"text":"done"}]}`, h))
	noEscapes := func(what, out string) {
		t.Helper()
		if r, bad := unsafeFor(out); bad {
			t.Errorf("%s prints %U raw:\n%q", what, r, out)
		}
	}
	absTurns := filepath.Join(dir, "turns.json")
	stdout, stderr, code := runWith(t, nil, "run", "--db", db, "--model", "replay:"+absTurns, agentFile, "hi"+hostile)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	noEscapes("run", stdout)
	noEscapes("run's stderr", stderr)
	if !strings.Contains(stdout, `ok\u001b]0;pwned\u0007\u001b[2K\u000d all checks passed \u202egnp.exe\u009b31m\u007f`) {
		t.Errorf("run does not show the model's control characters escaped:\n%s", stdout)
	}
	id := runIDs.FindString(stdout)
	// A tool name is the model's too: the loop names the call
	// invalid_tool_name in the history and answers it unknown_tool,
	// quoting the name with escapes; the run goes on.
	stdout, stderr, code = runWith(t, nil, "run", "--model", "replay:"+filepath.Join(dir, "names.json"), agentFile, "hi")
	if code != 0 || !strings.Contains(stdout, "→ invalid_tool_name") || !strings.Contains(stdout, `"type":"unknown_tool"`) {
		t.Errorf("run with a hostile tool name: exit %d, stdout does not show the call answered unknown_tool:\n%s\n%s", code, stdout, stderr)
	}
	noEscapes("run with a hostile tool name", stdout+stderr)
	for _, args := range [][]string{{"sessions", "list", "--db", db}, {"sessions", "show", "--db", db, id}} {
		stdout, stderr, code := runWith(t, nil, args...)
		if code != 0 || !strings.Contains(stdout, `pwned\u0007`) {
			t.Errorf("toolwire %q: exit %d, stderr %s, stdout lacks the escaped title:\n%s", args, code, stderr, stdout)
		}
		noEscapes(strings.Join(args[:2], " "), stdout)
	}
	// Errors echo what the user or a provider gave them.
	_, stderr, _ = runWith(t, nil, "sessions", "show", "--db", db, "run_"+hostile)
	noEscapes("sessions show's error", stderr)
	srv := llmtest.NewServer(t, llmtest.Turn{Error: &llmtest.Error{Kind: llm.Auth, Message: hostile}})
	_, stderr, code = runWith(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, "run", "--model", "openai:gpt-4.1", "--base-url", srv.URL+"/v1", agentFile, "hi")
	if code != exitcode.Usage || !strings.Contains(stderr, "all checks passed") {
		t.Errorf("a provider's error: exit %d, stderr %q", code, stderr)
	}
	noEscapes("a provider's error", stderr)
}
