package agentfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParse: no input panics, and an error always names the file.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../../examples/agent/agent.yaml"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		`{"name":"x","tools":[{"spec":"t.json","only":["a"]}],"output":{"type":"object"}}`,
		"name: x\ntools:\n  - example: get_weather\n  - spec: a.json\n    only: [a, b]\nmax_turns: 3\n",
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
		{What: "replay", Name: "turns.json", Path: filepath.Join("dir", "turns.json"), At: at + ":1:8"},
		{What: "replay", Name: "/abs/rec.yaml", Path: "/abs/rec.yaml", At: at + ":2:9"},
		{What: "spec", Name: "../tools.json", Path: "tools.json", At: at + ":4:11"},
	}
	if !slices.Equal(d.Files, want) {
		t.Errorf("Files = %+v, want %+v", d.Files, want)
	}
}
