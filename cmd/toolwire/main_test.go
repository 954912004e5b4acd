package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func TestRender(t *testing.T) {
	dir := t.TempDir()
	valid := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(valid, []byte(`{"status":"success","summary":"lookup(id=7):\nfound","data":{"b":1,"a":"<x>"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   string // exact, when not golden
		golden   string
		inStderr string
	}{
		{name: "example", args: []string{"render", "--example"}, golden: "render_example.txt"},
		{name: "file", args: []string{"render", valid}, stdout: `{"status":"success","summary":"lookup(id=7): found","data":{"b":1,"a":"<x>"}}` + "\n"},
		{name: "stdin", stdin: `{"status":"error","summary":"x failed","error":{"type":"timeout","message":"slow","retryable":true}}`, args: []string{"render", "-"},
			stdout: `{"status":"error","summary":"x failed","error":{"type":"timeout","message":"slow","retryable":true}}` + "\n"},
		{name: "invalid envelope", stdin: `{"status":"error","summary":"x"}`, args: []string{"render"}, code: exitUsage,
			inStderr: "toolwire: standard input: observe: invalid envelope: status error needs an Error"},
		{name: "unknown error type", stdin: `{"status":"error","summary":"x","error":{"type":"boom","message":"m","retryable":false}}`, args: []string{"render"}, code: exitUsage,
			inStderr: `error type "boom" is not one of the protocol's types`},
		{name: "not JSON", stdin: `{status`, args: []string{"render"}, code: exitUsage, inStderr: "standard input: observe: parse envelope"},
		{name: "missing file", args: []string{"render", filepath.Join(dir, "nope.json")}, code: exitUsage, inStderr: "nope.json: no such file"},
		{name: "example and file", args: []string{"render", "--example", valid}, code: exitUsage, inStderr: "not both"},
		{name: "unknown flag", args: []string{"render", "--bogus"}, code: exitUsage, inStderr: "unknown flag: --bogus"},
		{name: "unknown command", args: []string{"bogus"}, code: exitUsage, inStderr: `unknown command "bogus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("toolwire %q exit = %d, want %d (stderr: %s)", tt.args, code, tt.code, stderr)
			}
			switch {
			case tt.golden != "":
				golden.Check(t, filepath.Join("testdata", tt.golden), []byte(stdout))
			case stdout != tt.stdout:
				t.Errorf("toolwire %q stdout = %q, want %q", tt.args, stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("toolwire %q stderr = %q, want it to contain %q", tt.args, stderr, tt.inStderr)
			}
			if strings.Contains(stderr, "goroutine ") {
				t.Errorf("toolwire %q printed a stack trace: %s", tt.args, stderr)
			}
		})
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
