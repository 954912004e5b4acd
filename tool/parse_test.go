package tool_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/tool"
)

func TestParseSpecsFormats(t *testing.T) {
	tests := []struct {
		file   string
		format tool.Format
		names  []string
	}{
		{"openai_chat", tool.FormatOpenAIChat, []string{"get_weather", "list_alerts"}},
		{"openai_responses", tool.FormatOpenAIResponses, []string{"get_weather"}},
		{"anthropic", tool.FormatAnthropic, []string{"get_weather"}},
		{"mcp", tool.FormatMCP, []string{"read_file", "put_file", "send_mail"}},
		{"toolwire", tool.FormatToolwire, []string{"get_weather", "refund_payment"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "specs", tt.file+".txtar")
			archive, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data, ok := golden.ParseArchive(archive).Get("input.json")
			if !ok {
				t.Fatalf("%s has no input.json", path)
			}
			specs, format, err := tool.ParseSpecs(data)
			if err != nil {
				t.Fatalf("ParseSpecs(%s) error: %v", tt.file, err)
			}
			if format != tt.format {
				t.Errorf("ParseSpecs(%s) format = %v, want %v", tt.file, format, tt.format)
			}
			var names []string
			for _, s := range specs {
				names = append(names, s.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.names, ",") {
				t.Errorf("ParseSpecs(%s) names = %v, want %v", tt.file, names, tt.names)
			}
			for _, s := range specs {
				if err := s.Validate(); err != nil {
					t.Errorf("ParseSpecs(%s): %s does not validate: %v", tt.file, s.Name, err)
				}
			}
			// Every format is rendered as a spec file: what was read, and
			// what a provider format could not say, is visible at a glance.
			out, err := tool.MarshalSpecFile(specs)
			if err != nil {
				t.Fatal(err)
			}
			golden.CheckFile(t, path, "spec-file.json", out)
			// The spec file round-trips.
			again, f2, err := tool.ParseSpecs(out)
			if err != nil || f2 != tool.FormatToolwire {
				t.Fatalf("ParseSpecs(MarshalSpecFile(%s)) = %v, %v", tt.file, f2, err)
			}
			out2, _ := tool.MarshalSpecFile(again)
			if string(out2) != string(out) {
				t.Errorf("spec file of %s does not round-trip:\n%s\n%s", tt.file, out, out2)
			}
		})
	}
}

func TestParseSpecsMCPHints(t *testing.T) {
	archive, _ := os.ReadFile("testdata/specs/mcp.txtar")
	data, _ := golden.ParseArchive(archive).Get("input.json")
	specs, _, err := tool.ParseSpecs(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []tool.Idempotency{tool.Level2, tool.Level1, ""}
	for i, s := range specs {
		if s.Idempotency != want[i] {
			t.Errorf("ParseSpecs(mcp.json)[%d].Idempotency = %q, want %q", i, s.Idempotency, want[i])
		}
	}
	if string(specs[0].Returns) == "" {
		t.Errorf("ParseSpecs(mcp.json)[0].Returns is empty, want the outputSchema")
	}
}

func TestParseSpecsErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, `tool: parse specs: the input is empty; want a tools array or a spec file`},
		{"syntax", "[\n  {\"name\": \"x\",,}\n]", `tool: parse specs: line 2, column 16: not valid JSON: invalid character ',' at start of string (expecting '"')`},
		{"truncated", `[{"name": "x"`, `tool: parse specs: line 1, column 14: not valid JSON: the input ends before the document does`},
		{"scalar", `42`, `tool: parse specs: the input is a number; want a tools array, an object with a "tools" array, an MCP tools/list result or a toolwire spec file`},
		{"empty array", `[]`, `tool: parse specs: the tools array is empty`},
		{"no tools", `{"model": "x"}`, `tool: parse specs: no "tools" array; want a tools array, an object with a "tools" array, an MCP tools/list result or a toolwire spec file ({"version": "toolwire/v1", "tools": [...]})`},
		{"tools not array", `{"tools": {}}`, `tool: parse specs: tools: is an object, want an array of tools`},
		{"element not object", `[1]`, `tool: parse specs: 0: is a number, want an object`},
		{"unknown shape", `[{"foo": 1}]`, `tool: parse specs: 0: is not a tool definition this reader knows: want "function" (OpenAI Chat), "type": "function" with "name" (OpenAI Responses), "input_schema" (Anthropic) or "inputSchema" (MCP)`},
		{"missing type", `[{"name": "a", "parameters": {}}]`, `tool: parse specs: 0: has "name" and "parameters" but no "type": "function"; for OpenAI Responses add "type": "function", or use a toolwire spec file ({"version": "toolwire/v1", "tools": [...]})`},
		{"builtin", `{"tools": [{"type": "web_search_20250305", "name": "web_search"}]}`, `tool: parse specs: tools.0: is a provider built-in tool (type "web_search_20250305" web_search) with no schema of its own; only tools you implement can be read (remove it from the list)`},
		{"mixed", `[{"name": "a", "input_schema": {}}, {"type": "function", "function": {"name": "b"}}]`, `tool: parse specs: 1: is a openai-chat tool but 0 is a anthropic tool; one file holds one format`},
		{"chat name missing", `{"tools": [{"type": "function", "function": {"description": "d"}}]}`, `tool: parse specs: tools.0.function.name: missing`},
		{"chat name number", `[{"type": "function", "function": {"name": 7}}]`, `tool: parse specs: 0.function.name: is a number, want a string`},
		{"chat params not object", `[{"type": "function", "function": {"name": "a", "parameters": "x"}}]`, `tool: parse specs: 0.function.parameters: is a string, want an object`},
		{"chat wrong type", `[{"type": "tool", "function": {"name": "a"}}]`, `tool: parse specs: 0.type: is "tool", want "function"`},
		{"strict not bool", `[{"type": "function", "name": "a", "strict": "yes"}]`, `tool: parse specs: 0.strict: is a string, want true or false`},
		{"duplicate", `[{"name": "a", "input_schema": {}}, {"name": "a", "input_schema": {}}]`, `tool: parse specs: 1: duplicate tool name "a" (also at 0); providers reject duplicate names`},
		{"mcp annotations", `{"tools": [{"name": "a", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}}]}`, `tool: parse specs: tools.0.annotations.readOnlyHint: is a string, want true or false`},
		{"jsonrpc error", `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}`, `tool: parse specs: error: the input is a JSON-RPC error response, not a tools/list result`},
		{"spec version", `{"version": "toolwire/v9", "tools": []}`, `tool: parse specs: version: "toolwire/v9" is not supported; this toolwire reads "toolwire/v1"`},
		{"spec unknown field", `{"version": "toolwire/v1", "tools": [{"name": "a", "paramters": {}}]}`, `tool: parse specs: tools.0.paramters: unknown field "paramters" (did you mean "parameters"?)`},
		{"spec top unknown", `{"version": "toolwire/v1", "tool": []}`, `tool: parse specs: tool: unknown field "tool" (did you mean "tools"?)`},
		{"spec timeout", `{"version": "toolwire/v1", "tools": [{"name": "a", "timeout": "5 seconds"}]}`, `tool: parse specs: tools.0.timeout: "5 seconds" is not a duration; write it like "5s", "1500ms" or "2m"`},
		{"spec timeout number", `{"version": "toolwire/v1", "tools": [{"name": "a", "timeout": 5}]}`, `tool: parse specs: tools.0.timeout: is a number, want a string`},
		{"spec idempotency", `{"version": "toolwire/v1", "tools": [{"name": "a", "idempotency": "safe"}]}`, `tool: parse specs: tools.0.idempotency: "safe" is not a level; want "level_0" (never retried), "level_1" (retried with an idempotency key) or "level_2" (read-only, retried)`},
		{"spec http url", `{"version": "toolwire/v1", "tools": [{"name": "a", "http": {"method": "GET"}}]}`, `tool: parse specs: tools.0.http.url: missing; an HTTP binding needs the endpoint's URL`},
		{"spec http unknown", `{"version": "toolwire/v1", "tools": [{"name": "a", "http": {"uri": "x"}}]}`, `tool: parse specs: tools.0.http.uri: unknown field "uri" (did you mean "url"?)`},
		{"spec http headers", `{"version": "toolwire/v1", "tools": [{"name": "a", "http": {"url": "https://x", "headers": {"a": 1}}}]}`, `tool: parse specs: tools.0.http.headers.a: is a number, want a string`},
		{"spec duplicate", `{"version": "toolwire/v1", "tools": [{"name": "a"}, {"name": "a"}]}`, `tool: parse specs: tools.1.name: duplicate tool name "a" (also at tools.0)`},
		{"spec empty", `{"version": "toolwire/v1", "tools": []}`, `tool: parse specs: tools: the tools array is empty`},
		{"invalid utf8", "[{\"name\": \"a\xff\", \"input_schema\": {}}]", `tool: parse specs: the input is not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tool.ParseSpecs([]byte(tt.in))
			if err == nil {
				t.Fatalf("ParseSpecs(%q) error = nil, want %q", tt.in, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("ParseSpecs(%q) error =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
			var pe *tool.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("ParseSpecs(%q) error is %T, want *tool.ParseError", tt.in, err)
			}
		})
	}
}

// ParseSpecs reads what lint must score: invalid names and broken schemas
// come back as written, and Validate says what is wrong.
func TestParseSpecsKeepsBadContracts(t *testing.T) {
	in := `[{"type": "function", "function": {"name": "1bad name", "parameters": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5, "default": 9}}}}}]`
	specs, _, err := tool.ParseSpecs([]byte(in))
	if err != nil {
		t.Fatalf("ParseSpecs(%q) error: %v", in, err)
	}
	err = specs[0].Validate()
	want := `tool 1bad name: name: "1bad name" starts with "1"; Gemini requires a letter or underscore first` + "\n" +
		`tool 1bad name: parameters.properties.n.default: the default 9 breaks its own schema: 9 is above maximum 5`
	if err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %v", err, want)
	}
}

// TestMarshalSpecFileKeepsText: a spec file is written for people and
// models, so <, > and & stay as they are rather than as \u003c escapes.
func TestMarshalSpecFileKeepsText(t *testing.T) {
	specs := []tool.Spec{{Name: "compare", Description: "Is a < b && b > c?",
		Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string","pattern":"^<[a-z]+>$"}}}`)}}
	out, err := tool.MarshalSpecFile(specs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"description": "Is a < b && b > c?"`, `"pattern": "^<[a-z]+>$"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("MarshalSpecFile(%q) = %s, want it to contain %s", specs[0].Description, out, want)
		}
	}
}
