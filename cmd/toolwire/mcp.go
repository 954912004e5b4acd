package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/examples/agent"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/tool/mcptool"
)

// mcpEnvironKeys are the variables a stdio MCP server inherits from
// toolwire: what a command needs to start (its PATH, HOME, locale, the Go
// toolchain's caches), never a key. Anything else is passed by name in
// the agent file's env, where ${NAME} takes it from the environment.
var mcpEnvironKeys = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL",
	"SYSTEMROOT", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
	"GOPATH", "GOCACHE", "GOMODCACHE", "GOROOT", "GOTOOLCHAIN", "GOFLAGS",
}

// mcpOptions are how toolwire's commands connect to MCP servers.
func mcpOptions(e *env) *mcptool.Options {
	o := &mcptool.Options{Version: version()}
	for _, k := range mcpEnvironKeys {
		if v := e.env(k); v != "" {
			o.Environ = append(o.Environ, k+"="+v)
		}
	}
	return o
}

// withMCP completes opts for a definition's MCP servers: the environment
// they inherit, and ${NAME} references resolved from toolwire's.
func withMCP(e *env, opts *agentfile.Options) *agentfile.Options {
	opts.MCP = mcpOptions(e)
	opts.LookupEnv = func(k string) (string, bool) {
		v := e.env(k)
		return v, v != ""
	}
	return opts
}

// openError is what a user reads when a definition's tools cannot be
// opened: an MCP server that cannot be reached exits 3, the rest 2.
func openError(err error) error {
	if errors.Is(err, agentfile.ErrUnreachable) {
		return exitcode.Envf("%s; check that the server starts (run its command yourself) or answers at its url", err)
	}
	return exitcode.Usagef("%s", err)
}

// openAgent builds the model and configuration of def with its MCP
// servers started; done stops them.
func openAgent(ctx context.Context, e *env, def *agentfile.Definition, opts *agentfile.Options, m modelChoice) (llm.Model, *toolwire.Config, func(), error) {
	model, cfg, tools, err := def.Open(ctx, withMCP(e, opts))
	if err != nil {
		if errors.Is(err, agentfile.ErrUnreachable) {
			return nil, nil, nil, openError(err)
		}
		return nil, nil, nil, buildError(m, err)
	}
	return model, cfg, func() { _ = tools.Close() }, nil
}

// openTools loads the agent file and opens its tools, as toolwire run
// would give them to the model.
func openTools(ctx context.Context, e *env, file string) (*agentfile.Definition, *agentfile.Tools, error) {
	def, err := agentfile.Load(file)
	if err != nil {
		return nil, nil, exitcode.Usagef("%s", err)
	}
	for _, w := range outsideWarnings(def) {
		fmt.Fprintf(e.stderr, "toolwire: warning: %s\n", printable(w))
	}
	opts := &agentfile.Options{Tools: agent.NewSet(nil).Registry(), AllowOutside: true}
	tools, err := def.OpenTools(ctx, withMCP(e, opts))
	if err != nil {
		return nil, nil, openError(err)
	}
	return def, tools, nil
}

// toolsOutput is the --json output of toolwire tools; fields are only
// ever added (docs/cli.md).
type toolsOutput struct {
	Agent   string      `json:"agent"`
	Tools   []toolEntry `json:"tools"`
	Skipped []string    `json:"skipped"` // MCP tools not offered, with why; never null
}

type toolEntry struct {
	Name        string `json:"name"`
	Source      string `json:"source"` // go, spec:FILE, mcp:SERVER, agent
	Idempotency string `json:"idempotency"`
	Approval    bool   `json:"approval"`
	Description string `json:"description"`
}

func newToolsCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tools [--json] AGENT",
		Short: "List every tool an agent would see, with where it comes from",
		Long: `tools reads an agent definition file, starts its MCP servers, and lists
every tool the model would be offered, in order: its name, its source (go:
a tool toolwire provides; spec:FILE: an HTTP tool of a spec file;
mcp:SERVER: a tool of an MCP server; agent: read_result, which every agent
has), its idempotency level, whether each call waits for approval, and its
description. MCP tools that cannot be offered are listed after, with why.

Exit codes: 0 listed; 2 the agent file cannot be used; 3 an MCP server
cannot be reached.`,
		Example: `  toolwire tools examples/agent/mcp.yaml
  toolwire tools --json examples/agent/mcp.yaml | jq '.tools[] | {name, source}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withTools(cmd, e, args[0], func(_ context.Context, def *agentfile.Definition, tools *agentfile.Tools) error {
				return listTools(e, def, tools, asJSON)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON (shape in docs/cli.md)")
	return cmd
}

// withTools opens the tools of the agent file, MCP servers started,
// calls f, and stops them; Ctrl-C or SIGTERM ends f's context.
func withTools(cmd *cobra.Command, e *env, file string, f func(context.Context, *agentfile.Definition, *agentfile.Tools) error) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	def, tools, err := openTools(ctx, e, file)
	if err != nil {
		return err
	}
	defer tools.Close()
	return f(ctx, def, tools)
}

// listTools prints the tools of toolwire tools.
func listTools(e *env, def *agentfile.Definition, tools *agentfile.Tools, asJSON bool) error {
	out := toolsOutput{Agent: def.File, Tools: []toolEntry{}, Skipped: tools.Skipped()}
	if out.Skipped == nil {
		out.Skipped = []string{}
	}
	for _, t := range tools.List() {
		lvl := string(t.Idempotency)
		if lvl == "" {
			lvl = string(tool.Level0)
		}
		out.Tools = append(out.Tools, toolEntry{Name: t.Name, Source: t.Source, Idempotency: lvl, Approval: t.Approval, Description: t.Description})
	}
	if asJSON {
		b, err := jsonx.MarshalIndent(out, "  ")
		if err != nil {
			return &exitcode.Error{Code: exitcode.Internal, Err: err}
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	writeTools(e.stdout, out)
	return nil
}

// writeTools prints one line per tool, in columns.
func writeTools(w io.Writer, out toolsOutput) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSOURCE\tLEVEL\tAPPROVAL\tDESCRIPTION")
	for _, t := range out.Tools {
		approval := "-"
		if t.Approval {
			approval = "required"
		}
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", printable(t.Name), printable(t.Source), t.Idempotency, approval, printable(truncate(desc, 72)))
	}
	_ = tw.Flush()
	for _, s := range out.Skipped {
		fmt.Fprintf(w, "not offered: %s\n", printable(s))
	}
	fmt.Fprintf(w, "%d tools\n", len(out.Tools))
}

// truncate keeps at most n runes of s.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func newMCPCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve an agent's tools to MCP clients",
	}
	var trust bool
	serve := &cobra.Command{
		Use:   "serve [--trust-client] AGENT",
		Short: "Offer an agent's tools to an MCP client over stdio",
		Long: `mcp serve reads an agent definition file, starts its MCP servers, and
offers every tool of the agent to one MCP client over standard input and
output (the stdio transport), until the client closes it. Each call runs
as toolwire runs it — arguments validated, defaults filled, timeouts,
retries by idempotency level — and its result is shaped to a token budget
and sent as toolwire's tool message (JSON text, isError on failure), so
that a client that cannot shape results gets toolwire's. read_result
pages through what shaping left out.

A tool that needs approval is marked destructiveHint; its calls are
refused unless --trust-client says the client asks its user before each
call.

Exit codes: 0 the client closed the connection; 2 the agent file cannot be
used; 3 an MCP server cannot be reached.`,
		Example: `  toolwire mcp serve examples/agent/mcp.yaml
  # in an MCP client's configuration: {"command": "toolwire", "args": ["mcp", "serve", "/path/to/agent.yaml"]}`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withTools(cmd, e, args[0], func(ctx context.Context, def *agentfile.Definition, tools *agentfile.Tools) error {
				return serveMCP(ctx, e, def, tools, trust)
			})
		},
	}
	serve.Flags().BoolVar(&trust, "trust-client", false, "run tools that need approval: the client asks its user before each call")
	cmd.AddCommand(serve)
	return cmd
}

// serveMCP offers tools to one MCP client over e's stdin and stdout.
func serveMCP(ctx context.Context, e *env, def *agentfile.Definition, tools *agentfile.Tools, trust bool) error {
	ec := &tool.Config{}
	if trust {
		ec.Approver = tool.ApproverFunc(func(context.Context, tool.Spec, llm.ToolCall, []byte) (bool, string, error) { return true, "", nil })
	}
	srv, err := mcptool.NewToolServer(tools.Registry, &mcptool.ToolServerOptions{Name: orName(def.Name, "toolwire"), Version: version(), Executor: ec})
	if err != nil {
		return exitcode.Usagef("%s: %v", def.File, err)
	}
	defer srv.Close(context.Background())
	t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return exitcode.Envf("mcp serve: %v", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// agentFile reads data as an agent file, when it is one: the strict
// reader refuses every tool definition format (their tools have keys an
// agent file's do not).
func agentFile(name string, data []byte) (*agentfile.Definition, bool) {
	if name == "-" {
		return nil, false
	}
	def, err := agentfile.Parse(name, data)
	return def, err == nil
}

// agentSpecs returns the contracts of every tool def's agent has but
// read_result, its MCP servers started for the time it takes to list
// them.
func agentSpecs(e *env, def *agentfile.Definition) ([]tool.Spec, error) {
	opts := &agentfile.Options{Tools: agent.NewSet(nil).Registry(), AllowOutside: true}
	tools, err := def.OpenTools(context.Background(), withMCP(e, opts))
	if err != nil {
		return nil, openError(err)
	}
	defer tools.Close()
	return tools.Registry.Specs(), nil
}
