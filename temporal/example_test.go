package temporal_test

import (
	"context"
	"fmt"
	"log/slog"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/open"
	"github.com/toolwire/toolwire/temporal"
	"github.com/toolwire/toolwire/tool"
)

// A session of an agent with one read-only tool, run by the SDK's test
// environment in place of a worker: the model (here the conformance
// server) calls the tool, then answers. A worker registers the runtime
// the same way: rt.Register(worker.New(client, queue, options)).
func Example() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "stock", Args: `{"item":"tea"}`}}},
		llmtest.Turn{Text: "12 boxes of tea are in stock."})
	defer srv.Close()
	model, err := open.Model("openai:gpt-4o-mini", &provider.Options{BaseURL: srv.URL + "/v1", APIKey: "key", MaxRetries: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	type in struct {
		Item string `json:"item"`
	}
	reg := tool.NewRegistry()
	reg.MustAdd(tool.MustFunc("stock", "How many of an item are in stock.", func(ctx context.Context, a in) (int, error) {
		return 12, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2}))
	rt, err := temporal.New([]temporal.Agent{{Name: "shop", Model: model, Config: &toolwire.Config{Tools: reg}}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	rt.Register(env)
	env.ExecuteWorkflow(temporal.WorkflowName, temporal.SessionInput{Agent: "shop", Question: "How much tea is left?"})
	var res temporal.SessionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stop, "in", res.Turns, "turns:", res.Answer)
	// Output: answered in 2 turns: 12 boxes of tea are in stock.
}
