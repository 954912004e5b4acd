package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/gateway/internal/broken"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/wire"
	"github.com/toolwire/toolwire/transcript"
)

// langgraph is the folder of the LangGraph.js script and its packages
// (installed by .ci/run with npm ci from package-lock.json).
var langgraph = filepath.Join("testdata", "langgraph")

// nodeOrSkip returns the node binary, skipping the test when node or the
// installed packages are missing, unless under CI, where that fails it.
func nodeOrSkip(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(langgraph, "node_modules", "@langchain", "langgraph"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node or the LangGraph.js packages are missing (.ci/run installs them with npm ci in %s): %v", langgraph, err)
		}
		t.Skipf("no node or no LangGraph.js packages (cd %s && npm ci): %v", langgraph, err)
	}
	return node
}

// runGraph runs the LangGraph.js graph on history against base, and
// returns what it printed.
func runGraph(t *testing.T, node, base, history string, stream bool) (out struct {
	Text    *string `json:"text"`
	Status  int     `json:"status"`
	Message string  `json:"message"`
}) {
	t.Helper()
	// A bound on a run gone wrong (a client that waits for more of a
	// stream), not a measure: a run takes well under a second.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "agent.mjs")
	cmd.Dir = langgraph
	s := "0"
	if stream {
		s = "1"
	}
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+base, "HISTORY="+history, "STREAM="+s)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node agent.mjs: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &out); err != nil {
		t.Fatalf("the script printed %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	return out
}

// TestLangGraph runs a LangGraph.js graph (ChatOpenAI from
// @langchain/openai) through the gateway on each classic broken history:
// with repair the graph completes, streamed and not; with reject it fails
// with the 400 the gateway answers, naming the rule; with pass it fails
// with the upstream's own 400.
func TestLangGraph(t *testing.T) {
	node := nodeOrSkip(t)
	for _, h := range broken.Histories() {
		body, err := broken.Body(transcript.OpenAIChat, h.Messages, false)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := wire.Check(body, transcript.OpenAIChat)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Accepted() {
			t.Fatalf("%s: Chat Completions accepts it", h.Name)
		}
		rule := string(rep.Violations[0].Rule)
		t.Run(h.Name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				base, up := Start(t, gateway.Repair, llmtest.Turn{Text: answer})
				if out := runGraph(t, node, base, h.Name, stream); out.Text == nil || *out.Text != answer {
					t.Errorf("repair (stream %v): %+v, want the answer", stream, out)
				}
				if reqs := up.Requests(); len(reqs) != 1 || reqs[0].Rejected != "" || reqs[0].Stream != stream {
					t.Errorf("repair (stream %v): the upstream got %+v", stream, reqs)
				}
			}
			base, up := Start(t, gateway.Reject)
			if out := runGraph(t, node, base, h.Name, false); out.Status != 400 || !strings.Contains(out.Message, rule) {
				t.Errorf("reject: %+v, want 400 naming %s", out, rule)
			}
			if n := len(up.Requests()); n != 0 {
				t.Errorf("reject: the upstream got %d requests", n)
			}
			base, up = Start(t, gateway.Pass)
			out := runGraph(t, node, base, h.Name, false)
			reqs := up.Requests()
			if out.Status != 400 || len(reqs) != 1 || reqs[0].Rejected == "" || !strings.Contains(out.Message, reqs[0].Rejected) {
				t.Errorf("pass: %+v; the upstream refused %+v", out, reqs)
			}
		})
	}
}
