// Command loop runs toolwire's agent loop against a model endpoint of one
// of four dialects (--dialect: OpenAI Chat Completions or Responses,
// Anthropic Messages, Gemini generateContent) and speaks the loop
// benchmark's peer protocol: one tool,
// lookup(key, limit), that returns --records records; the loop timed from
// its first request to the final answer; one JSON line on stdout; exit 1
// on a non-200 answer or a count that is not the one expected.
// bench/loop/run.sh runs it against bench/loop/server beside the floor,
// a hand-written loop doing the same HTTP and JSON work
// (docs/benchmarks.md).
package main

import (
	"context"
	"net/http"
	"os"
	"runtime/pprof"
	"time"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/bench/loop/internal/peer"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/anthropic"
	"github.com/toolwire/toolwire/provider/gemini"
	"github.com/toolwire/toolwire/provider/openai"
	"github.com/toolwire/toolwire/tool"
)

func main() {
	f := peer.Parse("loop")
	if f.CPUProfile != "" {
		pf, err := os.Create(f.CPUProfile)
		if err == nil {
			_ = pprof.StartCPUProfile(pf)
			defer pprof.StopCPUProfile()
		}
	}
	tr := &peer.Transport{Base: http.DefaultTransport}
	model, err := open(f, &http.Client{Transport: tr})
	if err != nil {
		peer.Finish(f, tr, peer.Result{Peer: "toolwire"}, err)
	}
	type in struct {
		Key   string `json:"key" minLength:"1"`
		Limit int    `json:"limit" minimum:"1" maximum:"1000"`
	}
	lookup := tool.MustFunc("lookup", "Looks up the records of a key.", func(ctx context.Context, a in) ([]peer.Record, error) {
		if f.ToolDelay > 0 {
			time.Sleep(f.ToolDelay)
		}
		return peer.Records(a.Key, f.Records), nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	reg := tool.NewRegistry()
	reg.MustAdd(lookup)
	// gpt-4o's limits (a 128k window, exact o200k counts) in every
	// dialect, so that the dialect is all that differs between runs.
	limits, _ := budget.DefaultTable().Lookup("gpt-4o")
	cfg := &toolwire.Config{Tools: reg, MaxTurns: f.MaxRounds + 1, Limits: limits}
	if os.Getenv("LOOP_COUNTER") == "estimate" {
		cfg.Counter = budget.Estimator{} // the calibrated estimator instead of exact o200k
	}
	agent, err := toolwire.New(model, cfg)
	if err != nil {
		peer.Finish(f, tr, peer.Result{Peer: "toolwire"}, err)
	}
	r := peer.Result{Peer: "toolwire"}
	rounds := map[int]bool{}
	var runErr error
	for ev, err := range agent.Stream(context.Background(), "Look up the records.") {
		if err != nil {
			runErr = err
			break
		}
		switch ev := ev.(type) {
		case toolwire.CallEvent:
			r.ToolCalls++
			rounds[ev.Turn] = true
		case toolwire.DoneEvent:
			r.Final = ev.Result.Answer
			r.WallS = time.Since(tr.First).Seconds()
		}
	}
	r.Rounds = len(rounds)
	if f.CPUProfile != "" {
		pprof.StopCPUProfile()
	}
	peer.Finish(f, tr, r, runErr)
}

// open returns the client of f's dialect, with no retries: a failed
// request fails the run. The Responses client keeps the answers on the
// server (Config.Store) and sends each turn's new items after
// previous_response_id, as the loop keeps the id in its State.
func open(f *peer.Flags, hc *http.Client) (llm.Model, error) {
	opts := provider.Options{BaseURL: f.URL, NoStream: !f.Stream, HTTPClient: hc, MaxRetries: -1}
	switch f.Dialect {
	case "responses":
		return openai.NewResponses("gpt-4o", &openai.Config{Options: opts, Store: true})
	case "anthropic":
		return anthropic.NewClient("claude-sonnet-4-5", &anthropic.Config{Options: opts})
	case "gemini":
		return gemini.NewClient("gemini-2.5-flash", &gemini.Config{Options: opts})
	}
	return openai.NewChat("gpt-4o", &openai.Config{Options: opts})
}
