package servertest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/server/temporaltest"

	"github.com/toolwire/toolwire/provider/llmtest"
)

// agentYAML is an agent of the example tools: a ticket, and a message to
// the customer that waits for approval.
const agentYAML = `name: shop
model: openai:gpt-4o-mini
system: You are a concise assistant for a small shop.
max_turns: 4
tools:
  - example: create_ticket
  - {example: notify_customer, approval: true}
`

// plugin builds toolwire-temporal into a folder of its own.
func plugin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "toolwire-temporal")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/toolwire/toolwire/temporal/cmd/toolwire-temporal")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build toolwire-temporal: %v\n%s", err, out)
	}
	return bin
}

// exitCode runs cmd and returns its output and exit code.
func exitCode(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		return out.String(), xe.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

// The plugin's commands, as toolwire runs them: a worker for an agent
// file; run starts a session and prints its events until it pauses
// (exit 1, saying how to decide); approve decides and prints the rest
// until the answer (exit 0).
func TestPluginCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	bin := plugin(t)
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	model := llmtest.NewServer(t,
		llmtest.Turn{Calls: []llmtest.Call{
			{Name: "create_ticket", Args: `{"subject":"Late order o-00042","body":"It has not arrived."}`},
			{Name: "notify_customer", Args: `{"order":"o-00042","message":"Your order is late."}`}}},
		llmtest.Turn{Text: "Ticket T-1001 is open and the customer was told."})
	defer model.Close()
	dir := t.TempDir()
	agentFile := filepath.Join(dir, "shop.yaml")
	if err := os.WriteFile(agentFile, []byte(agentYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--temporal", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(), "--task-queue", "plugin", "--db", filepath.Join(dir, "toolwire.db")}
	env := append(os.Environ(), "OPENAI_API_KEY=test-key", "TOOLWIRE_LEDGER="+filepath.Join(dir, "ledger"))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := exec.CommandContext(ctx, bin, append(append([]string{"worker"}, common...), "--base-url", model.URL+"/v1", agentFile)...)
	w.Env = env
	var wout bytes.Buffer
	w.Stdout, w.Stderr = &wout, &wout
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = w.Wait() }()

	run := exec.Command(bin, append(append([]string{"run"}, common...), agentFile, "Open a ticket and tell the customer")...)
	run.Env = env
	out, code := exitCode(t, run)
	id := regexp.MustCompile(`session (run_[0-9a-f]{24})`).FindStringSubmatch(out)
	if code != 1 || id == nil || !strings.Contains(out, "→ create_ticket") || !strings.Contains(out, "(needs approval)") ||
		!strings.Contains(out, "paused: waiting for a person's approval") || !strings.Contains(out, "toolwire resume --temporal") {
		t.Fatalf("run = exit %d:\n%s\nworker:\n%s\nwant exit 1, the session id, the calls, and the pause", code, out, wout.String())
	}
	approve := exec.Command(bin, append(append([]string{"approve"}, common...), id[1])...)
	approve.Env = env
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			_ = approve.Process.Kill()
		}
	}()
	out, code = exitCode(t, approve)
	close(done)
	if code != 0 || !strings.Contains(out, "← create_ticket success") || !strings.Contains(out, "← notify_customer success") || !strings.Contains(out, "answer:\nTicket T-1001 is open") {
		t.Fatalf("approve = exit %d:\n%s\nwant exit 0, the turn's results and the answer", code, out)
	}
	ledger, err := os.ReadFile(filepath.Join(dir, "ledger"))
	if err != nil || strings.Count(string(ledger), "notify") != 1 {
		t.Errorf("the ledger = %q, %v; want one notify", ledger, err)
	}
}
