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

// benchHistory returns the messages of a Chat Completions body of about
// size bytes: a question, then rounds of a call and its result of about
// 2 KB of JSON (20 KB with large), as an agent's history grows (rounds
// returns more of them); broken adds a call left unanswered and a
// question after it.
func benchHistory(size int, large, broken bool) (msgs []llm.Message, rounds func(n int) []llm.Message) {
	note, round := 60, 2300
	if large {
		note, round = 690, 20300
	}
	rec := `{"id":"o-%05d","status":"refunded","total_cents":%d,"items":[{"sku":"CO-0042","qty":2,"name":"Ceramic mug, 350 ml"}],"note":"` + strings.Repeat("customer asked for a refund; ", note) + `"}`
	made := 0
	rounds = func(n int) []llm.Message {
		var out []llm.Message
		for range n {
			id := fmt.Sprintf("call_%d", made)
			out = append(out, llm.Assistant(call(id, "search_orders", fmt.Sprintf(`{"page":%d}`, made))),
				llm.Tool(result(id, "search_orders", fmt.Sprintf(rec, made, 1000+made))))
			made++
		}
		return out
	}
	msgs = []llm.Message{llm.System("You are a concise assistant."), llm.User("Which orders were refunded?")}
	msgs = append(msgs, rounds((size+round-1)/round)...)
	if broken {
		msgs = append(msgs, llm.Assistant(call("call_last", "search_orders", `{"page":0}`)), llm.User("Well?"))
	}
	return msgs, rounds
}

// BenchmarkGatewayOverhead measures, in the same run, a plain
// httputil.ReverseProxy and the gateway in front of one upstream that
// reads the body and answers a small JSON: each iteration sends the body
// once through each (in rotating order), and the benchmark reports
// the wall-clock latency of each (p50, p99), the CPU time per MB of body
// of each (the whole process: client, proxy and upstream, so the
// difference is the gateway's own cost) and their ratio; held-cpu-ratio
// is the same ratio for the plain proxy holding each body in memory
// before forwarding it, which the gateway must do.
//
// "check" is policy pass on an accepted body (judge, forward unchanged)
// as an agent sends it: each iteration's body is the one before with a
// call and its result added, so the gateway judges what each adds
// ([wire.Judge]); "check-whole" sends the same bodies to a gateway that
// remembers nothing (Config.Remember < 0) and judges each whole, as it
// would the first body of each conversation. "check-20KB-results" is the
// same with fewer, larger results (the cost of judging a body whole is
// partly per message, partly per byte). "repair" is policy repair on a
// body with one dangling call, the same body each iteration (judge,
// decode, repair, write, read back, forward).
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
		remember      int64
	}{
		{"check", Pass, false, false, 0}, {"check-whole", Pass, false, false, -1},
		{"check-20KB-results", Pass, true, false, 0}, {"check-20KB-results-whole", Pass, true, false, -1},
		{"repair", Repair, false, true, 0},
	} {
		g, err := New(&Config{OpenAI: up.URL, Policy: mode.policy, Transport: transport(), Remember: mode.remember})
		if err != nil {
			b.Fatal(err)
		}
		gw := httptest.NewServer(g)
		for _, size := range []int{1 << 20, 10 << 20} {
			msgs, rounds := benchHistory(size, mode.large, mode.broken)
			data := body(b, transcript.OpenAIChat, msgs, false)
			data = append(make([]byte, 0, 2*len(data)), data...)
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
				i, sent := 0, 0
				for b.Loop() {
					if !mode.broken && i > 0 {
						data = grow(b, data, rounds(1))
					}
					sent += len(data)
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
				mb := float64(sent) / 1e6
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

// grow returns data, a Chat body whose messages array closes it, with
// msgs added to the array, in place when data has the room, as an agent
// sends its next request without leaving the last one to collect.
func grow(b *testing.B, data []byte, msgs []llm.Message) []byte {
	_, elems, ok := bytes.Cut(body(b, transcript.OpenAIChat, msgs, false), []byte(`"messages":[`))
	if !ok || !bytes.HasSuffix(data, []byte("]}")) {
		b.Fatal("not a body whose messages array closes it")
	}
	data = append(data[:len(data)-2], ',')
	return append(data, elems...) // elems ends with the array's "]}"
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
