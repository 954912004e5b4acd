package mcptool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/tool/mcptool"
	"github.com/toolwire/toolwire/toolresult"
)

type cityIn struct {
	City string `json:"city" minLength:"1"`
}

type rowsIn struct {
	N int `json:"n" minimum:"1" maximum:"100000"`
}

type row struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Notes string `json:"notes"`
}

func servedRegistry() *tool.Registry {
	reg := tool.NewRegistry()
	reg.MustAdd(
		tool.MustFunc("get_weather", "Current weather in a city.", func(ctx context.Context, in cityIn) (map[string]any, error) {
			if in.City != "Paris" {
				return nil, tool.Errorf(toolresult.NotFound, "no weather station for %q", in.City)
			}
			tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 1, Message: "station read"})
			return map[string]any{"city": "Paris", "temp_c": 18}, nil
		}, &tool.FuncOptions{Idempotency: tool.Level2}),
		tool.MustFunc("list_rows", "Lists rows.", func(ctx context.Context, in rowsIn) ([]row, error) {
			out := make([]row, in.N)
			for i := range out {
				out[i] = row{ID: i, Name: "row", Notes: strings.Repeat("n", 40)}
			}
			return out, nil
		}, &tool.FuncOptions{Idempotency: tool.Level2}),
	)
	return reg
}

// serve connects a go-sdk client to a ToolServer over in-memory
// transports.
func serve(t *testing.T, opts *mcptool.ToolServerOptions, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ts, err := mcptool.NewToolServer(servedRegistry(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		<-done
		_ = ts.Close(context.Background())
	})
	return cs
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestToolServer: an MCP client gets toolwire's tool messages: results
// shaped to the budget, typed errors with isError, read_result to page
// through what was offloaded, and the tools' progress.
func TestToolServer(t *testing.T) {
	progress := make(chan string, 100)
	cs := serve(t, &mcptool.ToolServerOptions{Budget: 300}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Message
		},
	})
	ctx := context.Background()
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
		if tl.Name == "get_weather" && (tl.Annotations == nil || !tl.Annotations.ReadOnlyHint) {
			t.Errorf("get_weather (level_2) is not annotated read-only: %+v", tl.Annotations)
		}
	}
	if strings.Join(names, ",") != "get_weather,list_rows,read_result" {
		t.Errorf("tools = %v", names)
	}
	for _, tt := range []struct {
		name, args string
		isError    bool
		want       []string
	}{
		{"get_weather", `{"city":"Paris"}`, false, []string{`"status":"success"`, `"data":{"city":"Paris","temp_c":18}`}},
		{"get_weather", `{"city":"Lyon"}`, true, []string{`"type":"not_found"`, `no weather station for \"Lyon\"`}},
		{"get_weather", `{}`, true, []string{`"type":"invalid_arguments"`}},
		{"list_rows", `{"n":500}`, false, []string{`"truncated":true`, `"ref":"`}},
	} {
		params := &mcp.CallToolParams{Name: tt.name, Arguments: jsonArgs(tt.args)}
		params.SetProgressToken("p1")
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("CallTool(%s): %v", tt.name, err)
		}
		got := resultText(res)
		if res.IsError != tt.isError {
			t.Errorf("%s(%s).IsError = %v, want %v: %s", tt.name, tt.args, res.IsError, tt.isError, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s(%s) = %s\nwant it to hold %s", tt.name, tt.args, got, w)
			}
		}
		if tt.name == "list_rows" {
			ref := got[strings.Index(got, `"ref":"`)+7:]
			ref = ref[:strings.IndexByte(ref, '"')]
			page, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_result", Arguments: map[string]any{"ref": ref, "offset": 490, "limit": 5}})
			if err != nil || page.IsError || !strings.Contains(resultText(page), `"id":494`) {
				t.Errorf("read_result(%s) = %v, %v", ref, resultText(page), err)
			}
		}
	}
	if got := <-progress; got != "station read" { // it may come after the result: wait for it
		t.Errorf("progress = %q, want the tool's", got)
	}
}

func jsonArgs(s string) map[string]any {
	m := map[string]any{}
	_ = jsonUnmarshal([]byte(s), &m)
	return m
}
