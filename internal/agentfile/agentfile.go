// Package agentfile reads agent definition files, for toolwire run: the
// system prompt, the model, the tools (the bundled example tools by name,
// HTTP tools from toolwire spec files), in YAML or JSON. Decoding is
// strict: an unknown key, a duplicate key or a value of the wrong kind is
// an error with the file, the line and the key.
//
//	name: helper
//	model: openai:gpt-4o-mini       # provider:NAME, or replay:FILE
//	replay: replay.yaml             # recorded turns for runs without an API key
//	system: You are a helpful assistant.
//	max_turns: 12
//	tools:
//	  - example: get_weather        # a bundled example tool
//	  - spec: tools.json            # every tool of a toolwire spec file
//	    only: [get_quote]           # or some of them
//	output: {type: object, ...}     # a JSON Schema for the final answer
package agentfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolwire/toolwire/internal/docfile"
)

// A Definition is an agent definition file, read.
type Definition struct {
	// File is the path it was read from; Dir its directory, which the
	// paths in it are relative to.
	File, Dir   string
	Name        string
	Description string
	// Model is "provider:NAME" ("openai:gpt-4o-mini"), or "" to require
	// --model. The FILE of "replay:FILE" is made relative to Dir.
	Model string
	// Replay is the replay file used when the model's API key is not set,
	// "" for none; relative paths are made relative to Dir.
	Replay   string
	System   string
	MaxTurns int
	Tools    []ToolRef
	// Output is the JSON Schema of the final answer, as JSON; nil for
	// none.
	Output []byte
	// Files are the files the definition names (replay files, spec
	// files), in the order it names them.
	Files []FileRef
}

// A FileRef is a file an agent definition names, for a caller that
// checks where the definition points.
type FileRef struct {
	// What the file is: "replay" or "spec".
	What string
	// Name is the path as the definition writes it; Path the path it
	// resolves to, relative paths made relative to Dir.
	Name, Path string
	// At is where the definition names it: "agent.yaml:2:8".
	At string
}

// A ToolRef names the tools of one entry of the tools list.
type ToolRef struct {
	// Example is a bundled example tool's name.
	Example string
	// Spec is a toolwire spec file (relative paths made relative to
	// Dir); Only, when set, picks tools of it by name.
	Spec string
	Only []string
	// Approval makes every call of the entry's tools wait for a person's
	// approval (toolwire resume --approve).
	Approval bool
	// At is where the entry is, for errors: "agent.yaml:7:5".
	At string
}

// Load reads a definition file.
func Load(path string) (*Definition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agent file: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a definition from data, named file in errors.
func Parse(file string, data []byte) (*Definition, error) {
	root, err := docfile.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := root.Keys("name", "description", "model", "replay", "system", "max_turns", "tools", "output"); err != nil {
		return nil, err
	}
	d := &Definition{File: file, Dir: filepath.Dir(file)}
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
		if n.Kind == docfile.String {
			d.Tools = append(d.Tools, ToolRef{Example: n.Text, At: at(n)})
			continue
		}
		if err := n.Keys("example", "spec", "only", "approval"); err != nil {
			return nil, err
		}
		var r ToolRef
		r.At = at(n)
		if r.Example, err = n.Str("example", false); err != nil {
			return nil, err
		}
		if r.Spec, err = n.Str("spec", false); err != nil {
			return nil, err
		}
		if r.Approval, err = n.Bool("approval"); err != nil {
			return nil, err
		}
		if (r.Example == "") == (r.Spec == "") {
			return nil, n.Errorf("a tool entry names either an example tool (example: get_weather) or a spec file (spec: tools.json)")
		}
		only, err := n.List("only")
		if err != nil {
			return nil, err
		}
		if only != nil && r.Spec == "" {
			return nil, n.Get("only").Errorf("only picks tools of a spec file; this entry has none")
		}
		for _, o := range only {
			if o.Kind != docfile.String || o.Text == "" {
				return nil, o.Errorf("want a tool name")
			}
			r.Only = append(r.Only, o.Text)
		}
		if r.Spec != "" {
			r.Spec = d.file("spec", r.Spec, n.Get("spec"))
		}
		d.Tools = append(d.Tools, r)
	}
	if o := root.Get("output"); o != nil && o.Kind != docfile.Null {
		if o.Kind != docfile.Map {
			return nil, o.Errorf("want a JSON Schema (a mapping), got %s", docfile.Phrase(o.Kind))
		}
		d.Output = o.JSON()
	}
	return d, nil
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

func at(n *docfile.Node) string {
	e := n.Errorf("")
	return fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
}
