package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

func TestParse(t *testing.T) {
	tests := []struct {
		args    []string
		want    flags
		pos     []string
		problem string
	}{
		{[]string{"--temporal", "h:1", "a.yaml", "--task-queue=q", "b.yaml"}, flags{"temporal": {"h:1"}, "task-queue": {"q"}}, []string{"a.yaml", "b.yaml"}, ""},
		{[]string{"id", "--approve", "c1", "--approve", "c2", "--temporal=h:1", "msg"}, flags{"temporal": {"h:1"}, "approve": {"c1", "c2"}}, []string{"id", "msg"}, ""},
		{[]string{"--temporal", "h:1", "--", "--not-a-flag"}, flags{"temporal": {"h:1"}}, []string{"--not-a-flag"}, ""},
		{[]string{"a.yaml"}, nil, nil, "give the Temporal frontend with --temporal HOST:PORT"},
		{[]string{"--temporal", "h:1", "--model", "x"}, nil, nil, "unknown flag --model"},
		{[]string{"--temporal"}, nil, nil, "--temporal needs a value"},
	}
	for _, tt := range tests {
		f, pos, err := parse("cmd", tt.args, "temporal", "task-queue", "approve")
		if tt.problem != "" {
			if err == nil || !strings.Contains(err.Error(), tt.problem) {
				t.Errorf("parse(%q) = %v, want an error saying %q", tt.args, err, tt.problem)
			}
			continue
		}
		if err != nil {
			t.Errorf("parse(%q): %v", tt.args, err)
			continue
		}
		if !slices.Equal(pos, tt.pos) || len(f) != len(tt.want) {
			t.Errorf("parse(%q) = %v, %q; want %v, %q", tt.args, f, pos, tt.want, tt.pos)
		}
		for k, v := range tt.want {
			if !slices.Equal(f[k], v) {
				t.Errorf("parse(%q)[%s] = %q, want %q", tt.args, k, f[k], v)
			}
		}
	}
}

// Whatever the arguments, parse returns flags or an error, never panics,
// and keeps every positional argument.
func FuzzParse(f *testing.F) {
	f.Add("--temporal h:1 a.yaml --task-queue=q b.yaml")
	f.Add("id --approve c1 -- --x")
	f.Add("--temporal")
	f.Add("- -- ---=")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		fl, pos, err := parse("cmd", args, "temporal", "task-queue", "approve")
		if err == nil && (fl.one("temporal") == "" || len(pos) > len(args)) {
			t.Errorf("parse(%q) = %v, %q without an error", args, fl, pos)
		}
	})
}

// Commands that cannot run say why, with toolwire's exit codes.
func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		says string
	}{
		{nil, exitcode.Usage, "toolwire worker --temporal"},
		{[]string{"nope"}, exitcode.Usage, `unknown command "nope"`},
		{[]string{"worker", "--temporal", "h:1"}, exitcode.Usage, "give at least one agent file"},
		{[]string{"run", "--temporal", "h:1", "a.yaml"}, exitcode.Usage, "run takes an agent file and a question"},
		{[]string{"resume", "--temporal", "h:1", "id", "--reject", "c"}, exitcode.Usage, "give one --reason for each --reject"},
		{[]string{"approve", "--temporal", "h:1"}, exitcode.Usage, "approve takes a session id"},
		{[]string{"run", "--temporal", "h:1", "missing.yaml", "q"}, exitcode.Usage, "missing.yaml"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := run(tt.args, &out, &errOut, func(string) string { return "" })
		if code != tt.code || !strings.Contains(errOut.String(), tt.says) {
			t.Errorf("toolwire-temporal %q = exit %d, %q; want exit %d saying %q", tt.args, code, errOut.String(), tt.code, tt.says)
		}
	}
}
