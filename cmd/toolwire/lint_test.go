package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/exitcode"
)

// TestLint drives toolwire lint from the repository root, so that file
// names in the output read as in the README.
func TestLint(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	notJSON := writeFile(t, dir, "broken.json", "[\n  {\"type\": \"function\",\n")
	mixed := writeFile(t, dir, "mixed.json", `[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}},{"name":"b","input_schema":{"type":"object"}}]`)
	t.Chdir("../..")

	tests := []cmdCase{ // golden files under cmd/toolwire/testdata
		{name: "bad", args: []string{"lint", "examples/tools/bad.json"}, golden: "lint_bad.txt"},
		{name: "bad json", args: []string{"lint", "--json", "examples/tools/bad.json"}, golden: "lint_bad.json"},
		{name: "good", args: []string{"lint", "--min-score", "90", "examples/tools/good.json"}, golden: "lint_good.txt"},
		{name: "bad below min score", args: []string{"lint", "--min-score", "40", "examples/tools/bad.json"}, code: exitcode.Rejected, golden: "lint_bad_min40.txt",
			inStderr: "toolwire: 3 of 4 tools scored below --min-score 40: update_profile_and_send_email (24), transfer.funds (12), search_orders (22)"},
		{name: "two files json", args: []string{"lint", "--json", "--min-score", "90", "examples/tools/good.json", "cmd/toolwire/testdata/lint_anthropic.json"}, code: exitcode.Rejected, golden: "lint_two.json",
			inStderr: "1 of 5 tools scored below --min-score 90: lookup"},
		{name: "stdin", stdin: `{"tools":[{"name":"ping","description":"Checks that the service answers, and nothing else.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"annotations":{"readOnlyHint":true}}]}`,
			args: []string{"lint", "-"}, golden: "lint_stdin.txt"},
		{name: "no file", args: []string{"lint"}, code: exitcode.Usage, inStderr: "lint needs at least one FILE"},
		{name: "min score out of range", args: []string{"lint", "--min-score", "101", "examples/tools/good.json"}, code: exitcode.Usage, inStderr: "--min-score 101 is out of range"},
		{name: "min score not a number", args: []string{"lint", "--min-score", "high", "examples/tools/good.json"}, code: exitcode.Usage, inStderr: `--min-score "high": want a whole number`},
		{name: "missing file", args: []string{"lint", "examples/tools/good.json", filepath.Join(dir, "nope.json")}, code: exitcode.Usage, inStderr: "nope.json: no such file"},
		{name: "not JSON", args: []string{"lint", notJSON}, code: exitcode.Usage, inStderr: "broken.json: not a tools file: line 3, column 1"},
		{name: "two formats in one file", args: []string{"lint", mixed}, code: exitcode.Usage, inStderr: "mixed.json: not a tools file: 1: is a anthropic tool but 0 is a openai-chat tool"},
		{name: "empty stdin", args: []string{"lint", "-"}, code: exitcode.Usage, inStderr: "toolwire: standard input: not a tools file: the input is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if stderr := tt.check(t, testdata); tt.inStderr == "" && stderr != "" {
				t.Errorf("toolwire %q stderr = %q, want nothing", tt.args, stderr)
			}
		})
	}
}

// TestLintJSONShape pins the documented --json shape: every key present,
// findings never null.
func TestLintJSONShape(t *testing.T) {
	t.Chdir("../..")
	stdout, _, code := runCmd(t, "", "lint", "--json", "examples/tools/good.json", "examples/tools/bad.json")
	if code != exitcode.OK {
		t.Fatalf("toolwire lint --json exit = %d, want 0", code)
	}
	var out struct {
		MinScore *int  `json:"min_score"`
		Passed   *bool `json:"passed"`
		Tools    []struct {
			File     *string          `json:"file"`
			Format   *string          `json:"format"`
			Tool     *string          `json:"tool"`
			Score    *int             `json:"score"`
			Findings []jsontext.Value `json:"findings"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("toolwire lint --json printed invalid JSON: %v", err)
	}
	if out.MinScore == nil || out.Passed == nil || len(out.Tools) != 8 {
		t.Fatalf("toolwire lint --json = %s, want min_score, passed and 8 tools", stdout)
	}
	for _, tool := range out.Tools {
		if tool.File == nil || tool.Format == nil || tool.Tool == nil || tool.Score == nil || tool.Findings == nil {
			t.Errorf("toolwire lint --json tool = %+v, want file, format, tool, score and findings", tool)
		}
		for _, f := range tool.Findings {
			var keys map[string]any
			if err := json.Unmarshal(f, &keys); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"rule", "path", "points", "message", "fix"} {
				if _, ok := keys[k]; !ok {
					t.Errorf("finding %s has no %q", f, k)
				}
			}
		}
	}
	if !strings.Contains(stdout, `"findings": []`) {
		t.Errorf("toolwire lint --json: a tool with no findings should print \"findings\": []")
	}
}

// TestLintReadmeOutput keeps the output shown in examples/tools/README.md
// (the README section) identical to what the command prints.
func TestLintReadmeOutput(t *testing.T) {
	t.Chdir("../..")
	doc, err := os.ReadFile("examples/tools/README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "$ toolwire lint examples/tools/bad.json\n"
	_, block, ok := strings.Cut(string(doc), cmd)
	if !ok {
		t.Fatalf("examples/tools/README.md does not show %q", cmd)
	}
	block, _, _ = strings.Cut(block, "```")
	stdout, _, _ := runCmd(t, "", "lint", "examples/tools/bad.json")
	if block != stdout {
		t.Errorf("examples/tools/README.md shows output that differs from toolwire lint examples/tools/bad.json; paste the new output:\n%s", stdout)
	}
}

// toolwire lint and toolwire check read the same bytes the same way: a
// tool whose name is given twice is refused by both, not read as the last
// name by one of them.
func TestLintAndCheckAgreeOnDuplicateNames(t *testing.T) {
	const tools = `[{"type":"function","function":{"name":"a","name":"b","parameters":{"type":"object"}}}]`
	_, lintErr, lintCode := runCmd(t, tools, "lint", "-")
	if lintCode == 0 || !strings.Contains(lintErr, `duplicate member name "name"`) {
		t.Errorf("lint(%s) = exit %d, %q; want a refusal naming the duplicate", tools, lintCode, lintErr)
	}
	body := `{"model":"m","messages":[{"role":"user","content":"q"}],"tools":` + tools + `}`
	checkOut, checkErr, checkCode := runCmd(t, body, "check", "--dialect", "openai-chat", "-")
	if checkCode == 0 {
		t.Errorf("check(%s) = exit 0, %q %q; want a refusal", body, checkOut, checkErr)
	}
}

// lint recognises a replay file by its shape (a top-level conversations
// or turns) and checks it against the tools of the agent that replays it:
// unknown tool names, arguments the tool's schema refuses, call ids used
// twice, and a conversation whose last turn makes calls, which no
// recorded answer follows.
func TestLintReplay(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", `conversations:
  - question: Weather in Paris?
    turns:
      - calls:
          - {name: get_wether, args: {city: Paris}}
          - {id: c1, name: get_weather, args: {town: Paris}}
          - {id: c1, name: get_weather, args: {city: Lyon}}
  - question: Weather in Paris?
    turns:
      - text: Sunny.
`)
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	stdout, stderr, code := runCmd(t, "", "lint", "--agent", agentFile, bad)
	if code != exitcode.Rejected {
		t.Fatalf("lint --agent %s %s: exit %d, want 1:\n%s%s", agentFile, bad, code, stdout, stderr)
	}
	for _, want := range []string{
		"(replay file, 2 questions, checked against the tools of " + agentFile + ")",
		`conversations.0.turns.0.calls.0  REPLAY-UNKNOWN-TOOL  get_wether is not a tool of the agent; did you mean get_weather?`,
		`conversations.0.turns.0.calls.1  REPLAY-ARGS  the arguments do not fit get_weather's schema:`,
		`conversations.0.turns.0.calls.2  REPLAY-CALL-ID  the call id c1 is used by conversations.0.turns.0.calls.1 too`,
		`conversations.0.turns.0  REPLAY-PAIR  the last turn makes calls, and no recorded turn answers after their results`,
		`conversations.1  REPLAY-QUESTION  the question "Weather in Paris?" is recorded in conversations.0 already`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("lint of a bad replay does not say %q:\n%s", want, stdout)
		}
	}
	// The bundled replay, with the agents beside it that name it, is clean.
	replayFile := filepath.Join("..", "..", "examples", "agent", "replay.yaml")
	stdout, stderr, code = runCmd(t, "", "lint", replayFile)
	if code != 0 || !strings.Contains(stdout, "checked against the tools of agent.yaml, approval.yaml") || !strings.Contains(stdout, "no problems") {
		t.Errorf("lint %s: exit %d:\n%s%s", replayFile, code, stdout, stderr)
	}
	// A replay no agent names: its names are not checked, and it says so.
	lone := writeFile(t, dir, "lone.yaml", "turns:\n  - text: hi\n")
	stdout, _, code = runCmd(t, "", "lint", lone)
	if code != 0 || !strings.Contains(stdout, "tool names and arguments not checked: no agent file beside it names it; pass --agent FILE") {
		t.Errorf("lint %s: exit %d:\n%s", lone, code, stdout)
	}
	// A malformed replay is unusable input, with its line.
	_, stderr, code = runCmd(t, "", "lint", writeFile(t, dir, "args.yaml", "turns:\n  - calls:\n      - {name: x, args: [1]}\n"))
	if code != exitcode.Usage || !strings.Contains(stderr, "args.yaml:3:") || !strings.Contains(stderr, "want the arguments as a mapping") {
		t.Errorf("lint of malformed arguments: exit %d, stderr %s", code, stderr)
	}
}
