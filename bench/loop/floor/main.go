// Command floor is the loop benchmark's floor: a plain, hand-written Go
// tool-call loop doing the HTTP and JSON work of bench/loop with
// encoding/json — send the whole history, read the answer (streamed or
// whole), run the calls in parallel, append their results — with nothing
// else: no validation beyond the tool's own check, no shaping, no
// fitting, no checks. It speaks the same peer protocol, in the dialect
// --dialect names; each dialect's loop is in its own file (chat.go,
// responses.go, anthropic.go, gemini.go), and this one holds what they
// share: sending a request, reading server-sent events, running the
// lookups.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/toolwire/toolwire/bench/loop/internal/peer"
)

// prompt is the user's question.
const prompt = "Look up the records."

// The lookup tool's definition, which every dialect sends.
const (
	lookupName        = "lookup"
	lookupDescription = "Looks up the records of a key."
)

// lookupParameters is the lookup tool's parameters, a JSON Schema.
var lookupParameters = json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"},"limit":{"type":"integer"}},"required":["key","limit"]}`)

func main() {
	f := peer.Parse("floor")
	if f.CPUProfile != "" {
		if pf, err := os.Create(f.CPUProfile); err == nil {
			_ = pprof.StartCPUProfile(pf)
			defer pprof.StopCPUProfile()
		}
	}
	tr := &peer.Transport{Base: http.DefaultTransport}
	client := &http.Client{Transport: tr}
	r := peer.Result{Peer: "floor"}
	var err error
	switch f.Dialect {
	case "responses":
		err = runResponses(client, f, &r)
	case "anthropic":
		err = runAnthropic(client, f, &r)
	case "gemini":
		err = runGemini(client, f, &r)
	default:
		err = runChat(client, f, &r)
	}
	if err == nil {
		r.WallS = time.Since(tr.First).Seconds()
	}
	if f.CPUProfile != "" {
		pprof.StopCPUProfile()
	}
	peer.Finish(f, tr, r, err)
}

// post sends body to url with the given headers (besides Content-Type).
// The caller closes the response's body.
func post(client *http.Client, url string, body []byte, header ...string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return client.Do(req)
}

// readJSON decodes a whole answer into v.
func readJSON(resp *http.Response, v any) error {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("bad answer: %v", err)
	}
	return nil
}

// events calls fn with the data of each server-sent event of a streamed
// answer, until fn reports that the answer is done or the stream ends.
func events(resp *http.Response, fn func(data []byte) (done bool, err error)) error {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		done, err := fn([]byte(data))
		if err != nil || done {
			return err
		}
	}
	return sc.Err()
}

// loop runs one dialect's tool-call loop. ask sends the history and
// reads the answer, which it appends to the history; it returns the
// arguments of the answer's calls and the answer's text, the final
// answer when there are no calls. answer appends the calls' results, in
// the calls' order.
func loop(f *peer.Flags, r *peer.Result, ask func() (args []string, text string, err error), answer func(results [][]byte)) error {
	for round := 0; ; round++ {
		args, text, err := ask()
		if err != nil {
			return err
		}
		if len(args) == 0 {
			r.Final = text
			return nil
		}
		if round >= f.MaxRounds {
			return fmt.Errorf("more than %d rounds", f.MaxRounds)
		}
		r.Rounds++
		r.ToolCalls += len(args)
		answer(runAll(args, f))
	}
}

// runAll runs the lookups whose arguments are args, in parallel, and
// returns their results in the same order.
func runAll(args []string, f *peer.Flags) [][]byte {
	out := make([][]byte, len(args))
	var wg sync.WaitGroup
	for i, a := range args {
		wg.Go(func() { out[i] = lookup(a, f) })
	}
	wg.Wait()
	return out
}

// lookup runs the tool: its arguments decoded and checked, its records
// encoded.
func lookup(args string, f *peer.Flags) []byte {
	var a struct {
		Key   string `json:"key"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return []byte(`{"error":"bad arguments"}`)
	}
	if err := peer.CheckArgs(a.Key, a.Limit); err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return b
	}
	if f.ToolDelay > 0 {
		time.Sleep(f.ToolDelay)
	}
	b, _ := json.Marshal(peer.Records(a.Key, f.Records))
	return b
}
