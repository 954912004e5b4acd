package toolwire_test

import (
	"context"
	"testing"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/llmtest"
)

func TestSingleCall(t *testing.T) {
	for _, stream := range []bool{true, false} {
		for _, d := range dialects(stream) {
			t.Run(d.name+streamName(stream), func(t *testing.T) {
				srv := llmtest.NewServer(t,
					llmtest.Turn{Text: "Let me look.", Calls: []llmtest.Call{{Name: "get_weather", Args: `{"city":"北京"}`}}},
					llmtest.Turn{Text: "6°C and windy: wear a warm coat."})
				a, _ := newAgent(t, d.new(t, srv), &toolwire.Config{System: "Be brief.", Tools: registry(weatherTool())})
				res, err := a.Run(context.Background(), "北京今天适合穿什么衣服?")
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if res.Stop != toolwire.Answered || res.Answer != "6°C and windy: wear a warm coat." || res.Turns != 2 {
					t.Errorf("Run = %+v, want answered in 2 turns", res)
				}
				checkGolden(t, "single-"+d.name, srv, res)
			})
		}
	}
}
