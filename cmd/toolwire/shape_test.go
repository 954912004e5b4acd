package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/internal/golden"
)

// TestShape drives toolwire shape from the repository root, so that file
// names read as in the README.
func TestShape(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) string { return writeFile(t, dir, name, content) }
	empty := write("empty.json", "")
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: 1 GiB that takes no disk
		t.Fatal(err)
	}
	f.Close()
	spec := "cmd/toolwire/testdata/shape_docs_spec.json"
	t.Chdir("../..")

	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		golden   string // stdout and stderr, under cmd/toolwire/testdata
		inStderr string // when not golden
	}{
		{name: "orders head", args: []string{"shape", "--budget", "300", "toolresult/testdata/shape/orders-30000.json"}, golden: "shape_orders.txt"},
		{name: "orders anthropic", args: []string{"shape", "--budget", "600", "--dialect", "anthropic", "toolresult/testdata/shape/orders-30000.json"}, golden: "shape_orders_anthropic.txt"},
		{name: "orders aggregate", args: []string{"shape", "--budget", "250", "toolresult/testdata/shape/orders-30000.json"}, golden: "shape_orders_aggregate.txt"},
		{name: "top five by spec, gemini", args: []string{"shape", "--spec", spec, "--tool", "search_docs", "--dialect", "gemini", "toolresult/testdata/shape/documents-200.json"}, golden: "shape_top5_gemini.txt"},
		{name: "text from stdin, responses", stdin: "line one\nline two\n", args: []string{"shape", "--dialect", "openai-responses", "-"}, golden: "shape_stdin.txt"},
		{name: "invalid UTF-8", stdin: "caf\xe9 au lait\n", args: []string{"shape", "-"}, golden: "shape_invalid_utf8.txt"},
		{name: "empty file", args: []string{"shape", empty}, inStderr: "empty.json is empty: shown as a success that found nothing"},
		{name: "not JSON but declared", args: []string{"shape", "--spec", spec, "--tool", "search_docs", "toolresult/testdata/shape/service-2000.log"}, code: exitcode.Usage,
			inStderr: "toolwire: toolresult/testdata/shape/service-2000.log: search_docs declares a JSON result (its return schema), but the output is not JSON: line 1, column"},
		{name: "1 GB file", args: []string{"shape", big}, code: exitcode.Usage, inStderr: "big.json is 1.1 GB, larger than the 256 MiB toolwire reads: cut it (head -c) or narrow the tool's query"},
		{name: "over budget", args: []string{"shape", "--budget", "5", "toolresult/testdata/shape/orders-20.json"}, code: exitcode.Rejected, inStderr: "toolwire: the smallest observation (32 tokens) is over the budget of 5: raise --budget or narrow the output"},
		{name: "budget zero", args: []string{"shape", "--budget", "0", "x"}, code: exitcode.Usage, inStderr: "--budget 0: want a positive number of tokens"},
		{name: "unknown dialect", args: []string{"shape", "--dialect", "bedrock", "x"}, code: exitcode.Usage, inStderr: `--dialect "bedrock": unknown dialect`},
		{name: "unknown model", args: []string{"shape", "--model", "llama-3", "x"}, code: exitcode.Usage, inStderr: `--model "llama-3": not in the model table`},
		{name: "spec without the tool", args: []string{"shape", "--spec", spec, "--tool", "nope", "x"}, code: exitcode.Usage, inStderr: `has no tool "nope" (it defines search_docs, get_weather)`},
		{name: "spec with two tools", args: []string{"shape", "--spec", spec, "x"}, code: exitcode.Usage, inStderr: "defines 2 tools (search_docs, get_weather): pick one with --tool"},
		{name: "missing file", args: []string{"shape", filepath.Join(dir, "nope.json")}, code: exitcode.Usage, inStderr: "nope.json: no such file"},
		{name: "no file", args: []string{"shape"}, code: exitcode.Usage, inStderr: "toolwire shape takes one FILE (or - for standard input), got none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("toolwire %q exit = %d, want %d (stderr: %s)", tt.args, code, tt.code, stderr)
			}
			if tt.golden != "" {
				golden.Check(t, filepath.Join(testdata, tt.golden), []byte("$ toolwire "+strings.Join(tt.args, " ")+"\n"+stdout+stderr))
				return
			}
			if !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("toolwire %q stderr = %q, want it to contain %q", tt.args, stderr, tt.inStderr)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "*toolresult.") {
				t.Errorf("toolwire %q printed a Go stack or type: %s", tt.args, stderr)
			}
		})
	}
}

// TestShapeREADME keeps the README's toolwire shape example identical to
// what the command prints.
func TestShapeREADME(t *testing.T) {
	want, err := os.ReadFile("testdata/shape_orders.txt")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```console\n"+string(want)+"```") {
		t.Errorf("README.md does not show testdata/shape_orders.txt as it is; paste it into the toolwire shape section:\n%s", want)
	}
}

// TestShapeSpecChecks: shape --spec checks the output against the tool's
// return schema, and says which shaping rule cannot apply to it.
func TestShapeSpecChecks(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "spec.json", `{"version":"toolwire/v1","tools":[{"name":"list_orders","description":"Lists the orders.","parameters":{"type":"object"},
		"returns":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"total":{"type":"number"}},"required":["id","total"]}},
		"shape":{"sort_by":"price","fields":["id","total"]}}]}`)
	good := writeFile(t, dir, "good.json", `[{"id":1,"total":5},{"id":2,"total":7}]`)
	bad := writeFile(t, dir, "bad.json", `[{"id":1,"total":5},{"id":"x"}]`)
	tests := []struct {
		name     string
		file     string
		code     int
		inStderr []string
		notIn    string
	}{
		{name: "sort_by on a missing field", file: good, code: exitcode.OK,
			inStderr: []string{"note: sort_by price: no record has the field price, so the records keep the tool's order"}, notIn: "sorted 2 records"},
		{name: "output breaks the return schema", file: bad, code: exitcode.Rejected,
			inStderr: []string{"toolwire: " + bad + ": the output breaks the return schema of list_orders (--spec " + spec + "): [1].id: ", "[1].total: required property missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCmd(t, "", "shape", "--spec", spec, tt.file)
			if code != tt.code {
				t.Errorf("shape --spec %s exit = %d, want %d\n%s", tt.file, code, tt.code, stderr)
			}
			for _, want := range tt.inStderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("shape --spec %s stderr = %q, want it to contain %q", tt.file, stderr, want)
				}
			}
			if tt.notIn != "" && strings.Contains(stderr, tt.notIn) {
				t.Errorf("shape --spec %s stderr = %q, want no %q", tt.file, stderr, tt.notIn)
			}
		})
	}
}
