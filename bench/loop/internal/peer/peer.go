// Package peer is what the loop benchmark's peers share: the flags of the
// common peer protocol, the lookup tool's records, the counting HTTP
// transport and the one JSON line each peer prints.
package peer

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Flags are the peer protocol's flags.
type Flags struct {
	URL          string
	Dialect      string
	Records      int
	Stream       bool
	ToolDelay    time.Duration
	ExpectRounds int
	ExpectCalls  int
	MaxRounds    int
	Label        string
	CPUProfile   string
}

// Parse reads the flags.
func Parse(name string) *Flags {
	f := &Flags{}
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.StringVar(&f.URL, "url", "", "base URL of the API, as bench/loop/server prints it for --dialect")
	fs.StringVar(&f.Dialect, "dialect", "chat", "the protocol: "+strings.Join(Dialects, ", "))
	fs.IntVar(&f.Records, "records", 100, "records each lookup returns")
	fs.BoolVar(&f.Stream, "stream", false, "stream the model's answers")
	fs.DurationVar(&f.ToolDelay, "tool-delay", 0, "how long each lookup takes")
	fs.IntVar(&f.ExpectRounds, "expect-rounds", -1, "rounds of tool calls expected (-1: any)")
	fs.IntVar(&f.ExpectCalls, "expect-calls", -1, "tool calls expected (-1: any)")
	fs.IntVar(&f.MaxRounds, "max-rounds", 100, "the most rounds of tool calls")
	fs.StringVar(&f.Label, "label", "", "a label echoed in the result")
	fs.StringVar(&f.CPUProfile, "cpuprofile", "", "write a CPU profile to this file")
	_ = fs.Parse(os.Args[1:])
	if f.URL == "" {
		fmt.Fprintln(os.Stderr, name+": --url is required")
		os.Exit(2)
	}
	if !slices.Contains(Dialects, f.Dialect) {
		fmt.Fprintf(os.Stderr, "%s: --dialect %q is not one of %s\n", name, f.Dialect, strings.Join(Dialects, ", "))
		os.Exit(2)
	}
	return f
}

// Dialects are the protocols a peer speaks: OpenAI Chat Completions and
// Responses, Anthropic Messages, Gemini generateContent.
var Dialects = []string{"chat", "responses", "anthropic", "gemini"}

// Record is one record of the lookup tool's result.
type Record struct {
	ID       int    `json:"id"`
	Key      string `json:"key"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Value    int    `json:"value"`
	Active   bool   `json:"active"`
}

// Records returns the n records a lookup of key returns.
func Records(key string, n int) []Record {
	out := make([]Record, n)
	for i := range out {
		id := i + 1
		out[i] = Record{ID: id, Key: key, Name: fmt.Sprintf("record-%06d", id), Category: fmt.Sprintf("cat-%02d", id%10),
			Value: (id * 7919) % 100000, Active: id%3 != 0}
	}
	return out
}

// CheckArgs is the lookup tool's own check, for a peer without schema
// validation.
func CheckArgs(key string, limit int) error {
	if key == "" {
		return fmt.Errorf("key is empty")
	}
	if limit < 1 || limit > 1000 {
		return fmt.Errorf("limit %d is outside 1–1000", limit)
	}
	return nil
}

// Transport counts the requests and the bytes sent, remembers when the
// first request started, and fails on any answer that is not 200.
type Transport struct {
	Base     http.RoundTripper
	mu       sync.Mutex
	Requests int
	Bytes    int64
	First    time.Time
	Bad      string
}

func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	if t.Requests == 0 {
		t.First = time.Now()
	}
	t.Requests++
	if req.ContentLength > 0 {
		t.Bytes += req.ContentLength
	}
	t.mu.Unlock()
	resp, err := t.Base.RoundTrip(req)
	if err == nil && resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		t.mu.Lock()
		if t.Bad == "" {
			t.Bad = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, b)
		}
		t.mu.Unlock()
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	return resp, err
}

// Result is the line a peer prints.
type Result struct {
	Peer      string  `json:"peer"`
	Label     string  `json:"label"`
	Dialect   string  `json:"dialect"`
	Stream    bool    `json:"stream"`
	WallS     float64 `json:"wall_s"`
	Rounds    int     `json:"rounds"`
	ToolCalls int     `json:"tool_calls"`
	Requests  int     `json:"requests"`
	BytesSent int64   `json:"bytes_sent"`
	PeakRSSKB int64   `json:"peak_rss_kb"`
	Final     string  `json:"final"`
}

// Finish prints the result line and exits: 1 on a non-200 answer, an
// error or a count that is not the one expected.
func Finish(f *Flags, t *Transport, r Result, runErr error) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	r.Label, r.Dialect, r.Stream = f.Label, f.Dialect, f.Stream
	r.Requests, r.BytesSent = t.Requests, t.Bytes
	r.PeakRSSKB = ru.Maxrss
	r.WallS, _ = strconv.ParseFloat(strconv.FormatFloat(r.WallS, 'f', 3, 64), 64)
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	code := 0
	switch {
	case t.Bad != "":
		fmt.Fprintln(os.Stderr, r.Peer+": non-200 answer:", t.Bad)
		code = 1
	case runErr != nil:
		fmt.Fprintln(os.Stderr, r.Peer+":", runErr)
		code = 1
	case f.ExpectRounds >= 0 && r.Rounds != f.ExpectRounds:
		fmt.Fprintf(os.Stderr, "%s: %d rounds, want %d\n", r.Peer, r.Rounds, f.ExpectRounds)
		code = 1
	case f.ExpectCalls >= 0 && r.ToolCalls != f.ExpectCalls:
		fmt.Fprintf(os.Stderr, "%s: %d tool calls, want %d\n", r.Peer, r.ToolCalls, f.ExpectCalls)
		code = 1
	}
	os.Exit(code)
}
