package servertest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/temporal"
	"github.com/toolwire/toolwire/temporal/internal/fixture"
)

// benchTurns is a session of three turns: two rounds of two level_2
// calls, then the answer.
func benchTurns(n int) []llmtest.Turn {
	var out []llmtest.Turn
	for range n {
		out = append(out,
			llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "a"), fixture.Call(fixture.Lookup, "b")}},
			llmtest.Turn{Calls: []llmtest.Call{fixture.Call(fixture.Lookup, "c"), fixture.Call(fixture.Lookup, "d")}},
			llmtest.Turn{Text: "done"})
	}
	return out
}

// BenchmarkSession runs sessions of three turns (two rounds of two tool
// calls, then the answer) on the conformance server: the local loop
// (Agent.Run), and the Temporal workflow on the embedded server with one
// worker in this process, one session at a time and 8 at once. ns/op is
// per session; turn/op reports per turn.
func BenchmarkSession(b *testing.B) {
	b.Run("local", func(b *testing.B) {
		model := llmtest.NewServer(b, benchTurns(b.N)...)
		defer model.Close()
		m, cfg, err := fixture.New(b.TempDir(), model.URL+"/v1")
		if err != nil {
			b.Fatal(err)
		}
		a, err := toolwire.New(m, cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, err := a.Run(context.Background(), "look up four"); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(3*b.N), "µs/turn")
	})
	for _, parallel := range []int{1, 8} {
		b.Run(fmt.Sprintf("temporal/sessions=%d", parallel), func(b *testing.B) {
			ts := temporaltest.NewServer()
			defer ts.Stop()
			model := llmtest.NewServer(b, benchTurns(b.N)...)
			defer model.Close()
			m, cfg, err := fixture.New(b.TempDir(), model.URL+"/v1")
			if err != nil {
				b.Fatal(err)
			}
			rt, err := temporal.New([]temporal.Agent{{Name: fixture.Name, Model: m, Config: cfg}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			ts.NewWorker("bench", func(w worker.Registry) { rt.Register(w) })
			c := ts.GetDefaultClient()
			ctx := context.Background()
			b.ResetTimer()
			var wg sync.WaitGroup
			sem := make(chan struct{}, parallel)
			errs := make(chan error, b.N)
			for range b.N {
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					run, err := temporal.Start(ctx, c, temporal.StartOptions{TaskQueue: "bench", Agent: fixture.Name, Question: "look up four"})
					if err != nil {
						errs <- err
						return
					}
					var res temporal.SessionResult
					if err := run.Get(ctx, &res); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(3*b.N), "µs/turn")
		})
	}
}
