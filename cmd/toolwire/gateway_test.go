package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/syncbuf"
	"github.com/toolwire/toolwire/provider/llmtest"
)

func TestGatewayBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"every interface, no token", []string{"gateway", "--addr", "0.0.0.0:0"}, "needs a token"},
		{"not host:port", []string{"gateway", "--addr", "localhost"}, "host:port"},
		{"an unknown policy", []string{"gateway", "--policy", "fix"}, `"fix" is not a policy`},
		{"an unknown dialect", []string{"gateway", "--policy", "repair,openai=reject"}, `"openai" is not a dialect`},
		{"an upstream that is no URL", []string{"gateway", "--upstream-openai", "api.openai.com"}, "--upstream-openai"},
		{"a key in the upstream", []string{"gateway", "--upstream-gemini", "https://generativelanguage.googleapis.com?key=AIza"}, "keys travel in the client's headers"},
		{"a zero limit", []string{"gateway", "--max-body", "0"}, "must be above 0"},
		{"a negative memory", []string{"gateway", "--remember", "-1"}, "--remember -1: want 0"},
		{"an argument", []string{"gateway", "now"}, "unknown command"},
		{"an unknown dialect to shape", []string{"gateway", "--shape", "openai"}, `"openai" is not a dialect`},
		{"a zero shaping budget", []string{"gateway", "--shape", "all", "--shape-budget", "0"}, "must be above 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runWith(t, nil, tc.args...)
			if code != exitcode.Usage || !strings.Contains(stderr, tc.says) {
				t.Errorf("exit %d, stderr %q; want 2 saying %q", code, stderr, tc.says)
			}
			if strings.Contains(stderr, "AIza") {
				t.Errorf("stderr shows the key: %s", stderr)
			}
		})
	}
}

var gatewayURL = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// TestGateway runs toolwire gateway in front of the conformance server:
// a broken Anthropic request is repaired and answered, its record is
// listed by toolwire sessions list and shown by sessions show, and the
// gateway stops cleanly when its context ends.
func TestGateway(t *testing.T) {
	up := llmtest.NewServer(t, llmtest.Turn{Text: "It is sunny."})
	var out, errOut syncbuf.Buffer
	e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	db := tempDB(t)
	base, stop := startServing(t, "gateway", &out, &errOut, gatewayURL, func(ctx context.Context) error {
		return runGateway(ctx, e, gatewayOptions{addr: "127.0.0.1:0", db: db, policy: "reject,anthropic=repair",
			openai: up.URL, anthropic: up.URL, gemini: up.URL, maxBody: 1 << 20, timeout: time.Minute, idle: time.Minute, shapeBudget: 4000, maxReads: 8})
	})
	// A tool_use without its tool_result.
	body := `{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[
		{"role":"user","content":"Weather in Paris?"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
		{"role":"user","content":"Well?"}]}`
	req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(body))
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("x-api-key", "sk-ant-SECRET")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get(gateway.VerdictHeader) != "repaired" {
		t.Fatalf("status %d, verdict %q: %s", resp.StatusCode, resp.Header.Get(gateway.VerdictHeader), b)
	}
	id := resp.Header.Get(gateway.RecordHeader)
	// The same body to the OpenAI route is judged as Chat Completions, and
	// rejected there in OpenAI's shape.
	resp, err = http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"gpt-4.1","messages":[{"role":"tool","tool_call_id":"call_1","content":"sunny"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), `"type":"invalid_request_error"`) || !strings.Contains(string(b), "OAI-CC-NO-ORPHAN-RESULT") {
		t.Errorf("the orphan result: %d %s", resp.StatusCode, b)
	}
	if err := stop(); err != nil {
		t.Fatalf("gateway: %v", err)
	}
	logs := errOut.String()
	if !strings.Contains(logs, "verdict=repaired") || !strings.Contains(logs, "verdict=rejected") || strings.Contains(logs, "SECRET") {
		t.Errorf("the log lines:\n%s", logs)
	}
	stdout, stderr, code := runWith(t, nil, "sessions", "list", "--db", db)
	if code != 0 || !strings.Contains(stdout, id) || !strings.Contains(stdout, "repaired anthropic /v1/messages: ANT-RESULT-NEXT") {
		t.Errorf("sessions list: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runWith(t, nil, "sessions", "show", id, "--db", db)
	for _, want := range []string{"agent: toolwire gateway", "POST /v1/messages · anthropic · policy repair · repaired", "ANT-RESULT-NEXT", "repairs (1):", "diff (received → sent):", "+ messages.2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("sessions show lacks %q: exit %d\n%s%s", want, code, stdout, stderr)
		}
	}
	t.Log(stdout)
}
