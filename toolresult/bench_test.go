package toolresult_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/internal/benchcpu"
	"github.com/toolwire/toolwire/internal/orders"
	"github.com/toolwire/toolwire/toolresult"
)

// peak turns off the peak-heap sampler, whose goroutine would be counted
// as the code measured under callgrind.
var peak = flag.Bool("peak", true, "sample the peak heap of one operation (off under callgrind)")

// peakHeap runs f once and returns how far the heap of live and
// not-yet-swept objects rose above where it stood, sampled every 50 µs.
func peakHeap(f func()) uint64 {
	if !*peak {
		return 0
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(50 * time.Microsecond)
		defer t.Stop()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// BenchmarkShape shapes n order records (about 130 bytes each: 2,300 is
// 300 KB, 23,000 is 3 MB, 230,000 is 30 MB; 30,000 is the 3.9 MB data
// set of the golden tests) into a 2,000-token observation, against the
// floor: encoding/json unmarshalling the same bytes into any. peak-MB is
// the heap's rise during one operation; cpu-ms/op the CPU time of all
// threads per operation, garbage collection included.
func BenchmarkShape(b *testing.B) {
	exact, err := budget.NewExact(budget.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{2_300, 23_000, 30_000, 230_000} {
		// Sizes are named from the record count so that the data is
		// generated inside each sub-benchmark: nothing runs after the
		// one selected (callgrind counts what follows a goroutine switch
		// as the code measured).
		size := fmt.Sprintf("%d-records-%.1fMB", n, float64(n)*float64(len(orders.Generate(100, 1)))/100/1e6)
		b.Run("floor-json.Unmarshal-any/"+size, func(b *testing.B) {
			data := orders.Generate(n, 1)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var v any
			peak := peakHeap(func() { _ = json.Unmarshal(data, &v) })
			benchcpu.Loop(b, 0, func() {
				v = nil
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(peak)/1e6, "peak-MB")
		})
		for _, c := range []struct {
			name string
			ctr  toolresult.Counter
		}{{"estimator", budget.Estimator{}}, {"exact-o200k", exact}} {
			b.Run("shape-"+c.name+"/"+size, func(b *testing.B) {
				data := orders.Generate(n, 1)
				sh, err := toolresult.NewShaper(c.ctr, toolresult.NewMemoryStore(1<<30), nil)
				if err != nil {
					b.Fatal(err)
				}
				env := toolresult.Success("search_orders(q=all)", jsontext.Value(data))
				req := toolresult.Request{Tool: "search_orders", Budget: 2000}
				shape := func() {
					out, err := sh.Shape(ctx, env, req)
					if err != nil || out.Report.TokensAfter > 2000 {
						b.Fatalf("Shape: %v, %d tokens", err, out.Report.TokensAfter)
					}
				}
				peak := peakHeap(shape)
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				benchcpu.Loop(b, 0, shape)
				b.ReportMetric(float64(peak)/1e6, "peak-MB")
			})
		}
	}
}
