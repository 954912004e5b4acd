package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// goPrefix matches what a message must never show a user: a Go package
// prefix of the module's packages or of the standard library, a Go type
// name, a driver's wording, a stack.
var goPrefix = regexp.MustCompile(`\b(tool|toolresult|observe|llm|session|transcript|budget|wire|jsonx|agentfile|replay|lint|sqlite|postgres|session/sqlite|session/postgres): |strconv\.|(^|[^.\w])json: |sqlite|\*[a-z]+\.[A-Z][A-Za-z]*|goroutine|accepts \d+ arg|received \d+|\(\d+\)$`)

// TestErrorsInUserTerms runs every command over bad input and checks
// that it exits with a code of the table other than success or an
// internal error, and that each message is one short line that says
// where (want) and shows no Go internals.
func TestErrorsInUserTerms(t *testing.T) {
	dir := t.TempDir()
	deep := writeFile(t, dir, "deep.json", strings.Repeat("[", 100000)+strings.Repeat("]", 100000))
	deepObj := writeFile(t, dir, "deep-object.json", strings.Repeat(`{"a":`, 100000)+"1"+strings.Repeat("}", 100000))
	notJSON := writeFile(t, dir, "notjson.json", "{\"tools\": [ oops")
	dupTools := writeFile(t, dir, "dup.json", `{"version":"toolwire/v1","tools":[{"name":"a","description":"A tool.","parameters":{"type":"object"}},{"name":"a","description":"A tool.","parameters":{"type":"object"}}]}`)
	badEnvelope := writeFile(t, dir, "envelope.json", `{"status":"error","summary":"x"}`)
	dupAgent := writeFile(t, dir, "agent.yaml", "name: a\nmodel: openai:gpt-4o\nsystem: s\ntools:\n  - example: get_weather\n  - example: get_weather\n")
	tests := []struct {
		name  string
		stdin string
		args  []string
		where string // what the message must name
	}{
		{name: "check deep array", args: []string{"check", deep}, where: "deep.json: 0.0.0.0.….0.0.0.0 (10000 levels deep): invalid JSON at line 1, column 10001: nested deeper than 10000 levels"},
		{name: "check deep object", args: []string{"check", deepObj}, where: "deep-object.json"},
		{name: "check --json deep", args: []string{"check", "--json", deep}, where: "deep.json"},
		{name: "convert deep", args: []string{"convert", "--to", "gemini", deep}, where: "deep.json"},
		{name: "render deep", args: []string{"render", deepObj}, where: "deep-object.json"},
		{name: "render invalid envelope", args: []string{"render", badEnvelope}, where: "envelope.json"},
		{name: "render not JSON", args: []string{"render", notJSON}, where: "line 1"},
		{name: "lint deep", args: []string{"lint", deep}, where: "deep.json"},
		{name: "lint not JSON", args: []string{"lint", notJSON}, where: "line 1, column"},
		{name: "lint duplicate tools", args: []string{"lint", dupTools}, where: "dup.json"},
		{name: "shape --budget abc", args: []string{"shape", "--budget", "abc", deep}, where: "--budget"},
		{name: "shape --budget 0", args: []string{"shape", "--budget", "0", deep}, where: "--budget"},
		{name: "shape no file", args: []string{"shape"}, where: "FILE"},
		{name: "shape --spec not JSON", args: []string{"shape", "--spec", notJSON, deep}, where: "notjson.json"},
		{name: "shape --spec duplicate tools", args: []string{"shape", "--spec", dupTools, deep}, where: "dup.json"},
		{name: "shape --spec missing", args: []string{"shape", "--spec", filepath.Join(dir, "nope.json"), deep}, where: "nope.json"},
		{name: "shape --model unknown", args: []string{"shape", "--model", "gpt-0", deep}, where: "--model"},
		{name: "run duplicate tools", args: []string{"run", "--db", filepath.Join(dir, "a.db"), dupAgent, "hi"}, where: "agent.yaml"},
		{name: "run missing agent", args: []string{"run", "--db", filepath.Join(dir, "a.db"), filepath.Join(dir, "nope.yaml"), "hi"}, where: "nope.yaml"},
		{name: "run bad --max-turns", args: []string{"run", "--max-turns", "many", dupAgent, "hi"}, where: "--max-turns"},
		{name: "run one argument", args: []string{"run", dupAgent}, where: "agent file"},
		{name: "resume no id", args: []string{"resume"}, where: "session"},
		{name: "sessions show no id", args: []string{"sessions", "show", "--db", filepath.Join(dir, "a.db")}, where: "session id"},
		{name: "sessions --db directory", args: []string{"sessions", "list", "--db", dir}, where: "--db"},
		{name: "version extra", args: []string{"version", "now"}, where: "version"},
		{name: "unknown command", args: []string{"chek"}, where: "chek"},
		{name: "unknown flag", args: []string{"check", "--jsn"}, where: "--jsn"},
		{name: "missing flag value", args: []string{"shape", "--budget"}, where: "--budget"},
		{name: "bad duration", args: []string{"run", "--timeout", "5", dupAgent, "hi"}, where: "--timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runWith(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, tt.args...)
			if code == exitcode.OK || code == exitcode.Internal {
				t.Fatalf("toolwire %q exit = %d, want 1, 2 or 3\nstderr: %s", tt.args, code, stderr)
			}
			var msgs []string
			for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
				if strings.HasPrefix(l, "toolwire: ") {
					msgs = append(msgs, l)
				}
				if len(l) > 400 {
					t.Errorf("toolwire %q printed a line of %d bytes, want one short line:\n%.400s…", tt.args, len(l), l)
				}
				if m := goPrefix.FindString(l); m != "" {
					t.Errorf("toolwire %q shows Go internals (%q):\n%s", tt.args, m, l)
				}
			}
			if len(msgs) == 0 {
				t.Fatalf("toolwire %q printed no message, stderr: %q", tt.args, stderr)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tt.where) {
				t.Errorf("toolwire %q message = %q, want it to name %q", tt.args, msgs, tt.where)
			}
		})
	}
}
