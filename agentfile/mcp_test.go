package agentfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/toolwire/toolwire/examples/mcpserver"
	"github.com/toolwire/toolwire/tool"
)

// The test binary is the example MCP server when AGENTFILE_MCPSERVER is
// set: an agent file starts it as a stdio server.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTFILE_MCPSERVER") != "" {
		if err := mcpserver.New().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	goleak.VerifyTestMain(m)
}

// serverEntry is an mcp_servers entry that starts the test binary as
// the example server, in YAML.
func serverEntry(name string) string {
	return fmt.Sprintf("  - name: %s\n    command: %q\n    args: [-test.run=^$]\n    env: {AGENTFILE_MCPSERVER: \"1\"}\n", name, os.Args[0])
}

func TestParseMCPServers(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"stdio", "mcp_servers:\n  - name: a\n    command: srv\n    args: [x]\n    env: {K: v}\n    tools: [t]\n    overrides:\n      t: {idempotency: level_2, approval: true, timeout: 30s}\n", ""},
		{"http", "mcp_servers:\n  - {name: a, url: \"https://h/mcp\", headers: {Authorization: Bearer x}}\n", ""},
		{"unknown key", "mcp_servers:\n  - name: a\n    comand: srv\n", `agent.yaml:3:13: mcp_servers.0: unknown key "comand"; did you mean "command"?`},
		{"no name", "mcp_servers:\n  - command: srv\n", `agent.yaml:2:5: mcp_servers.0: missing "name"`},
		{"neither", "mcp_servers:\n  - name: a\n", "agent.yaml:2:5: mcp_servers.0: give a command (a stdio server) or a url"},
		{"both", "mcp_servers:\n  - {name: a, command: x, url: \"http://h\"}\n", "agent.yaml:2:5: mcp_servers.0: give a command or a url, not both"},
		{"bad url", "mcp_servers:\n  - {name: a, url: \"h/mcp\"}\n", `url "h/mcp" is not an absolute http or https URL`},
		{"bad level", "mcp_servers:\n  - name: a\n    command: x\n    overrides:\n      t: {idempotency: level_9}\n", `agent.yaml:5:24: mcp_servers.0.overrides.t.idempotency: "level_9" is not level_0`},
		{"bad timeout", "mcp_servers:\n  - name: a\n    command: x\n    overrides:\n      t: {timeout: soon}\n", `agent.yaml:5:20: mcp_servers.0.overrides.t.timeout: "soon" is not a positive duration`},
		{"args not strings", "mcp_servers:\n  - {name: a, command: x, args: [1]}\n", "agent.yaml:2:34: mcp_servers.0.args.0: want a string, got a number"},
		{"env not a map", "mcp_servers:\n  - {name: a, command: x, env: [1]}\n", "mcp_servers.0.env: want a mapping of names to strings"},
	}
	for _, tt := range tests {
		_, err := Parse("agent.yaml", []byte(tt.in))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: Parse: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: Parse = %v, want %q", tt.name, err, tt.err)
		}
	}
	d, err := Parse(filepath.Join("dir", "agent.yaml"), []byte(tests[0].in))
	if err != nil {
		t.Fatal(err)
	}
	s := d.MCPServers[0]
	if s.Dir != "dir" || s.Overrides["t"].Timeout.String() != "30s" || !*s.Overrides["t"].Approval || s.Overrides["t"].Idempotency != tool.Level2 {
		t.Errorf("parsed %+v", s)
	}
}

// TestValidateMCP: Validate checks the entries without starting them:
// a name used twice, an ${ENV} reference that is not set.
func TestValidateMCP(t *testing.T) {
	for _, tt := range []struct {
		in, err string
	}{
		{"model: openai:x\nmcp_servers:\n  - {name: a, command: x}\n  - {name: a, command: y}\n", "agent.yaml:4:5: mcp_servers.1: the MCP server name a is already used (line 3)"},
		{"model: openai:x\nmcp_servers:\n  - {name: a, url: \"http://h\", headers: {Authorization: \"Bearer ${NOPE}\"}}\n", "agent.yaml:3:5: mcp_servers.0: headers.Authorization names ${NOPE}, which is not set"},
		{"model: openai:x\nmcp_servers:\n  - {name: a, url: \"http://h\", headers: {Authorization: \"Bearer ${KEY}\"}}\n", ""},
	} {
		d, err := Parse("agent.yaml", []byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		err = d.Validate(&Options{LookupEnv: func(k string) (string, bool) { return "secret", k == "KEY" }})
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Validate(%q) = %v, want %q", tt.in, err, tt.err)
		}
	}
}

// TestOpenMCP: Open starts the servers, and the agent's registry holds
// their tools, with each tool's source; Build refuses such a definition.
func TestOpenMCP(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "agent.yaml")
	src := "name: desk\nmodel: openai:gpt-4o-mini\ntools: [get_weather]\nmcp_servers:\n" + serverEntry("orders") +
		"    overrides:\n      cancel_order: {approval: false}\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Tools: goTools(t)}
	if _, _, err := d.Build(opts); err == nil || !strings.Contains(err.Error(), "use Open") {
		t.Errorf("Build = %v, want a refusal that names Open", err)
	}
	_, cfg, tools, err := d.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tools.Close()
	var got []string
	for _, ti := range tools.List() {
		got = append(got, ti.Name+" "+ti.Source+" "+string(ti.Idempotency)+fmt.Sprint(ti.Approval))
	}
	want := []string{"get_weather go false", "cancel_order mcp:orders level_0false", "lookup_order mcp:orders level_2false", "weekly_report mcp:orders level_2false", "read_result agent level_2false"}
	if !slices.Equal(got, want) {
		t.Errorf("List() =\n%v\nwant\n%v", got, want)
	}
	if cfg.Tools != tools.Registry {
		t.Errorf("the configuration's tools are not the Tools' registry")
	}
}

// TestOpenMCPUnreachable: a server that cannot start fails Open at its
// entry, marked ErrUnreachable.
func TestOpenMCPUnreachable(t *testing.T) {
	d, err := Parse("agent.yaml", []byte("model: openai:x\nmcp_servers:\n  - name: gone\n    command: ./no-such-server\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.OpenTools(context.Background(), nil)
	if !errors.Is(err, ErrUnreachable) || !strings.HasPrefix(err.Error(), "agent.yaml:3:5: mcp_servers.0: cannot connect: ") {
		t.Errorf("OpenTools = %v, want agent.yaml:3:5: mcp_servers.0: cannot connect: …", err)
	}
}
