// Package agentfile reads agent definitions — the system prompt, the
// model, the tools and the limits of an agent, written by hand in YAML or
// JSON — and builds from one everything a run needs, so that toolwire run,
// a server and a worker given the same definition run the same agent.
//
// A definition, with every key (all optional):
//
//	name: helper                    # names the agent in its sessions
//	description: Answers questions about orders.
//	model: openai:gpt-4o-mini       # PROVIDER:NAME (see provider/open), or replay:FILE
//	replay: replay.yaml             # recorded turns, for runs without an API key
//	system: You are a helpful assistant.
//	max_turns: 12                   # 1–1000; default toolwire.DefaultMaxTurns
//	tools:
//	  - get_weather                 # a Go tool the program provides, by name
//	  - tool: search_orders         # the same, spelt out ("example:" is a synonym)
//	    approval: true              # every call waits for a person's approval
//	  - spec: tools.json            # every HTTP tool of a toolwire spec file
//	    only: [get_quote]           # or some of them
//	mcp_servers:                    # MCP servers whose tools the agent gets (see MCPServer)
//	  - name: files
//	    command: ./files-server     # a stdio server; or url: https://… (streamable HTTP)
//	output: {type: object, ...}     # a JSON Schema for the final answer
//
// Reading is strict: an unknown key, a duplicate key or a value of the
// wrong kind is an [*Error] that names the file, the line, the column and
// the key, and says what was wanted:
//
//	agent.yaml:7:3: tools.1: unknown key "exmaple"; did you mean "example"?
//
// The same content gets the same verdict in either format. The files a
// definition names (spec files, replay files) are relative to its folder;
// [Definition.Validate] and [Definition.Build] refuse one outside it (links
// followed) unless [Options].AllowOutside says otherwise, since a
// definition from elsewhere could otherwise make the program read any
// file it can.
//
// Use [Load] or [Parse], then [Definition.Build]:
//
//	def, err := agentfile.Load("agent.yaml")
//	model, cfg, err := def.Build(&agentfile.Options{Tools: myTools, Provider: &provider.Options{APIKey: key}})
//	cfg.Sessions = store // what a definition does not say
//	a, err := toolwire.New(model, cfg)
//
// Like provider/open, the package reads no environment variable: the
// caller passes the key, and decides which Go tools a definition may name.
package agentfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/docfile"
)

// A Definition is an agent definition, read. The zero value, and one
// built by hand, are valid too: its tools and files then have no
// position for errors.
type Definition struct {
	// File is the name it was read under; Dir its folder, which the paths
	// in it are relative to.
	File, Dir   string
	Name        string
	Description string
	// Model is "PROVIDER:NAME" ("openai:gpt-4o-mini"), "replay:FILE", or
	// "" when the caller names the model. The FILE of "replay:FILE" is
	// made relative to Dir.
	Model string
	// Replay is a recorded run (provider/replay) for a caller to use when
	// it has no key for Model, "" for none; relative paths are made
	// relative to Dir.
	Replay   string
	System   string
	MaxTurns int
	Tools    []ToolRef
	// MCPServers are the MCP servers whose tools the agent gets, started
	// by [Definition.Open] or [Definition.OpenTools].
	MCPServers []MCPServer
	// Output is the JSON Schema of the final answer, as JSON; nil for
	// none.
	Output jsontext.Value
	// Files are the files the definition names (replay files, spec
	// files), in the order it names them.
	Files []FileRef

	modelAt, outputAt Pos
}

// A Pos is a place in a definition: its file, line and column (from 1),
// and the dotted path of the value ("tools.1.spec").
type Pos struct {
	File      string
	Line, Col int
	Path      string
}

// String returns "agent.yaml:7:3", the form editors jump to; "" for the
// zero Pos.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// An Error is a problem with a definition, at a place in it.
type Error struct {
	Pos
	// Msg says what is wrong and how to fix it, in the author's terms.
	Msg string
	// Err is the error behind it (an fs.PathError's, an
	// [open.ErrUnknownProvider]), nil for none.
	Err error
}

// Error returns "agent.yaml:7:3: tools.1.spec: MSG".
func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s + ": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// errorf returns an error at p.
func (p Pos) errorf(format string, args ...any) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// A FileRef is a file a definition names.
type FileRef struct {
	// What the file is: "replay" or "spec".
	What string
	// Name is the path as the definition writes it; Path the path it
	// resolves to, relative paths made relative to Dir.
	Name, Path string
	// At is where the definition names it.
	At Pos
}

// A ToolRef is one entry of a definition's tools: a Go tool the program
// provides (Name), or HTTP tools of a toolwire spec file (Spec).
type ToolRef struct {
	// Name is a Go tool's name, looked up in [Options].Tools.
	Name string
	// Spec is a toolwire spec file (relative paths made relative to
	// Dir); Only, when set, picks tools of it by name.
	Spec string
	Only []string
	// Approval makes every call of the entry's tools wait for a person's
	// approval.
	Approval bool
	// At is where the entry is.
	At Pos

	specAt, onlyAt Pos
}

// Load reads the definition in the file at path.
func Load(path string) (*Definition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Pos: Pos{File: path}, Msg: "cannot read the agent file: " + reason(err), Err: err}
	}
	return Parse(path, data)
}

// reason is err without the path an [fs.PathError] repeats.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse reads a definition from data, named name in errors. Its files are
// relative to name's folder: a definition not read from a file (a
// request's body, a database row) is given a name in the folder its
// files are in, or names none.
func Parse(name string, data []byte) (*Definition, error) {
	d, err := parse(name, data)
	var de *docfile.Error
	if errors.As(err, &de) {
		return nil, &Error{Pos: Pos{File: de.File, Line: de.Line, Col: de.Col, Path: de.Path}, Msg: de.Msg}
	}
	return d, err
}

func parse(file string, data []byte) (*Definition, error) {
	root, err := docfile.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := root.Keys("name", "description", "model", "replay", "system", "max_turns", "tools", "mcp_servers", "output"); err != nil {
		return nil, err
	}
	d := &Definition{File: file, Dir: filepath.Dir(file)}
	if n := root.Get("model"); n != nil {
		d.modelAt = at(n)
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &d.Name}, {"description", &d.Description}, {"model", &d.Model}, {"replay", &d.Replay}, {"system", &d.System}} {
		if *f.dst, err = root.Str(f.key, false); err != nil {
			return nil, err
		}
	}
	if d.Model != "" {
		provider, name, ok := strings.Cut(d.Model, ":")
		if !ok {
			return nil, root.Get("model").Errorf("%q is not provider:NAME (openai:gpt-4o-mini, openai-responses:gpt-5, anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash, replay:FILE)", d.Model)
		}
		if provider == "replay" && name != "" {
			d.Model = "replay:" + d.file("replay", name, root.Get("model"))
		}
	}
	if d.Replay != "" {
		d.Replay = d.file("replay", d.Replay, root.Get("replay"))
	}
	if d.MaxTurns, err = root.Int("max_turns", 0); err != nil {
		return nil, err
	}
	if d.MaxTurns < 0 || d.MaxTurns > 1000 {
		return nil, root.Get("max_turns").Errorf("%d is outside 1–1000", d.MaxTurns)
	}
	tools, err := root.List("tools")
	if err != nil {
		return nil, err
	}
	for _, n := range tools {
		r, err := d.toolRef(n)
		if err != nil {
			return nil, err
		}
		d.Tools = append(d.Tools, r)
	}
	servers, err := root.List("mcp_servers")
	if err != nil {
		return nil, err
	}
	for _, n := range servers {
		s, err := d.mcpServer(n)
		if err != nil {
			return nil, err
		}
		d.MCPServers = append(d.MCPServers, s)
	}
	if o := root.Get("output"); o != nil && o.Kind != docfile.Null {
		if o.Kind != docfile.Map {
			return nil, o.Errorf("want a JSON Schema (a mapping), got %s", docfile.Phrase(o.Kind))
		}
		d.Output, d.outputAt = o.JSON(), at(o)
	}
	return d, nil
}

// toolRef reads an entry of the tools list.
func (d *Definition) toolRef(n *docfile.Node) (ToolRef, error) {
	r := ToolRef{At: at(n)}
	if n.Kind == docfile.String {
		r.Name = n.Text
		return r, nil
	}
	if err := n.Keys("tool", "example", "spec", "only", "approval"); err != nil {
		return r, err
	}
	var err error
	var names []string
	for _, key := range []string{"tool", "example"} {
		if n.Get(key) == nil {
			continue
		}
		s, err := n.Str(key, false)
		if err != nil {
			return r, err
		}
		r.Name, names = s, append(names, key)
	}
	if r.Spec, err = n.Str("spec", false); err != nil {
		return r, err
	}
	if r.Approval, err = n.Bool("approval"); err != nil {
		return r, err
	}
	if r.Spec != "" {
		names = append(names, "spec")
	}
	if len(names) != 1 || (r.Name == "" && r.Spec == "") {
		return r, n.Errorf("a tool entry names either a Go tool (tool: get_weather) or a spec file (spec: tools.json)")
	}
	only, err := n.List("only")
	if err != nil {
		return r, err
	}
	if only != nil && r.Spec == "" {
		return r, n.Get("only").Errorf("only picks tools of a spec file; this entry has none")
	}
	for _, o := range only {
		if o.Kind != docfile.String || o.Text == "" {
			return r, o.Errorf("want a tool name")
		}
		r.Only = append(r.Only, o.Text)
	}
	if only != nil {
		r.onlyAt = at(n.Get("only"))
	}
	if r.Spec != "" {
		r.specAt = at(n.Get("spec"))
		r.Spec = d.file("spec", r.Spec, n.Get("spec"))
	}
	return r, nil
}

// file records the file name that n names, and returns its path.
func (d *Definition) file(what, name string, n *docfile.Node) string {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(d.Dir, path)
	}
	d.Files = append(d.Files, FileRef{What: what, Name: name, Path: path, At: at(n)})
	return path
}

// at is where n is.
func at(n *docfile.Node) Pos {
	e := n.Errorf("")
	return Pos{File: e.File, Line: e.Line, Col: e.Col, Path: e.Path}
}
