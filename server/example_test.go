package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/examples/agent"
	"github.com/toolwire/toolwire/internal/sse"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/server"
	"github.com/toolwire/toolwire/session/memory"
)

// A server over the bundled example agents, whose model replays its
// recorded turns: a client starts a session and reads its event stream,
// which ends with the run.
func Example() {
	store, _ := memory.New(nil)
	srv, err := server.New(&server.Config{
		Store:  store,
		Agents: "../examples/agent",
		Build: func(def *agentfile.Definition) (llm.Model, *toolwire.Config, error) {
			return def.Build(&agentfile.Options{Tools: agent.NewSet(nil).Registry(), Replay: true, Model: "replay:" + def.Replay})
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Shutdown(context.Background())

	resp, err := http.Post(ts.URL+"/v1/sessions", "application/json", strings.NewReader(`{"agent":"agent","message":"北京今天适合穿什么衣服"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	var created struct {
		Session struct {
			Events string `json:"events"`
		} `json:"session"`
	}
	_ = json.Unmarshal(mustRead(resp), &created)
	fmt.Println(resp.StatusCode) // the run goes on: follow its events

	resp, err = http.Get(ts.URL + created.Session.Events)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	events := sse.NewReader(resp.Body, 0)
	for {
		ev, err := events.Next()
		if err != nil {
			break
		}
		if ev.Type == "tool_call" || ev.Type == "done" {
			var d struct {
				Tool   string `json:"tool"`
				Reason string `json:"reason"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			fmt.Println(ev.Type, d.Tool+d.Reason)
		}
	}
	// Output:
	// 201
	// tool_call get_weather
	// done answered
}

func mustRead(resp *http.Response) []byte {
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}
