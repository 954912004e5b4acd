package tool_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// A typed tool: the schema comes from the Go types and their tags, the
// arguments are validated before the function runs, and defaults are
// filled in.
func ExampleFunc() {
	type In struct {
		City  string `json:"city" jsonschema:"City name, e.g. Paris" minLength:"1"`
		Units string `json:"units,omitempty" enum:"celsius|fahrenheit" default:"celsius"`
	}
	type Out struct {
		Temp  float64 `json:"temp"`
		Units string  `json:"units"`
	}
	weather := tool.MustFunc("get_weather", "Current temperature in a city.",
		func(ctx context.Context, in In) (Out, error) {
			if in.City == "Atlantis" {
				return Out{}, tool.Errorf(toolresult.NotFound, "no city named %q", in.City)
			}
			return Out{Temp: 21.5, Units: in.Units}, nil
		}, &tool.FuncOptions{Idempotency: tool.Level2})
	fmt.Println(string(weather.Spec().Parameters))

	reg := tool.NewRegistry()
	reg.MustAdd(weather)
	ex, _ := tool.NewExecutor(reg, nil)
	for _, args := range []string{`{"city": "Paris"}`, `{"city": "Atlantis"}`, `{"city": "", "unit": "K"}`} {
		o := ex.Call(context.Background(), llm.ToolCall{ID: "call_1", Name: "get_weather", Input: jsontext.Value(args)})
		o.Envelope.Meta = toolresult.Meta{} // drop duration and source for a stable output
		fmt.Println(o.Envelope.Result(o.Result.CallID, o.Result.Name).Content[0].(llm.Text).Text)
	}
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Paris","minLength":1},"units":{"type":"string","default":"celsius","enum":["celsius","fahrenheit"]}},"required":["city"],"additionalProperties":false}
	// {"status":"success","summary":"get_weather(city=Paris, units=celsius): done","data":{"temp":21.5,"units":"celsius"}}
	// {"status":"error","summary":"get_weather(city=Atlantis, units=celsius) failed: not_found: no city named \"Atlantis\"","error":{"type":"not_found","message":"no city named \"Atlantis\"","retryable":false}}
	// {"status":"error","summary":"get_weather(city=, unit=K) was not run: 2 arguments are invalid","error":{"type":"invalid_arguments","message":"city: \"\" has 0 characters, below minLength 1; unit: property not allowed (did you mean units?)","retryable":false},"suggestion":"You could call get_weather again with corrected values (city with at least 1 character; rename unit to units)."}
}

// The executor runs one turn's calls in parallel and returns the results
// in call order: one result per call, whatever happens.
func ExampleExecutor_Run() {
	reg := tool.NewRegistry()
	reg.MustAdd(tool.MustFunc("wait", "Wait, then echo.", func(ctx context.Context, in struct {
		MS int `json:"ms" minimum:"0" maximum:"1000"`
	}) (int, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return in.MS, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}, &tool.FuncOptions{Idempotency: tool.Level2, Timeout: 200 * time.Millisecond}))
	ex, err := tool.NewExecutor(reg, &tool.Config{MaxParallel: 4})
	if err != nil {
		panic(err)
	}
	calls := []llm.ToolCall{
		{ID: "c1", Name: "wait", Input: jsontext.Value(`{"ms": 30}`)},
		{ID: "c2", Name: "wait", Input: jsontext.Value(`{"ms": 0}`)},
		{ID: "c3", Name: "wait", Input: jsontext.Value(`{"ms": 5000}`)},
		{ID: "c4", Name: "sleep", Input: jsontext.Value(`{}`)},
	}
	for _, o := range ex.Run(context.Background(), calls) {
		var typ toolresult.ErrorType
		if o.Envelope.Error != nil {
			typ = o.Envelope.Error.Type
		}
		fmt.Println(o.Result.CallID, o.Result.Status, typ, o.Envelope.Summary)
	}
	// Output:
	// c1 success  wait(ms=30): done
	// c2 success  wait(ms=0): done
	// c3 error invalid_arguments wait(ms=5000) was not run: 1 argument is invalid
	// c4 error unknown_tool sleep: no such tool
}
