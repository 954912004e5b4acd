package tool_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// fake is a hand-written tool whose behaviour a test supplies.
type fake struct {
	spec tool.Spec
	fn   func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error)
}

func (f *fake) Spec() tool.Spec { return f.spec }

func (f *fake) Call(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
	return f.fn(ctx, args)
}

func newFake(name string, level tool.Idempotency, fn func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error)) *fake {
	return &fake{spec: tool.Spec{Name: name, Description: "A test tool.", Idempotency: level,
		Parameters: jsontext.Value(`{"type":"object"}`)}, fn: fn}
}

// WeatherIn is the input of the typed test tool.
type WeatherIn struct {
	City  string `json:"city" jsonschema:"City name, e.g. Paris" minLength:"1" maxLength:"80"`
	Units string `json:"units,omitempty" jsonschema:"Temperature units" enum:"celsius|fahrenheit" default:"celsius"`
	Days  int    `json:"days,omitempty" jsonschema:"Days of forecast" minimum:"1" maximum:"14" default:"1"`
}

// WeatherOut is the output of the typed test tool.
type WeatherOut struct {
	City       string  `json:"city"`
	Temp       float64 `json:"temp"`
	Units      string  `json:"units" enum:"celsius|fahrenheit"`
	Conditions string  `json:"conditions"`
}

// Hit is one search result.
type Hit struct {
	Title string `json:"title"`
	URL   string `json:"url" format:"uri"`
}

// SearchIn is the input of the search test tool.
type SearchIn struct {
	Query string `json:"query" jsonschema:"What to search for" minLength:"1"`
	Limit int    `json:"limit,omitempty" jsonschema:"How many results" minimum:"1" maximum:"10" default:"5"`
}

// Hits is the search result, with its own summary.
type Hits []Hit

// Summary says how many hits there are.
func (h Hits) Summary() string {
	if len(h) == 0 {
		return "no pages found"
	}
	return "found " + strings.Repeat("I", len(h)) + " pages"
}

func getWeather(ctx context.Context, in WeatherIn) (WeatherOut, error) {
	switch in.City {
	case "Atlantis":
		return WeatherOut{}, tool.Errorf(toolresult.NotFound, "no city named %q", in.City)
	case "Busy":
		return WeatherOut{}, &tool.Error{Type: toolresult.RateLimited, Message: "the weather service is rate limited", RetryAfter: 40 * time.Second}
	case "Broken":
		return WeatherOut{}, errors.New("dial tcp 10.0.0.7:5432: connection refused\ngoroutine 1 [running]:\nmain.main()")
	case "Slow":
		return WeatherOut{}, context.DeadlineExceeded
	case "Panic":
		var m map[string]int
		//lint:ignore SA5000 the tool panics on purpose
		m["x"]++
	case "Bad":
		return WeatherOut{City: in.City, Temp: 1, Units: "kelvin"}, nil
	}
	return WeatherOut{City: in.City, Temp: 21.5, Units: in.Units, Conditions: "sunny"}, nil
}

// testRegistry holds the tools of the golden tests.
func testRegistry(t testing.TB) *tool.Registry {
	t.Helper()
	reg := tool.NewRegistry()
	reg.MustAdd(
		tool.MustFunc("get_weather", "Current weather for a city.", getWeather, &tool.FuncOptions{Idempotency: tool.Level0}),
		tool.MustFunc("get_forecast", "Forecast for a city.", getWeather, &tool.FuncOptions{Idempotency: tool.Level2}),
		tool.MustFunc("search_web", "Search the web.", func(ctx context.Context, in SearchIn) (Hits, error) {
			if in.Query == "nothing" {
				return Hits{}, nil
			}
			return Hits{{Title: "Go", URL: "https://go.dev"}, {Title: "Go spec", URL: "https://go.dev/ref/spec"}}, nil
		}, &tool.FuncOptions{Idempotency: tool.Level2}),
		tool.MustFunc("send_sms", "Send a text message.", func(ctx context.Context, in struct {
			To   string `json:"to" pattern:"^\\+[1-9][0-9]{6,14}$"`
			Text string `json:"text" maxLength:"160"`
		}) (toolresult.Envelope, error) {
			return toolresult.Success("sent to "+in.To, map[string]string{"id": "sms_1"}), nil
		}, &tool.FuncOptions{Idempotency: tool.Level0, RequiresApproval: true}),
		newFake("search_news", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
			return toolresult.Empty("search_news: nothing new"), nil
		}),
		newFake("list_files", tool.Level2, func(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
			env := toolresult.Partial("list_files(dir=/): 2 of 3 directories listed; /private was not readable", []string{"a.txt", "b.txt"})
			env.Meta.Source = "fs"
			return env, nil
		}),
	)
	return reg
}

// text returns a result's rendered envelope.
func text(r llm.ToolResult) string {
	if len(r.Content) != 1 {
		return ""
	}
	t, _ := r.Content[0].(llm.Text)
	return t.Text
}

// stable re-renders an outcome without its duration, for golden files.
func stable(o tool.Outcome) string {
	env := o.Envelope
	env.Meta.Duration = 0
	return text(env.Result(o.Result.CallID, o.Result.Name))
}
