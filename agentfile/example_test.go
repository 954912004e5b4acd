package agentfile_test

import (
	"context"
	"fmt"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/tool"
)

// A program reads a definition and builds the agent it describes, with
// the Go tools it chooses to offer; toolwire run, a server and a worker
// given the same definition build the same agent. The conformance server
// stands in for OpenAI: it calls the tool, then answers.
func Example() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
		llmtest.Turn{Text: "18°C and sunny: no coat needed."})
	defer srv.Close()

	// The Go tools this program offers its definitions, by name.
	tools := tool.NewRegistry()
	tools.MustAdd(tool.MustFunc("get_weather", "Current weather in a city.",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "18°C, sunny", nil
		}, nil))

	// From a file: agentfile.Load("agents/weather.yaml"). From bytes, the
	// name places its files and names it in errors.
	def, err := agentfile.Parse("agents/weather.yaml", []byte(`
name: weather
model: openai:gpt-4.1
system: Answer in one sentence.
max_turns: 4
tools:
  - get_weather
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	model, cfg, err := def.Build(&agentfile.Options{
		Tools:    tools,
		Provider: &provider.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-..."}, // the key is the caller's to find
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What a definition does not say (Sessions, Hooks, Logger) is the
	// caller's to add.
	a, err := toolwire.New(model, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := a.Run(context.Background(), "What should I wear in Paris today?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Name, cfg.Tools.Names(), cfg.MaxTurns)
	fmt.Println(res.Answer)
	// Output:
	// weather [get_weather] 4
	// 18°C and sunny: no coat needed.
}

// Every problem is one line that says where, what, and how to fix it.
func ExampleDefinition_Validate() {
	def, err := agentfile.Parse("agent.yaml", []byte("model: openai:gpt-4.1\ntools:\n  - get_weather\n  - spec: ../shared/tools.json\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(def.Validate(nil))

	_, err = agentfile.Parse("agent.yaml", []byte("model: openai:gpt-4.1\ntools:\n  - exmaple: get_weather\n"))
	fmt.Println(err)
	// Output:
	// agent.yaml:4:11: tools.1.spec: the spec file ../shared/tools.json is outside the agent file's folder; keep the files a definition names beside it
	// agent.yaml:3:14: tools.0: unknown key "exmaple"; did you mean "example"?
}
