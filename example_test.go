package toolwire_test

import (
	"context"
	"fmt"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/tool"
)

// New takes a model — any llm.Model: here an OpenAI Chat client against
// the conformance server, scripted to call one tool and then answer —
// and the tools it may call.
func ExampleNew() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"北京"}`}}},
		llmtest.Turn{Text: "6°C and windy: wear a warm coat."})
	defer srv.Close()
	model, _ := openai.NewChat("gpt-4.1", &openai.Config{BaseURL: srv.URL + "/v1"})

	type In struct {
		City string `json:"city" minLength:"1"`
	}
	type Out struct {
		TempC int    `json:"temp_c"`
		Sky   string `json:"sky"`
	}
	weather := tool.MustFunc("get_weather", "Current weather in a city.",
		func(ctx context.Context, in In) (Out, error) { return Out{TempC: 6, Sky: "windy"}, nil },
		&tool.FuncOptions{Idempotency: tool.Level2})
	reg := tool.NewRegistry()
	reg.MustAdd(weather)

	agent, err := toolwire.New(model, &toolwire.Config{System: "Be brief.", Tools: reg, MaxTurns: 12})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := agent.Run(context.Background(), "北京今天适合穿什么衣服?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Answer)
	fmt.Println(res.Stop, res.Turns, "turns")
	// Output:
	// 6°C and windy: wear a warm coat.
	// answered 2 turns
}

// Stream yields what happens as it happens; a guard's stop ends the run
// with a result that says why and what was gathered.
func ExampleAgent_Stream() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"Paris"}`}}})
	defer srv.Close()
	model, _ := openai.NewChat("gpt-4.1", &openai.Config{BaseURL: srv.URL + "/v1"})
	reg := tool.NewRegistry()
	reg.MustAdd(tool.MustFunc("get_weather", "Current weather in a city.",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "18°C, sunny", nil
		}, nil))
	agent, _ := toolwire.New(model, &toolwire.Config{Tools: reg, MaxTurns: 2})
	for ev, err := range agent.Stream(context.Background(), "Weather in Paris?") {
		switch ev := ev.(type) {
		case toolwire.CallEvent:
			fmt.Printf("turn %d: %s %s\n", ev.Turn, ev.Call.Name, ev.Call.Input)
		case toolwire.DoneEvent:
			fmt.Println(ev.Result.Message)
		}
		if err != nil {
			fmt.Println("error:", err)
		}
	}
	// Output:
	// turn 1: get_weather {"city":"Paris"}
	// turn 2: get_weather {"city":"Paris"}
	// stopped after 2 turns (the maximum) without a final answer
	// error: toolwire: stopped after 2 turns (the maximum) without a final answer
}
