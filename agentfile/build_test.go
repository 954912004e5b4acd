package agentfile

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/filetree"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/tool"
)

// specFile is a toolwire spec file with two HTTP tools and one without a
// binding.
const specFile = `{"version": "toolwire/v1", "tools": [
  {"name": "get_quote", "description": "The price of a stock, by its ticker symbol.",
   "parameters": {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"], "additionalProperties": false},
   "http": {"method": "GET", "url": "https://quotes.example.com/v1/{symbol}"}},
  {"name": "get_rate", "description": "The exchange rate between two currencies.",
   "parameters": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"], "additionalProperties": false},
   "http": {"method": "GET", "url": "https://rates.example.com/v1/{from}/{to}"}},
  {"name": "refund_payment", "description": "Refund a captured payment, fully or in part.",
   "parameters": {"type": "object", "properties": {"payment_id": {"type": "string"}}, "required": ["payment_id"], "additionalProperties": false}}
]}`

// goTools is the set of Go tools a program offers its definitions.
func goTools(t *testing.T) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry()
	for _, name := range []string{"get_weather", "search_orders"} {
		reg.MustAdd(tool.MustFunc(name, "An example tool named "+name+".",
			func(ctx context.Context, in struct {
				City string `json:"city"`
			}) (string, error) {
				return "sunny", nil
			}, nil))
	}
	return reg
}

// Validate checks a definition against what the program offers: each
// problem is one line that says where, what, and how to fix it.
func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		agent string            // agent/agent.yaml
		files map[string]string // more files, under the root
		opts  Options           // Tools is always goTools
		want  string            // the error; "" for none
	}{
		{name: "go and http tools", agent: "model: openai:gpt-4o\ntools:\n  - get_weather\n  - spec: tools.json\n    only: [get_quote]\n",
			files: map[string]string{"agent/tools.json": specFile}},
		{name: "unknown go tool", agent: "model: openai:gpt-4o\ntools:\n  - get_wether\n",
			want: `agent.yaml:3:5: tools.0: no tool is named "get_wether"; did you mean "get_weather"?`},
		{name: "unknown go tool, nothing near", agent: "model: openai:gpt-4o\ntools:\n  - tool: book_flight\n",
			want: `agent.yaml:3:5: tools.0: no tool is named "book_flight" (the tools this program provides: get_weather, search_orders)`},
		{name: "a tool twice", agent: "model: openai:gpt-4o\ntools:\n  - get_weather\n  - example: get_weather\n",
			want: `agent.yaml:4:5: tools.1: the tool get_weather is already listed (line 3); list each tool once`},
		{name: "spec file missing", agent: "model: openai:gpt-4o\ntools:\n  - spec: tools.json\n",
			want: "agent.yaml:3:11: tools.0.spec: cannot read the spec file tools.json: no such file or directory"},
		{name: "spec file unreadable", agent: "model: openai:gpt-4o\ntools:\n  - spec: tools.json\n", files: map[string]string{"agent/tools.json": "{\"tools\": [}"},
			want: "agent.yaml:3:11: tools.0.spec: tools.json: line 1, column 12: "},
		{name: "spec lacks the tool", agent: "model: openai:gpt-4o\ntools:\n  - spec: tools.json\n    only: [get_quote, get_qoute]\n", files: map[string]string{"agent/tools.json": specFile},
			want: `agent.yaml:4:11: tools.0.only: tools.json has no tool named "get_qoute" (its tools: get_quote, get_rate, refund_payment)`},
		{name: "spec tool without http", agent: "model: openai:gpt-4o\ntools:\n  - spec: tools.json\n    only: [refund_payment]\n", files: map[string]string{"agent/tools.json": specFile},
			want: "agent.yaml:3:11: tools.0.spec: the tool refund_payment in tools.json has no http binding; a definition calls only HTTP tools from spec files"},
		{name: "spec and go tool clash", agent: "model: openai:gpt-4o\ntools:\n  - spec: tools.json\n    only: [get_quote]\n  - spec: tools.json\n    only: [get_quote]\n",
			files: map[string]string{"agent/tools.json": specFile},
			want:  "agent.yaml:5:5: tools.1: the tool get_quote is already listed (line 3); list each tool once"},
		{name: "spec outside refused", agent: "model: openai:gpt-4o\ntools:\n  - spec: ../shared/tools.json\n", files: map[string]string{"shared/tools.json": specFile},
			want: "agent.yaml:3:11: tools.0.spec: the spec file ../shared/tools.json is outside the agent file's folder; keep the files a definition names beside it"},
		{name: "spec outside allowed", agent: "model: openai:gpt-4o\ntools:\n  - spec: ../shared/tools.json\n    only: [get_quote]\n", files: map[string]string{"shared/tools.json": specFile},
			opts: Options{AllowOutside: true}},
		{name: "link to outside refused", agent: "model: openai:gpt-4o\ntools:\n  - spec: link.json\n", files: map[string]string{"shared/tools.json": specFile, "agent/link.json": "-> ../shared/tools.json"},
			want: "agent.yaml:3:11: tools.0.spec: the spec file link.json is outside the agent file's folder (it is ROOT/shared/tools.json)"},
		{name: "replay model refused", agent: "model: replay:turns.json\n", files: map[string]string{"agent/turns.json": `{"turns":[{"text":"hi"}]}`},
			want: "agent.yaml:1:8: model: replay:FILE is not allowed here; name a provider's model, e.g. openai:gpt-4o"},
		{name: "replay model allowed", agent: "model: replay:turns.json\n", files: map[string]string{"agent/turns.json": `{"turns":[{"text":"hi"}]}`},
			opts: Options{Replay: true}},
		{name: "unknown provider", agent: "model: opneai:gpt-4o\n",
			want: `agent.yaml:1:8: model: unknown provider "opneai": want openai, openai-responses, anthropic or gemini (did you mean openai?)`},
		{name: "no model", agent: "name: x\n",
			want: "agent.yaml: the definition names no model; add one, e.g. model: openai:gpt-4o-mini"},
		{name: "model given by the caller", agent: "name: x\n", opts: Options{Model: "anthropic:claude-sonnet-4-5"}},
		{name: "caller's model unknown", agent: "model: openai:gpt-4o\n", opts: Options{Model: "mistral:large"},
			want: `unknown provider "mistral": want openai, openai-responses, anthropic or gemini`},
		{name: "output not a schema", agent: "model: openai:gpt-4o\noutput: {type: objekt}\n",
			want: "agent.yaml:2:9: output: not a usable JSON Schema: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"agent/agent.yaml": tt.agent}
			for k, v := range tt.files {
				files[k] = v
			}
			root := filetree.Write(t, files)
			def, err := Load(filepath.Join(root, "agent", "agent.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			o := tt.opts
			o.Tools = goTools(t)
			err = def.Validate(&o)
			want := strings.ReplaceAll(tt.want, "ROOT", root)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), want)):
				t.Errorf("Validate() = %v, want %q", err, want)
			}
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Errorf("Validate() = %T, want an *Error", err)
			}
			if err != nil && strings.Contains(err.Error(), "tool: ") {
				t.Errorf("Validate() = %q shows a Go package prefix", err)
			}
		})
	}
}

// Outside lists the files a definition names outside its folder, links
// followed, for a caller that allows them and warns.
func TestOutside(t *testing.T) {
	root := filetree.Write(t, map[string]string{
		"agent/agent.yaml": "model: replay:link.json\nreplay: turns.json\ntools:\n  - spec: ../shared/tools.json\n",
		"agent/turns.json": "{}", "agent/link.json": "-> ../shared/turns.json", "shared/turns.json": "{}", "shared/tools.json": "{}",
	})
	def, err := Load(filepath.Join(root, "agent", "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range def.Outside() {
		got = append(got, f.At.String()+" "+f.Name+" "+f.Path)
	}
	at := filepath.Join(root, "agent", "agent.yaml")
	want := []string{
		at + ":1:8 link.json " + filepath.Join(root, "shared", "turns.json"),
		at + ":4:11 ../shared/tools.json " + filepath.Join(root, "shared", "tools.json"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("Outside() = %q, want %q", got, want)
	}
}

// Build makes the model and the configuration a run needs from the
// definition alone; the agent it makes runs against a real HTTP server.
func TestBuild(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
		llmtest.Turn{Text: `{"city":"Paris","sky":"sunny"}`})
	defer srv.Close()
	root := filetree.Write(t, map[string]string{
		"agent.yaml": "name: weather\nmodel: anthropic:claude-sonnet-4-5\nsystem: Be brief.\nmax_turns: 4\n" +
			"tools:\n  - get_weather\n  - spec: tools.json\n    only: [get_rate]\n    approval: true\n" +
			"output: {type: object, required: [city]}\n",
		"tools.json": specFile,
	})
	def, err := Load(filepath.Join(root, "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	model, cfg, err := def.Build(&Options{Tools: goTools(t), Provider: &provider.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"}})
	if err != nil {
		t.Fatal(err)
	}
	if model.Dialect() != "anthropic" {
		t.Errorf("model dialect = %q, want anthropic", model.Dialect())
	}
	if cfg.Name != "weather" || cfg.System != "Be brief." || cfg.MaxTurns != 4 || string(cfg.Output) != `{"type":"object","required":["city"]}` {
		t.Errorf("Build config = name %q, system %q, max turns %d, output %s", cfg.Name, cfg.System, cfg.MaxTurns, cfg.Output)
	}
	if got := cfg.Tools.Names(); !slices.Equal(got, []string{"get_weather", "get_rate"}) {
		t.Errorf("tools = %v, want [get_weather get_rate]", got)
	}
	if rate, _ := cfg.Tools.Lookup("get_rate"); !rate.Spec().RequiresApproval {
		t.Errorf("get_rate does not require approval; its entry says approval: true")
	}
	if cfg.Limits.Window != 200_000 {
		t.Errorf("Limits.Window = %d, want claude-sonnet-4-5's 200,000", cfg.Limits.Window)
	}
	a, err := toolwire.New(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != toolwire.Answered || string(res.Output) != `{"city":"Paris","sky":"sunny"}` {
		t.Errorf("Run = %s %q, want answered with the JSON", res.Stop, res.Output)
	}
}

// Build opens a recorded run only when the caller allows it, and a
// replayed run keeps its offloaded results numbered as they were
// recorded.
func TestBuildReplay(t *testing.T) {
	root := filetree.Write(t, map[string]string{
		"agent.yaml": "model: openai:gpt-4o-mini\nreplay: turns.json\n",
		"turns.json": `{"model": "gpt-4.1", "turns":[{"text":"It is sunny."}]}`,
	})
	def, err := Load(filepath.Join(root, "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = def.Build(&Options{Model: "replay:" + def.Replay})
	if err == nil || !strings.Contains(err.Error(), "replay:FILE is not allowed here") {
		t.Errorf("Build(replay model, Replay false) = %v, want a refusal", err)
	}
	model, cfg, err := def.Build(&Options{Model: "replay:" + def.Replay, Replay: true})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Store == nil || cfg.Limits.Window != 1_047_576 {
		t.Errorf("replay config: store %v, window %d; want a store of its own and gpt-4.1's window", cfg.Store, cfg.Limits.Window)
	}
	a, err := toolwire.New(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := a.Run(context.Background(), "Weather?"); err != nil || res.Answer != "It is sunny." {
		t.Errorf("Run = %v, %v; want the recorded answer", res, err)
	}
	_, _, err = def.Build(&Options{Model: "replay:" + filepath.Join(root, "nope.json"), Replay: true})
	if err == nil || !strings.Contains(err.Error(), "cannot read the replay file") {
		t.Errorf("Build(missing replay) = %v, want it named", err)
	}
}

// A model name the caller gives that cannot be opened keeps open's
// error, so that the caller can tell an unknown provider.
func TestBuildModelError(t *testing.T) {
	def, err := Parse("agent.yaml", []byte("model: openai:gpt-4o\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = def.Build(&Options{Model: "mistral:large"})
	if !errors.Is(err, open.ErrUnknownProvider) {
		t.Errorf("Build(mistral:large) = %v, want it to wrap open.ErrUnknownProvider", err)
	}
	_, _, err = def.Build(&Options{Provider: &provider.Options{BaseURL: "localhost:8000"}})
	if err == nil || !strings.Contains(err.Error(), `agent.yaml:1:8: model: openai chat: BaseURL "localhost:8000" is not an http or https URL`) {
		t.Errorf("Build(bad base URL) = %v, want it at the model", err)
	}
}
