package toolwire_test

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver, for the benchmark only

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/session"
	"github.com/toolwire/toolwire/session/sqlite"
	"github.com/toolwire/toolwire/tool"
)

// eightCalls is an in-process model: a turn of 8 calls, then an answer.
type eightCalls struct{}

func (eightCalls) Dialect() string { return "" }

func (eightCalls) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if req.Messages[len(req.Messages)-1].Role == llm.RoleTool {
			yield(llm.TextDelta{Text: "done"}, nil)
			yield(llm.Finish{Reason: llm.FinishStop}, nil)
			return
		}
		for i := range 8 {
			if !yield(llm.ToolCallDelta{Index: i, ID: fmt.Sprintf("c%d", i), Name: "lookup", Arguments: fmt.Sprintf(`{"n":%d}`, i)}, nil) {
				return
			}
		}
		yield(llm.Finish{Reason: llm.FinishToolCalls}, nil)
	}
}

// BenchmarkDurableTurn measures one turn of the loop with 8 tool results
// (a model call with 8 calls, the 8 calls, the answer), through
// Config.Sessions: every step committed, every call recorded started and
// finished. docs/benchmarks.md has the figures.
func BenchmarkDurableTurn(b *testing.B) {
	type in struct {
		N int `json:"n"`
	}
	result := strings.Repeat("x", 2000) // about 2 KB per result, as the store benchmarks
	lookup := tool.MustFunc("lookup", "Looks up n.", func(ctx context.Context, a in) (string, error) {
		return result, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	for _, store := range []string{"none", "memory", "sqlite"} {
		b.Run(store, func(b *testing.B) {
			var s session.Store
			switch store {
			case "memory":
				s = memStore(b)
			case "sqlite":
				db, err := sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "bench.db")+"?_pragma=busy_timeout(10000)")
				must(b, err)
				b.Cleanup(func() { db.Close() })
				if s, err = sqlite.New(context.Background(), db, nil); err != nil {
					b.Fatal(err)
				}
			}
			a, err := toolwire.New(eightCalls{}, &toolwire.Config{Tools: registry(lookup), Sessions: s})
			must(b, err)
			var steps []time.Duration
			b.ResetTimer()
			for b.Loop() {
				// The tools step is timed apart: the step with 8 results.
				var last time.Time
				for ev, err := range a.Stream(context.Background(), "go") {
					if err != nil {
						b.Fatal(err)
					}
					if se, ok := ev.(toolwire.StepEvent); ok {
						now := time.Now()
						if len(se.Added) == 1 && se.Added[0].Role == llm.RoleTool {
							steps = append(steps, now.Sub(last))
						}
						last = now
					}
				}
			}
			b.StopTimer()
			slices.Sort(steps)
			if n := len(steps); n > 0 {
				b.ReportMetric(float64(steps[n/2].Microseconds())/1000, "step-p50-ms")
				b.ReportMetric(float64(steps[n*99/100].Microseconds())/1000, "step-p99-ms")
			}
		})
	}
}
