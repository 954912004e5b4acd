package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// runWith runs the CLI in-process with the environment env.
func runWith(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	if len(args) > 0 && (args[0] == "run" || args[0] == "resume") && !slices.Contains(args, "--db") {
		args = append([]string{args[0], "--db", tempDB(t)}, args[1:]...)
	}
	code = runEnv(args, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	return out.String(), errOut.String(), code
}

var durations = regexp.MustCompile(`"duration_ms":\d+,`)

// runIDs matches the session ids that runs print; the README shows one.
var runIDs = regexp.MustCompile(`run_[0-9a-f]{24}`)

const readmeRunID = "run_5d1c0e6a9b2f47e8a3c6d901"

// tempDB returns a database path under the test's temporary directory.
func tempDB(t *testing.T) string { return filepath.Join(t.TempDir(), "toolwire.db") }

// The README's first command prints what the README shows.
func TestRunREADME(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = `$ go run ./cmd/toolwire run examples/agent/agent.yaml "北京今天适合穿什么衣服"` + "\n"
	_, block, ok := strings.Cut(string(readme), cmd)
	if !ok {
		t.Fatalf("README.md has no console block starting %q", cmd)
	}
	want, _, _ := strings.Cut(block, "```")
	stdout, stderr, code := runWith(t, nil, "run", "--db", tempDB(t), "examples/agent/agent.yaml", "北京今天适合穿什么衣服")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if got := runIDs.ReplaceAllString(durations.ReplaceAllString(stdout, ""), readmeRunID); got != want {
		t.Errorf("toolwire run prints\n%s\nthe README shows\n%s", got, want)
	}
	if !strings.HasPrefix(stdout, "toolwire: OPENAI_API_KEY is not set, so this run replays") {
		t.Errorf("the first line does not say the run is a replay: %q", strings.SplitN(stdout, "\n", 2)[0])
	}
}

// Every recorded question of the example agent runs to its answer, with
// real tools.
func TestRunExampleQuestions(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, tc := range []struct{ question, want string }{
		{"Which orders were refunded?", `← read_result success: {"status":"success","summary":"read_result(ref=r1, offset=441): records 442–446 of 866"`},
		{"Open a ticket about the late delivery of order o-00042", `"data":{"ticket":"T-1001","new":true}`},
		{"Is CO-0042 in stock, and can you build this week's report?", `"error":{"type":"timeout"`},
	} {
		stdout, stderr, code := runWith(t, nil, "run", "--db", tempDB(t), "examples/agent/agent.yaml", tc.question)
		if code != 0 || !strings.Contains(stdout, tc.want) {
			t.Errorf("run %q: exit %d, stderr %s, stdout lacks %s:\n%s", tc.question, code, stderr, tc.want, stdout)
		}
	}
}

// Bad input gets a clear error, and exit 2.
func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return writeFile(t, dir, name, content) }
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	replayFile := filepath.Join("..", "..", "examples", "agent", "replay.yaml")
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		stderr string
	}{
		{"no arguments", nil, []string{"run"}, "run takes an agent file and a question (got 0 arguments)"},
		{"missing file", nil, []string{"run", filepath.Join(dir, "nope.yaml"), "q"}, "no such file"},
		{"unknown key", nil, []string{"run", write("typo.yaml", "name: x\nmodel: openai:gpt-4o\ntools:\n  - exmaple: get_weather\n"), "q"},
			`typo.yaml:4:14: tools.0: unknown key "exmaple"; did you mean "example"?`},
		{"duplicate key", nil, []string{"run", write("dup.yaml", "name: x\nname: y\n"), "q"}, `dup.yaml:2:1: the key "name" appears twice`},
		{"json syntax", nil, []string{"run", write("bad.json", `{"name": "x",}`), "q"}, "bad.json:1:14: not valid JSON"},
		{"yaml syntax", nil, []string{"run", write("bad.yaml", "name: [x\n"), "q"}, "bad.yaml:"},
		{"wrong kind", nil, []string{"run", write("kind.yaml", "name: x\nmax_turns: many\n"), "q"}, "kind.yaml:2:12: max_turns: want a whole number, got a string"},
		{"unknown example tool", nil, []string{"run", write("tool.yaml", "model: replay:"+replayFile+"\ntools: [get_wether]\n"), "q"}, `no example tool is named "get_wether"`},
		{"empty question", nil, []string{"run", agentFile, "  "}, "the question is empty"},
		{"bad model flag", nil, []string{"run", "--model", "gpt-4o", agentFile, "q"}, `--model "gpt-4o": want PROVIDER:NAME`},
		{"unknown provider", nil, []string{"run", "--model", "mistral:large", agentFile, "q"}, `unknown provider "mistral"`},
		{"no key for an explicit model", nil, []string{"run", "--model", "anthropic:claude-sonnet-4-5", agentFile, "q"}, "ANTHROPIC_API_KEY is not set"},
		{"replay without the question", nil, []string{"run", agentFile, "What is the meaning of life?"}, `has no recorded turns for the question "What is the meaning of life?"`},
		{"bad replay", nil, []string{"run", "--model", "replay:" + write("r.yaml", "turns:\n  - text: hi\n    cals: []\n"), agentFile, "q"}, `r.yaml:3:11: turns.0: unknown key "cals"; did you mean "calls"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runWith(t, tt.env, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.stderr)
			}
			if strings.Contains(stderr, "main.") || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr shows Go internals: %s", stderr)
			}
		})
	}
}

// --dump writes what the model was asked at each turn.
func TestRunDump(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runWith(t, nil, "run", "--db", tempDB(t), "--dump", dir, filepath.Join("..", "..", "examples", "agent", "agent.yaml"), "北京今天适合穿什么衣服")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"request-001.json", "request-002.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.Contains(b, []byte("北京今天适合穿什么衣服")) {
			t.Errorf("%s: %v, %.100s", f, err, b)
		}
	}
}
