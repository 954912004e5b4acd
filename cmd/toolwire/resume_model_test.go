package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/session"
)

// approvalAgent is an agent whose second call waits for approval, so that
// a run pauses and is resumed.
const approvalAgent = "name: approve\nmodel: openai:gpt-4.1\ntools:\n  - get_weather\n  - {example: notify_customer, approval: true}\n"

// The key a test run is given, to find it wherever it should not be.
const secretKey = "sk-test-NEVER-STORED-5f2a"

// resume talks to the model and server that the run used, with its
// options, unless --model or --base-url say otherwise; the session never
// holds the API key.
func TestResumeUsesStoredModel(t *testing.T) {
	pause := llmtest.Turn{Calls: []llmtest.Call{
		{Name: "get_weather", Args: `{"city":"Paris"}`},
		{Name: "notify_customer", Args: `{"order":"o-00042","message":"Sorry."}`},
	}}
	tests := []struct {
		name     string
		flags    []string // given to resume; {{B}} is the other server's URL
		onStored bool     // whether the resumed call goes to the run's server
		model    string   // the model the resumed call names
	}{
		{"stored", nil, true, "gpt-4o-mini"},
		{"base-url overridden", []string{"--base-url", "{{B}}"}, false, "gpt-4o-mini"},
		{"model overridden", []string{"--model", "openai:gpt-4.1-nano"}, true, "gpt-4.1-nano"},
		{"both overridden", []string{"--model", "openai:gpt-4.1-nano", "--base-url", "{{B}}"}, false, "gpt-4.1-nano"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			agentFile, db := filepath.Join(dir, "agent.yaml"), filepath.Join(dir, "toolwire.db")
			if err := os.WriteFile(agentFile, []byte(approvalAgent), 0o644); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"OPENAI_API_KEY": secretKey, "TOOLWIRE_LEDGER": filepath.Join(dir, "ledger")}
			a := llmtest.NewServer(t, pause)
			b := llmtest.NewServer(t)
			stdout, stderr, code := runWith(t, env, "run", "--db", db, "--model", "openai:gpt-4o-mini", "--base-url", a.URL+"/v1",
				"--timeout", "90s", agentFile, "Tell the customer of o-00042.")
			if code != exitcode.Rejected || !strings.Contains(stdout, "is paused") {
				t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			id := runIDs.FindString(stdout)
			// The session holds the model, the base URL and the options.
			snap, err := openTestStore(t, db).Load(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if m := snap.Session.Model; m.Spec != "openai:gpt-4o-mini" || m.BaseURL != a.URL+"/v1" || m.Options.Timeout != 90*time.Second || m.Options.IdleTimeout != 90*time.Second {
				t.Errorf("the stored model = %+v, want openai:gpt-4o-mini at %s/v1 with a 90s timeout", m, a.URL)
			}
			want, other := a, b
			if !tt.onStored {
				want, other = b, a
			}
			want.Add(llmtest.Turn{Text: "Done."})
			args := []string{"resume", "--db", db, id, "--approve", "call_1_1"}
			for _, f := range tt.flags {
				args = append(args, strings.ReplaceAll(f, "{{B}}", b.URL+"/v1"))
			}
			stdout, stderr, code = runWith(t, env, args...)
			if code != 0 || !strings.Contains(stdout, "answer:\nDone.") {
				t.Fatalf("resume %v: exit %d\n%s\n%s", tt.flags, code, stdout, stderr)
			}
			reqs := want.Requests()
			if n := len(other.Requests()); (other == a && n != 1) || (other == b && n != 0) {
				t.Errorf("resume %v: the other server got %d request(s) from the resume", tt.flags, n)
			}
			last := reqs[len(reqs)-1]
			if got := string(last.Body); !strings.Contains(got, `"model":"`+tt.model+`"`) {
				t.Errorf("resume %v: the request names another model than %s: %.200s", tt.flags, tt.model, got)
			}
			if msgs := last.Messages(t); len(msgs) < 3 {
				t.Errorf("resume %v: the server got %d message(s), want the whole history", tt.flags, len(msgs))
			}
			// No file of the database holds the key.
			files, _ := filepath.Glob(db + "*")
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(data), secretKey) || strings.Contains(string(data), "NEVER-STORED") {
					t.Errorf("%s holds the API key", filepath.Base(f))
				}
			}
			if len(files) == 0 {
				t.Errorf("no database file %s*", db)
			}
		})
	}
}

// openTestStore opens the SQLite database at path in the test's process.
func openTestStore(t *testing.T, path string) session.Store {
	t.Helper()
	s, closeStore, err := openStore(context.Background(), &env{}, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeStore)
	return s
}
