// Command floor is the loop benchmark's floor: a plain, hand-written Go
// tool-call loop doing the HTTP and JSON work of bench/loop — send the
// whole history, read the answer (streamed or whole), run the calls in
// parallel, append their results — with nothing else: no validation
// beyond the tool's own check, no shaping, no fitting, no checks. It
// speaks the same peer protocol.
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

type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type request struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Tools    []any     `json:"tools"`
	Stream   bool      `json:"stream,omitempty"`
}

var lookupTool = map[string]any{"type": "function", "function": map[string]any{
	"name": "lookup", "description": "Looks up the records of a key.",
	"parameters": map[string]any{"type": "object", "properties": map[string]any{
		"key": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer"}}, "required": []string{"key", "limit"}},
}}

func str(s string) *string { return &s }

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
	msgs := []message{{Role: "user", Content: str("Look up the records.")}}
	var runErr error
	for round := 0; ; round++ {
		body, err := json.Marshal(request{Model: "gpt-4o", Messages: msgs, Tools: []any{lookupTool}, Stream: f.Stream})
		if err != nil {
			runErr = err
			break
		}
		reply, err := ask(client, f.URL, body, f.Stream)
		if err != nil {
			runErr = err
			break
		}
		msgs = append(msgs, reply)
		if len(reply.ToolCalls) == 0 {
			if reply.Content != nil {
				r.Final = *reply.Content
			}
			r.WallS = time.Since(tr.First).Seconds()
			break
		}
		if round >= f.MaxRounds {
			runErr = fmt.Errorf("more than %d rounds", f.MaxRounds)
			break
		}
		r.Rounds++
		r.ToolCalls += len(reply.ToolCalls)
		results := make([]message, len(reply.ToolCalls))
		var wg sync.WaitGroup
		for i, c := range reply.ToolCalls {
			wg.Go(func() {
				results[i] = message{Role: "tool", ToolCallID: c.ID, Content: str(lookup(c.Function.Arguments, f))}
			})
		}
		wg.Wait()
		msgs = append(msgs, results...)
	}
	if f.CPUProfile != "" {
		pprof.StopCPUProfile()
	}
	peer.Finish(f, tr, r, runErr)
}

// lookup runs the tool: its arguments decoded and checked, its records
// encoded.
func lookup(args string, f *peer.Flags) string {
	var a struct {
		Key   string `json:"key"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return `{"error":"bad arguments"}`
	}
	if err := peer.CheckArgs(a.Key, a.Limit); err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return string(b)
	}
	if f.ToolDelay > 0 {
		time.Sleep(f.ToolDelay)
	}
	b, _ := json.Marshal(peer.Records(a.Key, f.Records))
	return string(b)
}

// ask sends one request and reads the assistant message.
func ask(client *http.Client, url string, body []byte, stream bool) (message, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return message{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return message{}, err
	}
	defer resp.Body.Close()
	if !stream {
		var out struct {
			Choices []struct {
				Message message `json:"message"`
			} `json:"choices"`
		}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return message{}, err
		}
		if err := json.Unmarshal(data, &out); err != nil || len(out.Choices) == 0 {
			return message{}, fmt.Errorf("bad answer: %v", err)
		}
		return out.Choices[0].Message, nil
	}
	msg := message{Role: "assistant"}
	var text strings.Builder
	byIndex := map[int]int{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			break
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(line), &chunk); err != nil {
			return message{}, err
		}
		for _, ch := range chunk.Choices {
			text.WriteString(ch.Delta.Content)
			for _, d := range ch.Delta.ToolCalls {
				i, ok := byIndex[d.Index]
				if !ok {
					i = len(msg.ToolCalls)
					byIndex[d.Index] = i
					msg.ToolCalls = append(msg.ToolCalls, toolCall{Type: "function"})
				}
				c := &msg.ToolCalls[i]
				if d.ID != "" {
					c.ID = d.ID
				}
				c.Function.Name += d.Function.Name
				c.Function.Arguments += d.Function.Arguments
			}
		}
	}
	if err := sc.Err(); err != nil {
		return message{}, err
	}
	if text.Len() > 0 || len(msg.ToolCalls) == 0 {
		msg.Content = str(text.String())
	}
	return msg, nil
}
