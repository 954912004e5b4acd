package server

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwire/toolwire/provider/llmtest"
)

// benchAgent makes two model calls a session: each answers with text
// and a call of echo, and the second turn is the last (max_turns: 2).
const benchAgent = `name: bench
model: openai:gpt-4o-mini
system: You are the benchmark agent.
max_turns: 2
tools:
  - tool: echo
`

// BenchmarkConcurrentSessions runs 200 sessions at once on one server,
// each followed by a client reading its event stream to the end, against
// the conformance test provider, with a SQLite store. It reports the
// events the clients received per second, the live heap per session
// with all 200 open (after a GC, with every stream connected and the runs
// going on) and the memory allocated per session over its whole run.
//
//	go test ./server -run XXX -bench ConcurrentSessions -benchtime 5x
func BenchmarkConcurrentSessions(b *testing.B) {
	const sessions = 200
	h := newHarness(b, options{maxRuns: sessions})
	must(b, os.WriteFile(filepath.Join(h.dir, "bench.yaml"), []byte(benchAgent), 0o600))
	turn := llmtest.Turn{Text: "Checking with echo.", Calls: []llmtest.Call{{Name: "echo", Args: `{"text":"x"}`}}}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: sessions}}
	defer client.CloseIdleConnections()
	var events atomic.Int64
	var elapsed time.Duration
	var heap int64 // live heap with every session open, less the heap before, summed
	var ms0, ms1 runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for range 2 * sessions {
			h.model.Add(turn)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		b.StartTimer()
		began := time.Now()
		var wg, open sync.WaitGroup
		read := make(chan struct{})
		open.Add(sessions)
		for range sessions {
			wg.Go(func() {
				opened := false
				defer func() {
					if !opened {
						open.Done()
					}
				}()
				resp, err := client.Post(h.http.URL+"/v1/sessions", "application/json", strings.NewReader(`{"agent":"bench","message":"Echo x twice"}`))
				if err != nil {
					b.Error(err)
					return
				}
				created := decode[struct {
					Session sessionJSON `json:"session"`
				}](b, readResponse(b, resp), http.StatusCreated)
				resp, err = client.Get(h.http.URL + created.Session.Events)
				if err != nil {
					b.Error(err)
					return
				}
				s := &stream{resp: resp, r: newReader(resp)}
				opened = true
				open.Done()
				<-read // every session is open: the heap is measured
				evs := s.rest(b)
				if len(evs) == 0 || !strings.Contains(types(evs), "done") {
					b.Errorf("session %s: the stream ended without done: %s", created.Session.ID, types(evs))
				}
				events.Add(int64(len(evs)))
			})
		}
		open.Wait()
		runtime.GC()
		var live runtime.MemStats
		runtime.ReadMemStats(&live)
		heap += int64(live.HeapAlloc) - int64(ms0.HeapAlloc)
		close(read)
		wg.Wait()
		elapsed += time.Since(began)
		b.StopTimer()
		runtime.ReadMemStats(&ms1)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(events.Load())/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(events.Load())/float64(b.N*sessions), "events/session")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/sessions, "alloc-B/session")
	b.ReportMetric(float64(heap)/float64(b.N*sessions), "live-B/session")
	if n := h.srv.hubs.count(); n != 0 {
		b.Errorf("%d hubs outlive their sessions", n)
	}
}
