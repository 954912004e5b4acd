package agentfile

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/docfile"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/tool/mcptool"
)

// An MCPServer is one entry of a definition's mcp_servers: an MCP server
// whose tools the agent gets, started as a command (stdio) or reached at
// a URL (streamable HTTP).
//
//	mcp_servers:
//	  - name: files                  # names the server: tools list it as mcp:files
//	    command: ./files-server      # relative to the agent file's folder
//	    args: [--root, data]
//	    env: {TOKEN: "${FILES_TOKEN}"}  # ${NAME}: from Options.LookupEnv
//	    tools: [read_file, list_dir] # only these of its tools (default: all)
//	    overrides:                   # over the server's annotations, per tool
//	      read_file: {idempotency: level_2, approval: false, timeout: 30s}
//	  - name: search
//	    url: https://search.example.com/mcp
//	    headers: {Authorization: "Bearer ${SEARCH_KEY}"}
type MCPServer struct {
	mcptool.Server
	// At is where the entry is.
	At Pos
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// mcpServer reads an entry of mcp_servers.
func (d *Definition) mcpServer(n *docfile.Node) (MCPServer, error) {
	s := MCPServer{At: at(n)}
	if err := n.Keys("name", "command", "args", "env", "dir", "url", "headers", "tools", "overrides"); err != nil {
		return s, err
	}
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &s.Name}, {"command", &s.Command}, {"dir", &s.Dir}, {"url", &s.URL}} {
		if *f.dst, err = n.Str(f.key, f.key == "name"); err != nil {
			return s, err
		}
	}
	if s.Args, err = stringList(n, "args"); err != nil {
		return s, err
	}
	if s.Tools, err = stringList(n, "tools"); err != nil {
		return s, err
	}
	if s.Env, err = stringMap(n, "env"); err != nil {
		return s, err
	}
	if s.Headers, err = stringMap(n, "headers"); err != nil {
		return s, err
	}
	if o := n.Get("overrides"); o != nil && o.Kind != docfile.Null {
		if o.Kind != docfile.Map {
			return s, o.Errorf("want a mapping of tool names to overrides, got %s", docfile.Phrase(o.Kind))
		}
		s.Overrides = map[string]mcptool.Override{}
		for _, f := range o.Fields {
			ov, err := override(f.Value)
			if err != nil {
				return s, err
			}
			s.Overrides[f.Key] = ov
		}
	}
	if s.Command != "" && s.Dir == "" {
		s.Dir = d.Dir // a relative command and its paths: beside the agent file
	} else if s.Dir != "" && !filepath.IsAbs(s.Dir) {
		s.Dir = filepath.Join(d.Dir, s.Dir)
	}
	if err := s.Server.Validate(); err != nil {
		return s, n.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return s, nil
}

// override reads one tool's overrides.
func override(n *docfile.Node) (mcptool.Override, error) {
	var o mcptool.Override
	if err := n.Keys("idempotency", "approval", "timeout"); err != nil {
		return o, err
	}
	lvl, err := n.Str("idempotency", false)
	if err != nil {
		return o, err
	}
	switch tool.Idempotency(lvl) {
	case "", tool.Level0, tool.Level1, tool.Level2:
		o.Idempotency = tool.Idempotency(lvl)
	default:
		return o, n.Get("idempotency").Errorf("%q is not level_0 (never retried), level_1 (retried with a key) or level_2 (read-only)", lvl)
	}
	if a := n.Get("approval"); a != nil && a.Kind != docfile.Null {
		b, err := n.Bool("approval")
		if err != nil {
			return o, err
		}
		o.Approval = &b
	}
	ts, err := n.Str("timeout", false)
	if err != nil {
		return o, err
	}
	if ts != "" {
		if o.Timeout, err = time.ParseDuration(ts); err != nil || o.Timeout <= 0 {
			return o, n.Get("timeout").Errorf("%q is not a positive duration such as 30s or 2m", ts)
		}
	}
	return o, nil
}

// stringList reads a list of strings; nil when the key is missing.
func stringList(n *docfile.Node, key string) ([]string, error) {
	items, err := n.List(key)
	if err != nil || items == nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it.Kind != docfile.String {
			return nil, it.Errorf("want a string, got %s", docfile.Phrase(it.Kind))
		}
		out = append(out, it.Text)
	}
	return out, nil
}

// stringMap reads a mapping of strings; nil when the key is missing.
func stringMap(n *docfile.Node, key string) (map[string]string, error) {
	v := n.Get(key)
	if v == nil || v.Kind == docfile.Null {
		return nil, nil
	}
	if v.Kind != docfile.Map {
		return nil, v.Errorf("want a mapping of names to strings, got %s", docfile.Phrase(v.Kind))
	}
	out := map[string]string{}
	for _, f := range v.Fields {
		if f.Value.Kind != docfile.String {
			return nil, f.Value.Errorf("want a string, got %s", docfile.Phrase(f.Value.Kind))
		}
		out[f.Key] = f.Value.Text
	}
	return out, nil
}

// servers returns d's MCP servers with ${NAME} in env and header values
// replaced through opts.LookupEnv; an unknown name is an error at the
// entry.
func (d *Definition) servers(o *Options) ([]mcptool.Server, error) {
	seen := map[string]Pos{}
	var out []mcptool.Server
	for _, s := range d.MCPServers {
		if prev, dup := seen[s.Name]; dup {
			return nil, s.At.errorf("the MCP server name %s is already used (line %d); give each server its own name", s.Name, prev.Line)
		}
		seen[s.Name] = s.At
		srv := s.Server
		var err error
		if srv.Env, err = expand(s, "env", srv.Env, o); err != nil {
			return nil, err
		}
		if srv.Headers, err = expand(s, "headers", srv.Headers, o); err != nil {
			return nil, err
		}
		out = append(out, srv)
	}
	return out, nil
}

// expand replaces ${NAME} in the values of m.
func expand(s MCPServer, what string, m map[string]string, o *Options) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var missing []string
		out[k] = envRef.ReplaceAllStringFunc(m[k], func(ref string) string {
			name := envRef.FindStringSubmatch(ref)[1]
			if o.LookupEnv != nil {
				if v, ok := o.LookupEnv(name); ok {
					return v
				}
			}
			missing = append(missing, name)
			return ""
		})
		if len(missing) > 0 {
			return nil, s.At.errorf("%s.%s names ${%s}, which is not set; set it in the environment", what, k, missing[0])
		}
	}
	return out, nil
}

// Tools are a definition's tools once its MCP servers are started: the
// registry an agent gets, and where each tool comes from. Close stops
// the servers.
type Tools struct {
	// Registry holds every tool; the MCP servers' tools in it follow
	// their servers' lists as they change.
	Registry *tool.Registry
	pool     *mcptool.Pool
	sources  map[string]string // Go and spec tools: name → source
}

// A ToolInfo is one tool a definition's agent sees.
type ToolInfo struct {
	Name string
	// Source says where the tool comes from: "go" (a tool the program
	// provides), "spec:FILE" (an HTTP tool of a spec file, as the
	// definition names it), "mcp:SERVER", or "agent" (read_result,
	// which every agent has).
	Source      string
	Description string
	Idempotency tool.Idempotency
	Approval    bool
}

// List returns every tool in t's registry, in its order, with read_result
// last, as the agent lists them to the model.
func (t *Tools) List() []ToolInfo {
	mcp := map[string]string{}
	if t.pool != nil {
		for _, i := range t.pool.Tools() {
			mcp[i.Name] = i.Source
		}
	}
	var out []ToolInfo
	for _, s := range t.Registry.Specs() {
		src := t.sources[s.Name]
		if m, ok := mcp[s.Name]; ok {
			src = m
		}
		out = append(out, ToolInfo{Name: s.Name, Source: src, Description: s.Description, Idempotency: s.Idempotency, Approval: s.RequiresApproval})
	}
	if _, ok := t.Registry.Lookup(tool.ReadResultName); !ok {
		out = append(out, ToolInfo{Name: tool.ReadResultName, Source: "agent", Description: "Reads more of a result that was too large to show whole.", Idempotency: tool.Level2})
	}
	return out
}

// Skipped returns the MCP tools that are not offered, with why.
func (t *Tools) Skipped() []string {
	if t.pool == nil {
		return nil
	}
	return t.pool.Skipped()
}

// Close stops the MCP servers; the tools of theirs then answer with an
// error message.
func (t *Tools) Close() error {
	if t == nil || t.pool == nil {
		return nil
	}
	return t.pool.Close()
}

// OpenTools makes d's tools: its Go tools, its spec files' HTTP tools and,
// connected within ctx, its MCP servers' tools. A server that cannot be
// reached, or a tool name listed twice, fails it with the entry's
// position. Close the Tools when the agent is done.
func (d *Definition) OpenTools(ctx context.Context, opts *Options) (*Tools, error) {
	o := orZero(opts)
	reg, sources, err := d.registry(o)
	if err != nil {
		return nil, err
	}
	t := &Tools{Registry: reg, sources: sources}
	if len(d.MCPServers) == 0 {
		return t, nil
	}
	servers, err := d.servers(o)
	if err != nil {
		return nil, err
	}
	mo := mcptool.Options{}
	if o.MCP != nil {
		mo = *o.MCP
	}
	if t.pool, err = mcptool.New(servers, &mo); err != nil {
		return nil, &Error{Pos: Pos{File: d.File, Path: "mcp_servers"}, Msg: strings.TrimPrefix(err.Error(), "mcptool: "), Err: err}
	}
	if err := t.pool.Connect(ctx, reg); err != nil {
		_ = t.pool.Close()
		at, msg := d.serverAt(err)
		return nil, &Error{Pos: at, Msg: msg, Err: errors.Join(ErrUnreachable, err)}
	}
	return t, nil
}

// ErrUnreachable marks an error of [Definition.OpenTools] or
// [Definition.Open] that says an MCP server could not be reached (rather
// than that the definition is wrong).
var ErrUnreachable = errors.New("agentfile: an MCP server cannot be reached")

// serverAt is the position of the first server err names, and err's
// message on one line, without the name when the position says it.
func (d *Definition) serverAt(err error) (Pos, string) {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	for _, s := range d.MCPServers {
		if prefix := "mcp server " + s.Name + ": "; strings.HasPrefix(msg, prefix) {
			if !strings.Contains(msg, "; mcp server ") {
				msg = strings.TrimPrefix(msg, prefix)
			}
			return s.At, msg
		}
	}
	return Pos{File: d.File, Path: "mcp_servers"}, msg
}

// Open builds what a run of d needs, as [Definition.Build] does, with its
// MCP servers started (see [Definition.OpenTools]): their tools are in
// the configuration's registry. Close the Tools when the agent is done.
func (d *Definition) Open(ctx context.Context, opts *Options) (llm.Model, *toolwire.Config, *Tools, error) {
	o := orZero(opts)
	if err := d.checkOutput(); err != nil {
		return nil, nil, nil, err
	}
	if _, _, err := d.modelSpec(o); err != nil {
		return nil, nil, nil, err
	}
	tools, err := d.OpenTools(ctx, o)
	if err != nil {
		return nil, nil, nil, err
	}
	model, cfg, err := d.build(o, tools.Registry)
	if err != nil {
		_ = tools.Close()
		return nil, nil, nil, err
	}
	return model, cfg, tools, nil
}

// checkServers reports the first MCP server entry that cannot be used,
// without starting any.
func (d *Definition) checkServers(o *Options) error {
	servers, err := d.servers(o)
	if err != nil {
		return err
	}
	p, err := mcptool.New(servers, nil)
	if err != nil {
		return &Error{Pos: Pos{File: d.File, Path: "mcp_servers"}, Msg: strings.TrimPrefix(err.Error(), "mcptool: "), Err: err}
	}
	return p.Close() // never connected: nothing to stop
}

// errNeedsOpen is Build's refusal of a definition with MCP servers.
func (d *Definition) errNeedsOpen() error {
	return d.MCPServers[0].At.errorf("the definition has mcp_servers, which must be started: use Open (or OpenTools), and Close its Tools when done")
}

// sourceOf names where a Go or spec tool comes from, for [ToolInfo].
func (d *Definition) sourceOf(ref ToolRef) string {
	if ref.Spec != "" {
		return "spec:" + d.shown(ref.Spec)
	}
	return "go"
}
