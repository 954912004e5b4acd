package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// TestExitCodes runs the commands over a case of each row of the exit
// code table, and checks the code, that the message names the problem,
// and that it is one line.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	key := map[string]string{"OPENAI_API_KEY": "sk-test"}
	tests := []struct {
		name     string
		env      map[string]string
		stdin    string
		args     []string
		code     int
		inStderr string
	}{
		{name: "accepted", stdin: `[{"role":"user","content":"hi"}]`, args: []string{"check", "--dialect", "openai-chat"}, code: exitcode.OK},
		{name: "rejected body", stdin: `[{"role":"tool","tool_call_id":"x","content":"r"}]`, args: []string{"check", "--dialect", "openai-chat"}, code: exitcode.Rejected},
		{name: "unknown flag", args: []string{"check", "--bogus"}, code: exitcode.Usage, inStderr: "--bogus"},
		{name: "bad number", args: []string{"shape", "--budget", "abc", "-"}, code: exitcode.Usage, inStderr: `--budget "abc"`},
		{name: "directory as input", args: []string{"check", dir}, code: exitcode.Usage, inStderr: "is a directory"},
		{name: "directory as --db", args: []string{"sessions", "list", "--db", dir}, code: exitcode.Usage, inStderr: "is a directory"},
		{name: "directory as --db of run", args: []string{"run", "--db", dir, agentFile, "hi"}, code: exitcode.Usage, inStderr: "is a directory"},
		{name: "--db in a missing folder", args: []string{"run", "--db", filepath.Join(dir, "no", "such", "x.db"), agentFile, "hi"}, code: exitcode.Usage, inStderr: "does not exist"},
		{name: "bad PostgreSQL port", args: []string{"sessions", "list", "--db", "postgres://u@127.0.0.1:99999/x"}, code: exitcode.Usage, inStderr: "port"},
		{name: "unreachable PostgreSQL", args: []string{"sessions", "list", "--db", "postgres://u@127.0.0.1:1/x?connect_timeout=2"}, code: exitcode.Env, inStderr: "cannot reach the PostgreSQL server at 127.0.0.1:1"},
		{name: "unreachable provider", env: key, args: []string{"run", "--db", filepath.Join(dir, "a.db"), "--model", "openai:gpt-4o", "--base-url", "http://127.0.0.1:1/v1", agentFile, "hi"}, code: exitcode.Env, inStderr: "127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr string
			var code int
			if tt.stdin != "" {
				stdout, stderr, code = runCmd(t, tt.stdin, tt.args...)
			} else {
				stdout, stderr, code = runWith(t, tt.env, tt.args...)
			}
			if code != tt.code {
				t.Fatalf("toolwire %q exit = %d, want %d\nstdout: %s\nstderr: %s", tt.args, code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("toolwire %q stderr = %q, want it to contain %q", tt.args, stderr, tt.inStderr)
			}
			var msgs []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if strings.HasPrefix(l, "toolwire: ") || strings.HasPrefix(l, "\t") {
					msgs = append(msgs, l)
				}
			}
			if tt.code >= exitcode.Usage && len(msgs) != 1 {
				t.Errorf("toolwire %q printed %d message lines, want 1:\n%s", tt.args, len(msgs), stderr)
			}
		})
	}
}

// TestExitCodeHelp checks that root --help prints every row of the table.
func TestExitCodeHelp(t *testing.T) {
	stdout, _, code := runCmd(t, "", "--help")
	if code != exitcode.OK {
		t.Fatalf("toolwire --help exit = %d, want 0", code)
	}
	for _, c := range exitCodes() {
		want := fmt.Sprintf("  %d  %s", c.Code, strings.Fields(c.When)[0])
		if !strings.Contains(stdout, want) {
			t.Errorf("toolwire --help = %q, want it to contain %q", stdout, want)
		}
	}
}

// TestExitCodeDocs checks that docs/cli.md lists the table as it is.
func TestExitCodeDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range exitCodes() {
		want := fmt.Sprintf("| %d | %s |", c.Code, c.When)
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/cli.md lacks the row %q", want)
		}
	}
}
