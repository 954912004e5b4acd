package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// fakePlugin writes a toolwire-temporal into a folder of its own that
// prints its arguments and exits with code; it returns the folder.
func fakePlugin(t *testing.T, code int) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"plugin: $*\"\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(filepath.Join(dir, pluginName), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The Temporal commands are handed to the plugin with their arguments
// as given, and exit with its code; run and resume go to it only with
// --temporal. Without the plugin, they say how to install it.
func TestTemporalCommandsRunThePlugin(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the plugin's arguments
	}{
		{"worker", []string{"worker", "--temporal", "127.0.0.1:7233", "--task-queue", "q", "a.yaml", "b.yaml"}, "worker --temporal 127.0.0.1:7233 --task-queue q a.yaml b.yaml"},
		{"run", []string{"run", "--temporal", "127.0.0.1:7233", "agent.yaml", "Weather?"}, "run --temporal 127.0.0.1:7233 agent.yaml Weather?"},
		{"resume", []string{"resume", "--temporal=h:1", "run_1", "--approve", "call_1"}, "resume --temporal=h:1 run_1 --approve call_1"},
		{"approve", []string{"approve", "--temporal", "h:1", "run_1"}, "approve --temporal h:1 run_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fakePlugin(t, 1)
			stdout, stderr, code := runRaw(t, map[string]string{"PATH": dir}, tt.args...)
			if code != 1 || strings.TrimSpace(stdout) != "plugin: "+tt.want {
				t.Errorf("toolwire %q = exit %d, %q (stderr %q); want exit 1 (the plugin's), %q", tt.args, code, stdout, stderr, "plugin: "+tt.want)
			}
			_, stderr, code = runRaw(t, map[string]string{"PATH": t.TempDir()}, tt.args...)
			if code != exitcode.Env || !strings.Contains(stderr, "(cd temporal && go install ./cmd/toolwire-temporal) in a clone of toolwire") {
				t.Errorf("toolwire %q without the plugin = exit %d, %q; want exit 3 saying how to install it", tt.args, code, stderr)
			}
		})
	}
}

// approve without --temporal says that a session in --db is resumed,
// and a run without --temporal stays local.
func TestTemporalOnlyWithTheFlag(t *testing.T) {
	dir := fakePlugin(t, 0)
	_, stderr, code := runRaw(t, map[string]string{"PATH": dir}, "approve", "run_1")
	if code != exitcode.Usage || !strings.Contains(stderr, "toolwire resume ID --approve CALL") {
		t.Errorf("approve without --temporal = exit %d, %q; want 2 pointing to resume", code, stderr)
	}
	stdout, _, _ := runRaw(t, map[string]string{"PATH": dir}, "run", "missing.yaml", "q")
	if strings.Contains(stdout, "plugin:") {
		t.Errorf("a run without --temporal ran the plugin: %q", stdout)
	}
}
