package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/golden"
)

// runCmd runs the CLI in-process and returns what it printed and its exit
// code. Tests of every command use it.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// writeFile writes content to the file name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A cmdCase is one run of the CLI and what it should print.
type cmdCase struct {
	name     string
	stdin    string
	args     []string
	code     int
	golden   string // stdout, a file under testdata
	stdout   string // exact, when not golden
	inStderr string
}

// check runs c and checks its exit code, its stdout against the golden file
// c.golden under testdata (or c.stdout when there is none), that its stderr
// holds c.inStderr, and that it printed no Go stack. It returns the stderr.
func (c cmdCase) check(t *testing.T, testdata string) (stderr string) {
	t.Helper()
	stdout, stderr, code := runCmd(t, c.stdin, c.args...)
	if code != c.code {
		t.Fatalf("toolwire %q exit = %d, want %d (stderr: %s)", c.args, code, c.code, stderr)
	}
	switch {
	case c.golden != "":
		golden.Check(t, filepath.Join(testdata, c.golden), []byte(stdout))
	case stdout != c.stdout:
		t.Errorf("toolwire %q stdout = %q, want %q", c.args, stdout, c.stdout)
	}
	if !strings.Contains(stderr, c.inStderr) {
		t.Errorf("toolwire %q stderr = %q, want it to contain %q", c.args, stderr, c.inStderr)
	}
	if strings.Contains(stderr, "goroutine ") {
		t.Errorf("toolwire %q printed a stack trace: %s", c.args, stderr)
	}
	return stderr
}

func TestRender(t *testing.T) {
	dir := t.TempDir()
	valid := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(valid, []byte(`{"status":"success","summary":"lookup(id=7):\nfound","data":{"b":1,"a":"<x>"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []cmdCase{
		{name: "example", args: []string{"render", "--example"}, golden: "render_example.txt"},
		{name: "file", args: []string{"render", valid}, stdout: `{"status":"success","summary":"lookup(id=7): found","data":{"b":1,"a":"<x>"}}` + "\n"},
		{name: "stdin", stdin: `{"status":"error","summary":"x failed","error":{"type":"timeout","message":"slow","retryable":true}}`, args: []string{"render", "-"},
			stdout: `{"status":"error","summary":"x failed","error":{"type":"timeout","message":"slow","retryable":true}}` + "\n"},
		{name: "invalid envelope", stdin: `{"status":"error","summary":"x"}`, args: []string{"render"}, code: exitcode.Usage,
			inStderr: "toolwire: standard input: not a valid observation envelope (docs/tool-message-protocol.md): status error needs an Error"},
		{name: "unknown error type", stdin: `{"status":"error","summary":"x","error":{"type":"boom","message":"m","retryable":false}}`, args: []string{"render"}, code: exitcode.Usage,
			inStderr: `error type "boom" is not one of the protocol's types`},
		{name: "not JSON", stdin: `{status`, args: []string{"render"}, code: exitcode.Usage, inStderr: "standard input: not an observation envelope (docs/tool-message-protocol.md): invalid JSON at line 1, column 2"},
		{name: "missing file", args: []string{"render", filepath.Join(dir, "nope.json")}, code: exitcode.Usage, inStderr: "nope.json: no such file"},
		{name: "example and file", args: []string{"render", "--example", valid}, code: exitcode.Usage, inStderr: "not both"},
		{name: "unknown flag", args: []string{"render", "--bogus"}, code: exitcode.Usage, inStderr: "unknown flag: --bogus"},
		{name: "unknown command", args: []string{"bogus"}, code: exitcode.Usage, inStderr: `unknown command "bogus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, "testdata") })
	}
}

func TestVersionAndHelp(t *testing.T) {
	stdout, _, code := runCmd(t, "", "version")
	if code != 0 || !strings.HasPrefix(stdout, "toolwire ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("toolwire version = %q, exit %d", stdout, code)
	}
	stdout, _, code = runCmd(t, "", "help")
	if code != 0 || !strings.Contains(stdout, "render") || !strings.Contains(stdout, "Exit codes") {
		t.Errorf("toolwire help = %q, exit %d", stdout, code)
	}
}
