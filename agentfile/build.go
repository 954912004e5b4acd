package agentfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/docfile"
	"github.com/toolwire/toolwire/internal/names"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/provider/replay"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/tool/mcptool"
	"github.com/toolwire/toolwire/toolresult"
)

// Options say what a definition may use. A nil *Options means the zero
// value: no Go tools, no files outside the definition's folder, no
// recorded runs, the definition's own model with the providers' defaults.
type Options struct {
	// Tools are the Go tools a definition may name, by name: a program
	// registers its own (toolwire run offers the example tools of
	// examples/agent). A definition's tools are added to a registry of
	// their own; this one is only read.
	Tools *tool.Registry
	// AllowOutside lets a definition name files outside its folder (links
	// followed). [Definition.Outside] lists them, for a warning.
	AllowOutside bool
	// Model, when not "", is the model to open instead of the
	// definition's: "PROVIDER:NAME" or "replay:FILE".
	Model string
	// Provider configures the model's client: base URL, API key,
	// timeouts, retries (see provider/open). nil means the defaults, with
	// no key.
	Provider *provider.Options
	// Replay lets the model be "replay:FILE", a recorded run read from
	// FILE (provider/replay). Off, such a model is refused, as
	// provider/open refuses it: a server should not read a file that a
	// request names.
	Replay bool
	// HTTP configures the HTTP tools of spec files; nil means
	// [tool.NewHTTP]'s defaults.
	HTTP *tool.HTTPOptions
	// MCP configures the connections to MCP servers (timeouts, the
	// environment stdio servers start with, where their standard error
	// goes); nil means mcptool's defaults.
	MCP *mcptool.Options
	// LookupEnv resolves the ${NAME} references in the env and headers
	// of MCP servers (a token kept out of the file); nil resolves none,
	// and a reference is then an error.
	LookupEnv func(name string) (string, bool)
}

// Validate reports the first thing that keeps d from running with opts:
// a tool that cannot be found or used, a file outside d's folder, a model
// name that cannot be opened, an output that is not a JSON Schema. It
// reads the spec files but opens no model.
func (d *Definition) Validate(opts *Options) error {
	o := orZero(opts)
	if _, err := d.Registry(o); err != nil {
		return err
	}
	if err := d.checkServers(o); err != nil {
		return err
	}
	if _, _, err := d.modelSpec(o); err != nil {
		return err
	}
	return d.checkOutput()
}

// Build makes what a run of d needs: the model, opened with
// opts.Provider, and the agent's configuration — its name, system
// prompt, tools, turn limit, output schema and the model's limits —
// ready for [toolwire.New]. The caller sets what a definition does not
// say (Sessions, Hooks, Logger) and may change the rest; every call
// builds new tools and a new configuration. A definition with MCP
// servers, which must be started and stopped, is built by
// [Definition.Open].
func (d *Definition) Build(opts *Options) (llm.Model, *toolwire.Config, error) {
	o := orZero(opts)
	if len(d.MCPServers) > 0 {
		return nil, nil, d.errNeedsOpen()
	}
	reg, err := d.Registry(o)
	if err != nil {
		return nil, nil, err
	}
	return d.build(o, reg)
}

// build opens d's model and makes its configuration, with the tools of
// reg.
func (d *Definition) build(o *Options, reg *tool.Registry) (llm.Model, *toolwire.Config, error) {
	if err := d.checkOutput(); err != nil {
		return nil, nil, err
	}
	model, limitsName, err := d.openModel(o)
	if err != nil {
		return nil, nil, err
	}
	cfg := &toolwire.Config{Name: d.Name, System: d.System, Tools: reg, MaxTurns: d.MaxTurns, Output: d.Output}
	cfg.Limits, _ = budget.DefaultTable().Lookup(limitsName)
	if _, ok := model.(*replay.Model); ok {
		// Recorded turns name the refs of the store they were recorded
		// with (r1, r2, ...): a replayed run keeps its offloaded results
		// in memory, numbered as they were.
		cfg.Store = toolresult.NewMemoryStore(0).NumberRefs()
	}
	return model, cfg, nil
}

func orZero(opts *Options) *Options {
	if opts == nil {
		return &Options{}
	}
	return opts
}

// Registry returns the tools of d: its Go tools from opts.Tools, its HTTP
// tools from its spec files, in the order d lists them. Its MCP servers'
// tools are not in it: see [Definition.OpenTools].
func (d *Definition) Registry(opts *Options) (*tool.Registry, error) {
	reg, _, err := d.registry(orZero(opts))
	return reg, err
}

// registry is Registry, with the source of each tool.
func (d *Definition) registry(o *Options) (*tool.Registry, map[string]string, error) {
	if !o.AllowOutside {
		if err := d.refuseOutside(); err != nil {
			return nil, nil, err
		}
	}
	sources := map[string]string{}
	reg := tool.NewRegistry()
	listed := map[string]Pos{}
	add := func(t tool.Tool, at Pos) error {
		name := t.Spec().Name
		if prev, dup := listed[name]; dup {
			where := prev.String()
			if prev.File == at.File && prev.Line > 0 {
				where = fmt.Sprintf("line %d", prev.Line)
			}
			return at.errorf("the tool %s is already listed (%s); list each tool once", name, where)
		}
		if err := reg.Add(t); err != nil {
			return at.errorf("the tool %s cannot be used: %s", name, plain(err))
		}
		listed[name] = at
		return nil
	}
	for _, ref := range d.Tools {
		tools, err := d.resolve(ref, o)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range tools {
			if err := add(t, ref.At); err != nil {
				return nil, nil, err
			}
			sources[t.Spec().Name] = d.sourceOf(ref)
		}
	}
	return reg, sources, nil
}

// resolve returns the tools of one entry.
func (d *Definition) resolve(ref ToolRef, o *Options) ([]tool.Tool, error) {
	switch {
	case (ref.Name == "") == (ref.Spec == ""):
		return nil, ref.At.errorf("a tool entry names either a Go tool (tool: get_weather) or a spec file (spec: tools.json)")
	case ref.Name != "":
		t, err := goTool(ref, o.Tools)
		if err != nil {
			return nil, err
		}
		return []tool.Tool{t}, nil
	}
	return d.specTools(ref, o.HTTP)
}

// goTool returns the Go tool ref names.
func goTool(ref ToolRef, tools *tool.Registry) (tool.Tool, error) {
	var known []string
	if tools != nil {
		if t, ok := tools.Lookup(ref.Name); ok {
			if ref.Approval {
				t = needsApproval{t}
			}
			return t, nil
		}
		known = tools.Names()
	}
	switch near := names.Closest(ref.Name, known, 1); {
	case len(known) == 0:
		return nil, ref.At.errorf("no tool is named %q: this program provides no Go tools; name HTTP tools with spec: FILE", ref.Name)
	case len(near) > 0:
		return nil, ref.At.errorf("no tool is named %q; did you mean %q?", ref.Name, near[0])
	default:
		return nil, ref.At.errorf("no tool is named %q (the tools this program provides: %s)", ref.Name, strings.Join(known, ", "))
	}
}

// specTools returns the HTTP tools ref picks of its spec file.
func (d *Definition) specTools(ref ToolRef, opts *tool.HTTPOptions) ([]tool.Tool, error) {
	at := ref.specAt
	if at == (Pos{}) {
		at = ref.At
	}
	shown := d.shown(ref.Spec)
	data, err := os.ReadFile(ref.Spec)
	if err != nil {
		return nil, &Error{Pos: at, Msg: fmt.Sprintf("cannot read the spec file %s: %s", shown, reason(err)), Err: err}
	}
	specs, _, err := tool.ParseSpecs(data)
	if err != nil {
		return nil, &Error{Pos: at, Msg: shown + ": " + specError(err), Err: err}
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	for _, n := range ref.Only {
		if !slices.Contains(names, n) {
			onlyAt := ref.onlyAt
			if onlyAt == (Pos{}) {
				onlyAt = at
			}
			return nil, onlyAt.errorf("%s has no tool named %q (its tools: %s)", shown, n, strings.Join(names, ", "))
		}
	}
	var out []tool.Tool
	for _, s := range specs {
		if ref.Only != nil && !slices.Contains(ref.Only, s.Name) {
			continue
		}
		if s.HTTP == nil {
			return nil, at.errorf("the tool %s in %s has no http binding; a definition calls only HTTP tools from spec files", s.Name, shown)
		}
		s.RequiresApproval = s.RequiresApproval || ref.Approval
		t, err := tool.NewHTTP(s, opts)
		if err != nil {
			return nil, &Error{Pos: at, Msg: fmt.Sprintf("the tool %s in %s: %s", s.Name, shown, plain(err)), Err: err}
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, at.errorf("%s has no tools", shown)
	}
	return out, nil
}

// shown is how errors name a file of d: as d names it.
func (d *Definition) shown(path string) string {
	for _, f := range d.Files {
		if f.Path == path {
			return f.Name
		}
	}
	return path
}

// specError is a spec file's error without the package's prefix.
func specError(err error) string {
	var pe *tool.ParseError
	if !errors.As(err, &pe) {
		return plain(err)
	}
	switch {
	case pe.Line > 0:
		return fmt.Sprintf("line %d, column %d: %s", pe.Line, pe.Column, plain(pe.Err))
	case pe.Path != "":
		return pe.Path + ": " + plain(pe.Err)
	}
	return plain(pe.Err)
}

// plain is err's text without the Go package prefixes the tool package
// puts before it.
func plain(err error) string {
	msg := err.Error()
	for _, p := range []string{"tool: new http tool: ", "tool: add: ", "tool: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

// modelSpec returns the model to open, "PROVIDER:NAME" or "replay:FILE",
// with where it was written (the zero Pos for opts.Model).
func (d *Definition) modelSpec(o *Options) (string, Pos, error) {
	spec, at := o.Model, Pos{}
	if spec == "" {
		spec, at = d.Model, d.modelAt
		if at == (Pos{}) {
			at = Pos{File: d.File, Path: "model"}
		}
	}
	if spec == "" {
		return "", at, (Pos{File: d.File}).errorf("the definition names no model; add one, e.g. model: openai:gpt-4o-mini")
	}
	prov, name, _ := strings.Cut(spec, ":")
	if prov == "replay" {
		if !o.Replay {
			return "", at, at.errorf("replay:FILE is not allowed here; name a provider's model, e.g. openai:gpt-4o")
		}
		if name == "" {
			return "", at, at.errorf("replay: names no file; write replay:FILE")
		}
		return spec, at, nil
	}
	if !slices.Contains(open.Providers(), prov) {
		// open.Model says what is wrong, without opening anything.
		_, err := open.Model(spec, nil)
		return "", at, modelError(at, err)
	}
	return spec, at, nil
}

// openModel opens d's model and returns it with the name of the model
// whose limits apply.
func (d *Definition) openModel(o *Options) (llm.Model, string, error) {
	spec, at, err := d.modelSpec(o)
	if err != nil {
		return nil, "", err
	}
	if file, ok := strings.CutPrefix(spec, "replay:"); ok {
		m, err := replay.Load(file)
		var de *docfile.Error
		switch {
		case errors.As(err, &de):
			return nil, "", &Error{Pos: Pos{File: de.File, Line: de.Line, Col: de.Col, Path: de.Path}, Msg: de.Msg, Err: err}
		case err != nil:
			return nil, "", &Error{Pos: at, Msg: fmt.Sprintf("cannot read the replay file %s: %s", d.shown(file), reason(err)), Err: err}
		}
		return m, m.Name(), nil
	}
	m, err := open.Model(spec, o.Provider)
	if err != nil {
		return nil, "", modelError(at, err)
	}
	_, name, _ := strings.Cut(spec, ":")
	return m, name, nil
}

// modelError is open.Model's error at at, without the spec it repeats.
func modelError(at Pos, err error) error {
	var oe *open.Error
	if errors.As(err, &oe) {
		err = oe.Err
	}
	return &Error{Pos: at, Msg: err.Error(), Err: err}
}

// checkOutput reports an output that is not a usable JSON Schema.
func (d *Definition) checkOutput() error {
	if len(d.Output) == 0 {
		return nil
	}
	if _, err := tool.CompileSchema("output", []byte(d.Output)); err != nil {
		at := d.outputAt
		if at == (Pos{}) {
			at = Pos{File: d.File, Path: "output"}
		}
		return &Error{Pos: at, Msg: "not a usable JSON Schema: " + plain(err), Err: err}
	}
	return nil
}

// Outside returns the files d names outside its folder, links followed,
// each with Path set to the file it resolves to. A program that allows
// them ([Options].AllowOutside) should say so: a definition from
// elsewhere (a cloned repository, a download) can make it read any file
// it can.
func (d *Definition) Outside() []FileRef {
	var out []FileRef
	for _, f := range d.Files {
		if path, inside := within(d.Dir, f.Path); !inside {
			f.Path = path
			out = append(out, f)
		}
	}
	return out
}

// refuseOutside returns an error at the first file d names outside its
// folder.
func (d *Definition) refuseOutside() error {
	for _, f := range d.Files {
		path, inside := within(d.Dir, f.Path)
		if inside {
			continue
		}
		it := ""
		if lexical, _ := filepath.Abs(f.Path); lexical != path {
			it = " (it is " + path + ")" // through a link
		}
		return f.At.errorf("the %s file %s is outside the agent file's folder%s; keep the files a definition names beside it", f.What, f.Name, it)
	}
	return nil
}

// within reports whether path, with its links followed, is inside dir,
// and returns it so resolved.
func within(dir, path string) (string, bool) {
	dir, path = resolvePath(dir), resolvePath(path)
	rel, err := filepath.Rel(dir, path)
	return path, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolvePath is the absolute path p names, its links followed when it
// exists.
func resolvePath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// needsApproval is a tool whose calls wait for a person's approval (an
// entry's approval: true).
type needsApproval struct{ tool.Tool }

func (t needsApproval) Spec() tool.Spec {
	s := t.Tool.Spec()
	s.RequiresApproval = true
	return s
}
