package gemini_test

import (
	"context"
	"fmt"

	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/llmtest"
)

// A Gemini client; the conformance server stands in for the Gemini API,
// which sends calls without ids: the client makes them.
func ExampleNewClient() {
	srv := llmtest.NewServer(nil, llmtest.Turn{Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"北京"}`}}})
	defer srv.Close()

	model, err := gemini.NewClient("gemini-2.5-flash", &gemini.Config{Options: provider.Options{BaseURL: srv.URL + "/v1beta", APIKey: "AIza..."}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := llm.Generate(context.Background(), model, &llm.Request{
		Messages: []llm.Message{llm.User("北京今天适合穿什么衣服?")},
		Tools:    []llm.ToolSpec{{Name: "get_weather", Description: "Current weather in a city."}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := resp.Message.ToolCalls()[0]
	fmt.Println(c.ID != "", c.Name, string(c.Input))
	// Output:
	// true get_weather {"city":"北京"}
}
