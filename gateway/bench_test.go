package gateway

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolwire/toolwire/internal/benchcpu"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/transcript"
)

// benchHistory returns a Chat Completions body of about size bytes: a
// question, then rounds of a call and its result of about 2 KB of JSON
// (20 KB with large), as an agent's history grows; broken leaves the last
// call unanswered.
func benchHistory(b *testing.B, size int, large, broken bool) []byte {
	msgs := []llm.Message{llm.System("You are a concise assistant."), llm.User("Which orders were refunded?")}
	note, round := 60, 2300
	if large {
		note, round = 690, 20300
	}
	rec := `{"id":"o-%05d","status":"refunded","total_cents":%d,"items":[{"sku":"CO-0042","qty":2,"name":"Ceramic mug, 350 ml"}],"note":"` + strings.Repeat("customer asked for a refund; ", note) + `"}`
	for n := 0; n*round < size; n++ {
		id := fmt.Sprintf("call_%d", n)
		msgs = append(msgs, llm.Assistant(call(id, "search_orders", fmt.Sprintf(`{"page":%d}`, n))),
			llm.Tool(result(id, "search_orders", fmt.Sprintf(rec, n, 1000+n))))
	}
	if broken {
		msgs = append(msgs, llm.Assistant(call("call_last", "search_orders", `{"page":0}`)), llm.User("Well?"))
	} else {
		msgs = append(msgs, llm.User("Summarize."))
	}
	return body(b, transcript.OpenAIChat, msgs, false)
}

// BenchmarkGatewayOverhead measures, in the same run, a plain
// httputil.ReverseProxy and the gateway in front of one upstream that
// reads the body and answers a small JSON: each iteration sends the body
// once through each (in rotating order), and the benchmark reports
// the wall-clock latency of each (p50, p99), the CPU time per MB of body
// of each (the whole process: client, proxy and upstream, so the
// difference is the gateway's own cost) and their ratio; held-cpu-ratio
// is the same ratio for the plain proxy holding each body in memory
// before forwarding it, which the gateway must do. "check" is
// policy pass on an accepted body (decode and check, forward unchanged);
// "check-20KB-results" is the same with fewer, larger results (the
// check's cost is partly per message, partly per byte); "repair" is policy
// repair on a body with one dangling call.
func BenchmarkGatewayOverhead(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer up.Close()
	target, _ := url.Parse(up.URL)
	transport := func() *http.Transport {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		return t
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }, FlushInterval: -1, Transport: transport()}
	plain := httptest.NewServer(proxy)
	defer plain.Close()
	// held is the plain proxy holding each body in memory before it
	// forwards it, as the gateway does (hold, the same pooled buffers):
	// the floor of any gateway that reads the body before sending it.
	held := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, body, err := hold(r.Body, r.ContentLength, 64<<20)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer h.release()
		r.Body = h.upstream(body)
		proxy.ServeHTTP(w, r)
	}))
	defer held.Close()
	client := &http.Client{Transport: transport()}
	for _, mode := range []struct {
		name          string
		policy        Policy
		large, broken bool
	}{{"check", Pass, false, false}, {"check-20KB-results", Pass, true, false}, {"repair", Repair, false, true}} {
		g, err := New(&Config{OpenAI: up.URL, Policy: mode.policy, Transport: transport()})
		if err != nil {
			b.Fatal(err)
		}
		gw := httptest.NewServer(g)
		for _, size := range []int{1 << 20, 10 << 20} {
			data := benchHistory(b, size, mode.large, mode.broken)
			b.Run(fmt.Sprintf("%s/%dMB", mode.name, size>>20), func(b *testing.B) {
				send := func(base string) (time.Duration, time.Duration) {
					cpu, start := benchcpu.Time(), time.Now()
					resp, err := client.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(data))
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Fatalf("status %d", resp.StatusCode)
					}
					return time.Since(start), benchcpu.Time() - cpu
				}
				var plainLat, gwLat []time.Duration
				var plainCPU, heldCPU, gwCPU time.Duration
				i := 0
				for b.Loop() {
					for k := range 3 {
						switch (i + k) % 3 {
						case 0:
							l, c := send(plain.URL)
							plainLat, plainCPU = append(plainLat, l), plainCPU+c
						case 1:
							_, c := send(held.URL)
							heldCPU += c
						case 2:
							l, c := send(gw.URL)
							gwLat, gwCPU = append(gwLat, l), gwCPU+c
						}
					}
					i++
				}
				mb := float64(len(data)) / 1e6 * float64(i)
				ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
				b.ReportMetric(ms(quantile(plainLat, 0.5)), "plain-p50-ms")
				b.ReportMetric(ms(quantile(plainLat, 0.99)), "plain-p99-ms")
				b.ReportMetric(ms(quantile(gwLat, 0.5)), "gw-p50-ms")
				b.ReportMetric(ms(quantile(gwLat, 0.99)), "gw-p99-ms")
				b.ReportMetric(ms(plainCPU)/mb, "plain-cpu-ms/MB")
				b.ReportMetric(ms(gwCPU)/mb, "gw-cpu-ms/MB")
				b.ReportMetric(float64(gwCPU)/float64(plainCPU), "cpu-ratio")
				b.ReportMetric(float64(heldCPU)/float64(plainCPU), "held-cpu-ratio")
				b.ReportMetric(0, "ns/op")
			})
		}
		gw.Close()
	}
}

// quantile returns the q quantile of ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
