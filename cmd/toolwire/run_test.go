package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/filetree"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/open"
)

// runWith runs the CLI in-process with the environment env; a run or a
// resume without --db saves its session in a new temporary database.
func runWith(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if len(args) > 0 && (args[0] == "run" || args[0] == "resume") && !slices.Contains(args, "--db") {
		args = append([]string{args[0], "--db", tempDB(t)}, args[1:]...)
	}
	return runRaw(t, env, args...)
}

// runRaw runs the CLI in-process with the environment env and args as
// they are.
func runRaw(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
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
	// An agent file's replay:FILE is relative to the agent file.
	replayFile, err := filepath.Abs(filepath.Join("..", "..", "examples", "agent", "replay.yaml"))
	if err != nil {
		t.Fatal(err)
	}
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
		{"unknown example tool", nil, []string{"run", write("tool.yaml", "model: replay:"+replayFile+"\ntools: [get_wether]\n"), "q"}, `tool.yaml:2:9: tools.0: no tool is named "get_wether"; did you mean "get_weather"?`},
		{"empty question", nil, []string{"run", agentFile, "  "}, "the question is empty"},
		{"bad model flag", nil, []string{"run", "--model", "gpt-4o", agentFile, "q"}, `--model "gpt-4o": want PROVIDER:NAME`},
		{"unknown provider", nil, []string{"run", "--model", "mistral:large", agentFile, "q"}, `unknown provider "mistral"`},
		{"misspelt provider", nil, []string{"run", "--model", "opneai:gpt-4o", agentFile, "q"},
			`--model opneai:gpt-4o: unknown provider "opneai": want openai, openai-responses, anthropic or gemini (did you mean openai?); or replay:FILE, to replay a recorded run`},
		{"bad base URL", map[string]string{"OPENAI_API_KEY": "sk-test"}, []string{"run", "--model", "openai:gpt-4o", "--base-url", "localhost:8000", agentFile, "q"},
			`--model openai:gpt-4o: openai chat: BaseURL "localhost:8000" is not an http or https URL`},
		{"no key for an explicit model", nil, []string{"run", "--model", "anthropic:claude-sonnet-4-5", agentFile, "q"}, "ANTHROPIC_API_KEY is not set"},
		{"replay without the question", nil, []string{"run", agentFile, "What is the meaning of life?"}, `has no recorded turns for the question "What is the meaning of life?"`},
		{"bad replay", nil, []string{"run", "--model", "replay:" + write("r.yaml", "turns:\n  - text: hi\n    cals: []\n"), agentFile, "q"}, `r.yaml:3:11: turns.0: unknown key "cals"; did you mean "calls"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runWith(t, tt.env, tt.args...)
			if code != exitcode.Usage || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.stderr)
			}
			if strings.Contains(stderr, "main.") || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr shows Go internals: %s", stderr)
			}
		})
	}
}

// --dump writes what the model was asked at each turn into a folder of
// the run's own, readable by its user only, and never overwrites a file:
// two runs keep both runs' requests.
func TestRunDump(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dumps")
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	var ids []string
	for range 2 {
		stdout, stderr, code := runWith(t, nil, "run", "--db", tempDB(t), "--dump", dir, agentFile, "北京今天适合穿什么衣服")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		id := runIDs.FindString(stdout)
		if want := "requests dumped into " + filepath.Join(dir, id); !strings.Contains(stdout, want) {
			t.Errorf("run does not say where it dumps (%q):\n%s", want, stdout)
		}
		ids = append(ids, id)
	}
	if ids[0] == ids[1] {
		t.Fatalf("two runs have the same session id %s", ids[0])
	}
	for _, id := range ids {
		run := filepath.Join(dir, id)
		if fi, err := os.Stat(run); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, want a folder of mode 0700", run, err)
		}
		for _, f := range []string{"request-001.json", "request-002.json"} {
			p := filepath.Join(run, f)
			b, err := os.ReadFile(p)
			if err != nil || !bytes.Contains(b, []byte("北京今天适合穿什么衣服")) {
				t.Errorf("%s: %v, %.100s", p, err, b)
				continue
			}
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, want mode 0600", p, err)
			}
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, want a folder of mode 0700", dir, err)
	}
	// A dump is the provider's body for the agent's dialect (the replay's
	// openai-chat), which check accepts: the run was clean.
	files, _ := filepath.Glob(filepath.Join(dir, ids[0], "request-*.json"))
	if stdout, stderr, code := runWith(t, nil, append([]string{"check"}, files...)...); code != 0 || strings.Count(stdout, "accepted: openai-chat would accept it") != len(files) {
		t.Errorf("toolwire check %s/*: exit %d:\n%s%s", filepath.Join(dir, ids[0]), code, stdout, stderr)
	}
	if len(files) < 2 {
		t.Errorf("%d dumps, want one per model call", len(files))
	}
}

// A dump never replaces a file that is already there.
func TestDumpNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	old := writeFile(t, dir, "request-001.json", "an earlier dump")
	sent := false
	d := &dumpTransport{dir: dir, base: roundTripFunc(func(*http.Request) (*http.Response, error) {
		sent = true
		return nil, errors.New("not sent")
	})}
	req, err := http.NewRequest("POST", "http://example.invalid/v1", strings.NewReader(`{"new":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.RoundTrip(req); err == nil || !strings.Contains(err.Error(), "--dump") || sent {
		t.Errorf("RoundTrip over an existing dump: error %v, sent %v; want a --dump error, nothing sent", err, sent)
	}
	if b, _ := os.ReadFile(old); string(b) != "an earlier dump" {
		t.Errorf("the earlier dump now holds %q", b)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The files an agent file names are relative to it, wherever toolwire
// runs; one outside its folder is named in a warning.
func TestRunAgentFilePaths(t *testing.T) {
	turns := `{"turns":[{"text":"It is sunny."}]}`
	tests := []struct {
		name  string
		agent string            // agent/agent.yaml
		files map[string]string // more files, under the root
		code  int
		warn  []string // in the warnings, in order; none when empty
	}{
		{name: "model replay beside the agent", agent: "model: replay:turns.json\n", files: map[string]string{"agent/turns.json": turns}},
		{name: "replay in a subfolder", agent: "model: openai:gpt-4o-mini\nreplay: rec/turns.json\n", files: map[string]string{"agent/rec/turns.json": turns}},
		{name: "model replay outside", agent: "name: x\nmodel: replay:../shared/turns.json\n", files: map[string]string{"shared/turns.json": turns},
			warn: []string{"agent.yaml:2:8: the replay file ../shared/turns.json is outside the agent file's folder"}},
		{name: "replay and spec outside", agent: "model: openai:gpt-4o-mini\nreplay: ../shared/turns.json\ntools:\n  - spec: ROOT/shared/tools.json\n",
			files: map[string]string{"shared/turns.json": turns}, code: exitcode.Usage,
			warn: []string{"agent.yaml:2:9: the replay file ../shared/turns.json is outside", "agent.yaml:4:11: the spec file ROOT/shared/tools.json is outside"}},
		{name: "a link to outside", agent: "model: replay:link.json\n", files: map[string]string{"shared/turns.json": turns, "agent/link.json": "-> ../shared/turns.json"},
			warn: []string{"agent.yaml:1:8: the replay file link.json is outside the agent file's folder (it is ROOT/shared/turns.json)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filetree.Write(t, tt.files)
			fix := func(s string) string { return strings.ReplaceAll(s, "ROOT", root) }
			agentFile := filepath.Join(root, "agent", "agent.yaml")
			if err := os.MkdirAll(filepath.Dir(agentFile), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Dir(agentFile), "agent.yaml", fix(tt.agent))
			elsewhere := filepath.Join(root, "elsewhere")
			if err := os.Mkdir(elsewhere, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(elsewhere)
			stdout, stderr, code := runWith(t, nil, "run", agentFile, "Weather?")
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s%s", code, tt.code, stdout, stderr)
			}
			if tt.code == 0 && !strings.Contains(stdout, "answer:\nIt is sunny.") {
				t.Errorf("the run does not answer:\n%s", stdout)
			}
			var warnings []string
			for _, l := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(l, "toolwire: warning: ") {
					warnings = append(warnings, l)
				}
			}
			if len(warnings) != len(tt.warn) {
				t.Fatalf("warnings:\n%s\nwant %d", strings.Join(warnings, "\n"), len(tt.warn))
			}
			for i, w := range tt.warn {
				if !strings.Contains(warnings[i], fix(w)) || !strings.Contains(warnings[i], "an agent file can make toolwire read any file you can") {
					t.Errorf("warning %d = %q, want it to contain %q and say why", i, warnings[i], fix(w))
				}
			}
		})
	}
}

// TestKeyVars: every provider open.Model knows has the variables its key
// is read from.
func TestKeyVars(t *testing.T) {
	for _, p := range open.Providers() {
		if len(keyVars[p]) == 0 {
			t.Errorf("keyVars[%q] = %v, want the variables of its key", p, keyVars[p])
		}
	}
}

// TestRunBounds: --max-turns stops a run after N answers without a final
// one; --timeout bounds each model call, so a provider that never answers
// fails the run in a bounded time instead of after 10 minutes.
func TestRunBounds(t *testing.T) {
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	stdout, stderr, code := runWith(t, nil, "run", "--max-turns", "1", agentFile, "北京今天适合穿什么衣服")
	if code != exitcode.Rejected || !strings.Contains(stdout, "at most 1 turns") || !strings.Contains(stdout+stderr, "stopped after 1 turns") {
		t.Errorf("run --max-turns 1: exit %d, want 1 and a max_turns stop:\n%s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{{"--max-turns", "-1"}, {"--timeout", "-5s"}, {"--timeout", "soon"}} {
		if _, stderr, code := runWith(t, nil, append(append([]string{"run"}, args...), agentFile, "hi")...); code != exitcode.Usage || !strings.Contains(stderr, args[0]) {
			t.Errorf("run %v: exit %d, %s; want a usage error naming the flag", args, code, stderr)
		}
	}

	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client hang up
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	defer silent.Close()
	began := time.Now()
	stdout, stderr, code = runWith(t, nil, "run", "--model", "openai:gpt-4o", "--base-url", silent.URL, "--timeout", "200ms", agentFile, "hi")
	if took := time.Since(began); code != exitcode.Env || took > 15*time.Second {
		t.Errorf("run --timeout 200ms against a server that never answers: exit %d after %v, want 3 within seconds:\n%s%s", code, took, stdout, stderr)
	}
}

// turnHeadings are the turn headings ("── turn 2") of run's and sessions
// show's output.
var turnHeadings = regexp.MustCompile(`(?m)^── turn (\d+)`)

// One run is numbered alike by run, sessions show and the dump names:
// turns from 1, as the user sees them, also for a model call that fails
// (turn 2 here, answered 500 three times: the client's two retries), and
// every request of a turn, retries included, is named after its turn.
func TestTurnNumbering(t *testing.T) {
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	busy := &llmtest.Error{Kind: llm.Overloaded, Message: "busy", RetryAfter: time.Millisecond}
	srv := llmtest.NewServer(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
		llmtest.Turn{Error: busy}, llmtest.Turn{Error: busy}, llmtest.Turn{Error: busy})
	db, dumps := tempDB(t), t.TempDir()
	key := map[string]string{"OPENAI_API_KEY": "sk-test"}
	stdout, stderr, code := runWith(t, key, "run", "--db", db, "--dump", dumps, "--model", "openai:gpt-4.1", "--base-url", srv.URL+"/v1", agentFile, "Weather in Paris?")
	if code != exitcode.Env {
		t.Fatalf("run: exit %d, want 3 (the provider kept failing):\n%s%s", code, stdout, stderr)
	}
	id := runIDs.FindString(stdout)
	headings := func(out string) string {
		var n []string
		for _, m := range turnHeadings.FindAllStringSubmatch(out, -1) {
			n = append(n, m[1])
		}
		return strings.Join(n, " ")
	}
	if got, want := headings(stdout), "1 2"; got != want {
		t.Errorf("run numbers its turns %q, want %q:\n%s", got, want, stdout)
	}
	shown, stderr, code := runWith(t, nil, "sessions", "show", "--db", db, id)
	if code != 0 {
		t.Fatalf("sessions show: exit %d: %s", code, stderr)
	}
	if got, want := headings(shown), "1 2"; got != want {
		t.Errorf("sessions show numbers the turns %q, want %q:\n%s", got, want, shown)
	}
	files, _ := filepath.Glob(filepath.Join(dumps, id, "*"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if got, want := strings.Join(names, " "), "request-001.json request-002-2.json request-002-3.json request-002.json"; got != want {
		t.Errorf("dumps = %s, want %s", got, want)
	}
}

// transcriptOf is what a run's output shows of its conversation: each
// turn's text, calls and results, and the answer, without the lines that
// differ between a live run and its replay (the header, the budget and
// usage lines, durations).
func transcriptOf(stdout string) string {
	_, body, _ := strings.Cut(stdout, "\n── turn 1")
	var keep []string
	for _, l := range strings.Split(durations.ReplaceAllString(body, ""), "\n") {
		if strings.HasPrefix(l, "   budget:") || strings.Contains(l, "· usage:") || strings.HasPrefix(l, "recorded into ") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// run --record FILE writes a live run as a replay file; running it with
// the replay model shows the same transcript. A second recording adds its
// question to the file.
func TestRunRecord(t *testing.T) {
	agentFile := filepath.Join("..", "..", "examples", "agent", "agent.yaml")
	srv := llmtest.NewServer(t,
		llmtest.Turn{Text: "Let me look: ", Calls: []llmtest.Call{{ID: "call_live_1", Name: "get_weather", Args: `{"city": "Paris"}`}}},
		llmtest.Turn{Text: "It is 11°C\nand rainy.  "},
		llmtest.Turn{Calls: []llmtest.Call{{ID: "call_live_2", Name: "search_orders", Args: `{"status":"refunded"}`}}},
		llmtest.Turn{Text: "866."})
	key := map[string]string{"OPENAI_API_KEY": "sk-test"}
	rec := filepath.Join(t.TempDir(), "recorded.yaml")
	live, stderr, code := runWith(t, key, "run", "--record", rec, "--model", "openai:gpt-4.1", "--base-url", srv.URL+"/v1", agentFile, "Weather in Paris?")
	if code != 0 {
		t.Fatalf("run --record: exit %d:\n%s%s", code, live, stderr)
	}
	if want := "recorded into " + rec; !strings.Contains(live, want) {
		t.Errorf("run --record does not say %q:\n%s", want, live)
	}
	replayed, stderr, code := runWith(t, nil, "run", "--model", "replay:"+rec, agentFile, "Weather in Paris?")
	if code != 0 {
		t.Fatalf("run --model replay:%s: exit %d:\n%s%s", rec, code, replayed, stderr)
	}
	if got, want := transcriptOf(replayed), transcriptOf(live); got != want || !strings.Contains(want, "call_live_1") {
		t.Errorf("the replayed run shows\n%s\nthe live run showed\n%s", got, want)
	}
	// A second question is added to the file; the first stays.
	if _, stderr, code := runWith(t, key, "run", "--record", rec, "--model", "openai:gpt-4.1", "--base-url", srv.URL+"/v1", agentFile, "Which orders were refunded?"); code != 0 {
		t.Fatalf("second run --record: exit %d: %s", code, stderr)
	}
	for _, q := range []string{"Weather in Paris?", "Which orders were refunded?"} {
		if out, stderr, code := runWith(t, nil, "run", "--model", "replay:"+rec, agentFile, q); code != 0 || !strings.Contains(out, "answer:") {
			t.Errorf("replay of %q after two recordings: exit %d:\n%s%s", q, code, out, stderr)
		}
	}
}
