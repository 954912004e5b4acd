package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/examples/mcpserver"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/jsonx"
)

// mcpServerVar makes the test binary the example MCP server
// (examples/mcpserver) over stdio, for the agent files of these tests.
const mcpServerVar = "TOOLWIRE_TEST_MCPSERVER"

func serveExampleMCP() {
	if err := mcpserver.New().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// mcpAgent writes an agent file with a Go tool and the example MCP
// server, the test binary, as "orders".
func mcpAgent(t *testing.T) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "agent.yaml", fmt.Sprintf(`name: desk
model: openai:gpt-4o-mini
tools: [get_weather]
mcp_servers:
  - name: orders
    command: %q
    args: [-test.run=^$]
    env: {%s: "1"}
`, os.Args[0], mcpServerVar))
}

// TestToolsCmd: toolwire tools lists every tool an agent sees, with its
// source, as text and as JSON.
func TestToolsCmd(t *testing.T) {
	file := mcpAgent(t)
	cmdCase{name: "text", args: []string{"tools", file}, golden: "tools.txt"}.check(t, "testdata")
	stdout, stderr, code := runCmd(t, "", "tools", "--json", file)
	if code != 0 {
		t.Fatalf("tools --json: exit %d: %s", code, stderr)
	}
	var out toolsOutput
	if err := jsonx.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("tools --json: %v\n%s", err, stdout)
	}
	var got []string
	for _, tl := range out.Tools {
		got = append(got, tl.Name+" "+tl.Source)
	}
	want := []string{"get_weather go", "cancel_order mcp:orders", "lookup_order mcp:orders", "weekly_report mcp:orders", "read_result agent"}
	if out.Agent != file || !slices.Equal(got, want) || out.Skipped == nil {
		t.Errorf("tools --json = %+v, want agent %s and tools %v", out, file, want)
	}
}

// TestMCPUnreachable: an MCP server that cannot start exits 3 with the
// entry's position, for tools and for run.
func TestMCPUnreachable(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "agent.yaml", "model: openai:gpt-4o-mini\nmcp_servers:\n  - name: gone\n    command: ./no-such-server\n")
	for _, args := range [][]string{{"tools", file}, {"run", "--db", filepath.Join(dir, "t.db"), "--model", "replay:" + filepath.Join("..", "..", "examples", "agent", "replay.yaml"), file, "hi"}} {
		cmdCase{args: args, code: exitcode.Env, inStderr: "agent.yaml:3:5: mcp_servers.0: cannot connect"}.check(t, "testdata")
	}
}

// TestMCPServe: toolwire mcp serve, driven by the go-sdk client over
// its standard input and output, offers the agent's tools (its MCP
// server's too) and answers with toolwire's tool messages.
func TestMCPServe(t *testing.T) {
	file := mcpAgent(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		code := run([]string{"mcp", "serve", file}, inR, outW, &stderr)
		_ = outW.Close()
		done <- code
	}()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
		if tl.Name == "cancel_order" && (tl.Annotations == nil || tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint) {
			t.Errorf("cancel_order, which needs approval, is not marked destructive")
		}
	}
	slices.Sort(names)
	if want := []string{"cancel_order", "get_weather", "lookup_order", "read_result", "weekly_report"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	for _, tt := range []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"get_weather", map[string]any{"city": "北京"}, false, `"status":"success","summary":"get_weather(city=北京): 晴 (sunny)`},
		{"lookup_order", map[string]any{"id": "o-00042"}, false, `"data":{"id":"o-00042","items":["CO-0042 coffee grinder","FI-0007 paper filters"],"status":"in transit, 3 days late","total_eur":86.4}`},
		{"lookup_order", map[string]any{"id": "o-1"}, true, `"error":{"type":"not_found","message":"order \"o-1\" not found`},
		{"cancel_order", map[string]any{"id": "o-00042"}, true, `"type":"permission_denied"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatalf("CallTool(%s): %v", tt.tool, err)
		}
		var got strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				got.WriteString(tc.Text)
			}
		}
		if res.IsError != tt.isError || !strings.Contains(got.String(), tt.want) {
			t.Errorf("%s(%v) = isError %v, %s\nwant isError %v and %s", tt.tool, tt.args, res.IsError, got.String(), tt.isError, tt.want)
		}
	}
	_ = cs.Close()
	if code := <-done; code != 0 {
		t.Errorf("mcp serve exit = %d, stderr %s", code, stderr.String())
	}
}

// TestRunExampleMCP: the example agent with an MCP server runs as the
// README shows: go run starts examples/mcpserver, the recorded model
// turns call its tool.
func TestRunExampleMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the example MCP server with go run")
	}
	stdout, stderr, code := runCmd(t, "", "run", "--db", filepath.Join(t.TempDir(), "t.db"), filepath.Join("..", "..", "examples", "agent", "mcp.yaml"), "Where is order o-00042?")
	if code != 0 {
		t.Fatalf("run exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{
		`→ lookup_order {"id":"o-00042"}`,
		`"status":"in transit, 3 days late"`,
		`"source":"mcp:orders"`,
		"answer:\nOrder o-00042 (86.40 EUR, a coffee grinder and paper filters) is in transit, 3 days late.",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// TestLintMCPAgent: lint scores the tools an agent file's model would
// see, its MCP server's included, and checks a replay file against them.
func TestLintMCPAgent(t *testing.T) {
	file := mcpAgent(t)
	stdout, stderr, code := runCmd(t, "", "lint", "--json", file)
	if code != 0 {
		t.Fatalf("lint exit %d: %s", code, stderr)
	}
	var out lintOutput
	if err := jsonx.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range out.Tools {
		got = append(got, tl.Tool+" "+tl.Format)
	}
	if want := []string{"get_weather agent", "cancel_order agent", "lookup_order agent", "weekly_report agent"}; !slices.Equal(got, want) {
		t.Errorf("lint tools = %v, want %v", got, want)
	}
	dir := filepath.Dir(file)
	replay := writeFile(t, dir, "replay.yaml", "dialect: openai-chat\nmodel: gpt-4o-mini\nturns:\n  - calls:\n      - {name: lookup_order, args: {id: 7}}\n  - text: done\n")
	_, _, code = runCmd(t, "", "lint", "--agent", file, replay)
	if code != exitcode.Rejected {
		t.Errorf("lint of a replay whose lookup_order id is a number: exit %d, want 1", code)
	}
	cmdCase{args: []string{"lint", "--agent", file, writeFile(t, dir, "ok.yaml", "dialect: openai-chat\nmodel: gpt-4o-mini\nturns:\n  - calls:\n      - {name: lookup_order, args: {id: o-1}}\n  - text: done\n")},
		stdout: "", code: 0}.checkStdoutContains(t, "no problems")
}

// checkStdoutContains runs c and checks its exit code and that its
// stdout holds want.
func (c cmdCase) checkStdoutContains(t *testing.T, want string) {
	t.Helper()
	stdout, stderr, code := runCmd(t, c.stdin, c.args...)
	if code != c.code || !strings.Contains(stdout, want) {
		t.Errorf("toolwire %q = exit %d, %s (stderr %s); want exit %d and %q", c.args, code, stdout, stderr, c.code, want)
	}
}
