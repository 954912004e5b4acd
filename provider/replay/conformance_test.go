package replay_test

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/llm/modeltest"
	"github.com/toolwire/toolwire/provider/replay"
)

// TestConformance runs the llm.Model conformance suite against a replay
// of the suite's script. A replay has no wire and cannot fail, reason or
// report given counts: the subtests that need those are skipped.
func TestConformance(t *testing.T) {
	modeltest.Exercise(t, modeltest.Harness{
		Lacks: modeltest.Failures | modeltest.Wire | modeltest.ExactUsage | modeltest.Streaming | modeltest.Reasoning,
		Open: func(t *testing.T, turns ...modeltest.Turn) modeltest.Backend {
			type call struct {
				ID   string         `json:"id,omitzero"`
				Name string         `json:"name"`
				Args jsontext.Value `json:"args"`
			}
			type turn struct {
				Text  string `json:"text,omitzero"`
				Calls []call `json:"calls,omitzero"`
			}
			file := struct {
				Dialect string `json:"dialect"`
				Model   string `json:"model"`
				Turns   []turn `json:"turns"`
			}{Dialect: "anthropic", Model: "claude-sonnet-4-5"}
			for _, mt := range turns {
				tn := turn{Text: mt.Text}
				for _, c := range mt.Calls {
					tn.Calls = append(tn.Calls, call{ID: c.ID, Name: c.Name, Args: jsontext.Value(c.Args)})
				}
				file.Turns = append(file.Turns, tn)
			}
			if len(file.Turns) == 0 {
				file.Turns = []turn{{Text: "(no turns scripted)"}}
			}
			data, err := json.Marshal(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := replay.Parse("conformance.json", data)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			return modeltest.Backend{Model: m}
		},
	})
}
