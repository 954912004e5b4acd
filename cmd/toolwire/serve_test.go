package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/syncbuf"
)

func TestServeBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		says string
	}{
		{"every interface, no token", nil, []string{"serve", "--addr", "0.0.0.0:0", "--agents", "."}, "needs a token"},
		{"an empty host, no token", nil, []string{"serve", "--addr", ":0", "--agents", "."}, "TOOLWIRE_TOKEN"},
		{"not host:port", nil, []string{"serve", "--addr", "localhost", "--agents", "."}, "host:port"},
		{"no agents directory", nil, []string{"serve", "--agents", "no/such/dir"}, "--agents no/such/dir is not a directory"},
		{"an argument", nil, []string{"serve", "agents"}, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runWith(t, tc.env, tc.args...)
			if code != exitcode.Usage || !strings.Contains(stderr, tc.says) {
				t.Errorf("exit %d, stderr %q; want 2 saying %q", code, stderr, tc.says)
			}
		})
	}
}

var servedURL = regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/)`)

// startServing runs runServer, toolwire serve or toolwire gateway, until
// stop, which returns what runServer returned; base is the URL its banner
// on out gives, the first submatch of banner. what names the command in a
// failure.
func startServing(t *testing.T, what string, out, errOut *syncbuf.Buffer, banner *regexp.Regexp, runServer func(ctx context.Context) error) (base string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	served := make(chan error, 1)
	go func() { served <- runServer(ctx) }()
	for base == "" {
		select {
		case err := <-served:
			t.Fatalf("%s returned %v; stderr %s", what, err, errOut.String())
		case <-time.After(time.Millisecond):
		}
		if m := banner.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	return base, func() error {
		cancel()
		return <-served
	}
}

// TestServe serves the bundled agents with no API key: a session of
// the example agent replays its recorded turns, as toolwire run does,
// and the server stops cleanly when its context ends.
func TestServe(t *testing.T) {
	var out, errOut syncbuf.Buffer
	// The process's environment (an MCP server's go run needs HOME and
	// the Go caches), without the providers' keys.
	e := &env{stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if strings.HasSuffix(k, "_API_KEY") || strings.HasPrefix(k, "OTEL_") {
			return ""
		}
		return os.Getenv(k)
	}}
	db := tempDB(t)
	base, stop := startServing(t, "serve", &out, &errOut, servedURL, func(ctx context.Context) error {
		return serve(ctx, e, serveOptions{addr: "127.0.0.1:0", agents: filepath.Join("..", "..", "examples", "agent"), db: db})
	})
	// run creates a session of agent with message and reads its events
	// to the run's end (or pause).
	run := func(agent, message string) (id, stream string) {
		body := fmt.Sprintf(`{"agent":%q,"message":%q}`, agent, message)
		resp, err := http.Post(base+"v1/sessions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST /v1/sessions of %s: %d %s; stderr %s", agent, resp.StatusCode, b, errOut.String())
		}
		var created struct {
			Session struct {
				ID     string `json:"id"`
				Events string `json:"events"`
			} `json:"session"`
		}
		if err := json.Unmarshal(b, &created); err != nil {
			t.Fatal(err)
		}
		resp, err = http.Get(strings.TrimSuffix(base, "/") + created.Session.Events)
		if err != nil {
			t.Fatal(err)
		}
		events, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return created.Session.ID, string(events)
	}
	_, stream := run("agent", "北京今天适合穿什么衣服")
	if !strings.Contains(stream, "event: done") || !strings.Contains(stream, `"reason":"answered"`) {
		t.Errorf("the stream does not end with the answer:\n%s", stream)
	}
	if !strings.Contains(errOut.String(), "replays the recorded model turns") {
		t.Errorf("no notice of the replay: %s", errOut.String())
	}
	// An agent whose tools come from an MCP server: the server starts it
	// as toolwire run does.
	if _, stream := run("mcp", "Where is order o-00042?"); !strings.Contains(stream, `"reason":"answered"`) || !strings.Contains(stream, `"tool":"lookup_order"`) {
		t.Errorf("the MCP agent's run did not call its server's tool and answer:\n%s", stream)
	}
	// A session the server paused for approval is resumed by the CLI.
	id, stream := run("approval", "Open a ticket about the late delivery of order o-00042 and tell the customer")
	if !strings.Contains(stream, "event: approval") {
		t.Fatalf("the run did not pause for approval:\n%s", stream)
	}
	if err := stop(); err != nil {
		t.Errorf("serve after its context ended: %v", err)
	}
	if !strings.Contains(out.String(), "stopped; every session can be resumed") {
		t.Errorf("stdout: %s", out.String())
	}
	stdout, stderr, exit := runWith(t, nil, "resume", "--db", db, id, "--approve", "call_1_1")
	if exit != 0 || !strings.Contains(stdout, "answer:") {
		t.Errorf("toolwire resume of the server's session: exit %d\n%s\n%s", exit, stdout, stderr)
	}
}
