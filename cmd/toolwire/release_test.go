package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// The fault-injection hook of the crash tests is part of the test binary
// only: toolwire run ignores its variable, and the released binary,
// asked to kill itself at the first model answer, runs to the end.
func TestReleaseHasNoFaultHooks(t *testing.T) {
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	for _, kill := range []string{"model:1", "not a fault"} {
		if stdout, stderr, code := runWith(t, map[string]string{"TOOLWIRE_TEST_KILL": kill}, "run", agentFile, "北京今天适合穿什么衣服"); code != exitcode.OK {
			t.Errorf("run with TOOLWIRE_TEST_KILL=%q: exit %d, want 0 (the variable ignored):\n%s%s", kill, code, stdout, stderr)
		}
	}

	out, err := exec.Command("go", "list", "-f", "{{.GoFiles}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if files := string(out); strings.Contains(files, "fault") {
		t.Errorf("the released binary is built from %s, which holds the fault hooks", strings.TrimSpace(files))
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "toolwire")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "run", "--db", tempDB(t), agentFile, "北京今天适合穿什么衣服")
	cmd.Env = append(os.Environ(), "TOOLWIRE_TEST_KILL=model:1", "OPENAI_API_KEY=")
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("the released binary killed itself (%v) at TOOLWIRE_TEST_KILL=model:1:\n%s", ws.Signal(), out)
		}
	}
	if err != nil || !strings.Contains(string(out), "answer:") {
		t.Errorf("the released binary: %v, want an answer:\n%s", err, out)
	}
}
