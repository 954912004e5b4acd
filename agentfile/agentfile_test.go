package agentfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParse: no input panics, and an error always names the file.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../examples/agent/agent.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		`{"name":"x","tools":[{"spec":"t.json","only":["a"]}],"output":{"type":"object"}}`,
		"name: x\ntools:\n  - example: get_weather\n  - spec: a.json\n    only: [a, b]\nmax_turns: 3\n",
		"mcp_servers:\n  - name: a\n    command: srv\n    env: {K: \"${V}\"}\n    overrides: {t: {timeout: 1s, approval: true}}\n  - {name: b, url: \"http://h\", tools: [x]}\n",
		"a: &x [*x]\n", "name: !!binary aGk=\n", "<<: {a: 1}\n", "max_turns: 0x1F\n", "- 1\n", "{\"a\":1,\"a\":2}", "name: 1e999\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("agent.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "agent.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if d.File != "agent.yaml" {
			t.Fatalf("File = %q", d.File)
		}
	})
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"yaml", "name: a\nmodel: openai:gpt-4o\ntools: [get_weather, {spec: t.json, only: [x]}]\noutput: {type: object, required: [city]}\n", ""},
		{"json", `{"name":"a","model":"openai:gpt-4o","tools":["get_weather",{"spec":"t.json","only":["x"]}],"output":{"type":"object","required":["city"]}}`, ""},
		{"model without provider", "model: gpt-4o\n", `agent.yaml:1:8: model: "gpt-4o" is not provider:NAME`},
		{"both example and spec", "tools:\n  - {example: a, spec: b}\n", "agent.yaml:2:5: tools.0: a tool entry names either"},
		{"both tool and example", "tools:\n  - {tool: a, example: a}\n", "agent.yaml:2:5: tools.0: a tool entry names either"},
		{"only without spec", "tools:\n  - {example: a, only: [b]}\n", "only picks tools of a spec file"},
		{"output not a mapping", "output: [1]\n", "output: want a JSON Schema (a mapping), got a list"},
		{"root a list", "- a\n", "agent.yaml:1:1: the file must hold a mapping"},
		{"empty", "", "agent.yaml: the file is empty"},
		{"merge key", "a: &a {name: x}\n<<: *a\n", "merge keys (<<) are not supported"},
	}
	var yamlDef, jsonDef *Definition
	for _, tt := range tests {
		d, err := Parse("agent.yaml", []byte(tt.in))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: Parse: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: Parse error = %v, want %q", tt.name, err, tt.err)
		}
		switch tt.name {
		case "yaml":
			yamlDef = d
		case "json":
			jsonDef = d
		}
	}
	// The same content in either format reads the same.
	if yamlDef == nil || jsonDef == nil || string(yamlDef.Output) != string(jsonDef.Output) || len(yamlDef.Tools) != 2 ||
		yamlDef.Tools[1].Only[0] != jsonDef.Tools[1].Only[0] || string(yamlDef.Output) != `{"type":"object","required":["city"]}` {
		t.Errorf("YAML %+v and JSON %+v read differently", yamlDef, jsonDef)
	}
}

// The files a definition names are relative to it, and recorded with
// where it names them.
func TestParseFiles(t *testing.T) {
	in := "model: replay:turns.json\nreplay: /abs/rec.yaml\ntools:\n  - spec: ../tools.json\n  - get_weather\n"
	d, err := Parse(filepath.Join("dir", "agent.yaml"), []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := "replay:" + filepath.Join("dir", "turns.json"); d.Model != want {
		t.Errorf("Model = %q, want %q", d.Model, want)
	}
	at := filepath.Join("dir", "agent.yaml")
	want := []FileRef{
		{What: "replay", Name: "turns.json", Path: filepath.Join("dir", "turns.json"), At: Pos{File: at, Line: 1, Col: 8, Path: "model"}},
		{What: "replay", Name: "/abs/rec.yaml", Path: "/abs/rec.yaml", At: Pos{File: at, Line: 2, Col: 9, Path: "replay"}},
		{What: "spec", Name: "../tools.json", Path: "tools.json", At: Pos{File: at, Line: 4, Col: 11, Path: "tools.0.spec"}},
	}
	if !slices.Equal(d.Files, want) {
		t.Errorf("Files = %+v, want %+v", d.Files, want)
	}
}

// A Go tool is named three ways, all read alike; where each entry is
// stays with it, for errors.
func TestParseToolNames(t *testing.T) {
	d, err := Parse("agent.yaml", []byte("tools:\n  - get_weather\n  - tool: search_orders\n  - example: create_ticket\n    approval: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []ToolRef{
		{Name: "get_weather", At: Pos{File: "agent.yaml", Line: 2, Col: 5, Path: "tools.0"}},
		{Name: "search_orders", At: Pos{File: "agent.yaml", Line: 3, Col: 5, Path: "tools.1"}},
		{Name: "create_ticket", Approval: true, At: Pos{File: "agent.yaml", Line: 4, Col: 5, Path: "tools.2"}},
	}
	if len(d.Tools) != len(want) {
		t.Fatalf("Tools = %+v, want %+v", d.Tools, want)
	}
	for i := range want {
		if got := d.Tools[i]; got.Name != want[i].Name || got.Approval != want[i].Approval || got.At != want[i].At || got.Spec != "" {
			t.Errorf("Tools[%d] = %+v, want %+v", i, got, want[i])
		}
	}
}

// An error says where, in the form editors jump to.
func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Pos: Pos{File: "agent.yaml", Line: 7, Col: 3, Path: "tools.1.spec"}, Msg: "no such file"}, "agent.yaml:7:3: tools.1.spec: no such file"},
		{&Error{Pos: Pos{File: "agent.yaml"}, Msg: "the file is empty"}, "agent.yaml: the file is empty"},
		{&Error{Msg: "no model"}, "no model"},
		{&Error{Pos: Pos{Path: "model"}, Msg: "no model"}, "model: no model"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if got := (Pos{File: "a.yaml", Line: 2, Col: 9}).String(); got != "a.yaml:2:9" {
		t.Errorf("Pos.String() = %q, want a.yaml:2:9", got)
	}
}

// Load names a file it cannot read, without repeating the path.
func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, fs.ErrNotExist) || !strings.HasSuffix(err.Error(), "nope.yaml: cannot read the agent file: no such file or directory") {
		t.Errorf("Load(missing) = %v, want an *Error wrapping fs.ErrNotExist", err)
	}
}
