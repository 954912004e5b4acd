package toolwire_test

import (
	"context"
	"fmt"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/session/memory"
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
	model, _ := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1"}})

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
	model, _ := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1"}})
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

// With Config.Sessions, a run is stored as a session; a call of a tool
// that needs approval pauses it, and Resume — in this process or another
// one over the same store — answers the call and runs on.
func ExampleAgent_Resume() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "refund", Args: `{"order":"o-42"}`}}},
		llmtest.Turn{Text: "Refunded o-42."})
	defer srv.Close()
	model, _ := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1"}})
	reg := tool.NewRegistry()
	reg.MustAdd(refundTool())   // needs a person's approval
	store, _ := memory.New(nil) // or sqlite.New, postgres.New
	agent, _ := toolwire.New(model, &toolwire.Config{Tools: reg, Sessions: store})

	res, _ := agent.Run(context.Background(), "Refund o-42.")
	fmt.Println(res.Stop, res.Message)
	call := res.State.Next.Calls[0].Call.ID
	res, err := agent.Resume(context.Background(), res.Session, &toolwire.Decisions{
		Calls: map[string]toolwire.Decision{call: toolwire.Approve()},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stop, res.Answer)
	// Output:
	// paused paused in turn 1: refund (call_1_0) wait(s) for a person's approval
	// answered Refunded o-42.
}

// Perform does the I/O a state asks for, and Step decides what follows:
// a program (a server, a durable-execution engine) drives the loop
// itself, deciding for a person where the run waits for one, and can
// record each input as JSON to replay the run through Step alone.
func ExampleAgent_Perform() {
	srv := llmtest.NewServer(nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "refund", Args: `{"order":"o-42"}`}}},
		llmtest.Turn{Text: "Refunded o-42."})
	defer srv.Close()
	model, _ := openai.NewChat("gpt-4.1", &openai.Config{Options: provider.Options{BaseURL: srv.URL + "/v1"}})
	reg := tool.NewRegistry()
	reg.MustAdd(refundTool()) // needs a person's approval
	agent, _ := toolwire.New(model, &toolwire.Config{Tools: reg})

	s := agent.Start("Refund o-42.")
	for s.Next.Kind != toolwire.Done {
		var in toolwire.Input
		switch s.Next.Kind {
		case toolwire.CallModel:
			fmt.Printf("call the model with %d message(s)\n", len(agent.Request(s).Messages))
			in = agent.Perform(context.Background(), s)
		case toolwire.RunTools:
			fmt.Printf("run %d call(s)\n", len(s.Next.Runnable(false)))
			in = agent.Perform(context.Background(), s)
		case toolwire.AwaitApproval:
			fmt.Println("a person approves", s.Next.Calls[0].Call.Name)
			in = toolwire.Decisions{Calls: map[string]toolwire.Decision{s.Next.Calls[0].Call.ID: toolwire.Approve()}}
		}
		if _, err := toolwire.MarshalInput(in); err != nil { // what a recording keeps
			fmt.Println(err)
			return
		}
		next, change, err := agent.Step(s, in)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("  %d message(s) appended\n", len(change.Appended))
		s = next
	}
	fmt.Println(s.Next.Stop.Reason, s.Next.Stop.Answer)
	// Output:
	// call the model with 1 message(s)
	//   1 message(s) appended
	// a person approves refund
	//   0 message(s) appended
	// run 1 call(s)
	//   1 message(s) appended
	// call the model with 3 message(s)
	//   1 message(s) appended
	// answered Refunded o-42.
}

// refundTool is a tool whose calls need a person's approval.
func refundTool() tool.Tool {
	return tool.MustFunc("refund", "Refunds an order.",
		func(ctx context.Context, in struct {
			Order string `json:"order"`
		}) (string, error) {
			return "refunded " + in.Order, nil
		}, &tool.FuncOptions{RequiresApproval: true, Idempotency: tool.Level1})
}
