package mcptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// The tests' MCP server runs in the test binary itself: as a child
// process (a stdio server) when MCPTEST_SERVE is set, or in process
// behind an httptest.Server.
func TestMain(m *testing.M) {
	switch os.Getenv("MCPTEST_SERVE") {
	case "":
	case "mute": // a server that never answers
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	default:
		serveStdio()
		return
	}
	goleak.VerifyTestMain(m)
}

func serveStdio() {
	ts := newTestServer(func(name string) {
		if mark := os.Getenv("MCPTEST_MARK"); mark != "" {
			_ = os.WriteFile(mark, []byte(name), 0o600)
		}
	})
	if err := ts.srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest server:", err)
		os.Exit(1)
	}
}

// testServer is an MCP server with a tool for every case the tests need.
type testServer struct {
	srv *mcp.Server
	// cancelled is told the name of a tool whose call was cancelled.
	cancelled func(name string)
	// progressed, when set, is closed by the client once it has seen the
	// progress of slow, which waits for it (in process only).
	progressed chan struct{}
	// listed is closed at the first tools/list after install added a tool.
	mu        sync.Mutex
	installed bool
	listed    chan struct{}
}

func obj(props string, required ...string) json.RawMessage {
	req := ""
	if len(required) > 0 {
		req = `,"required":["` + strings.Join(required, `","`) + `"]`
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `}` + req + `}`)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// tinyPNG is a 2×1 PNG.
func tinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

func yes() *bool { b := true; return &b }

func newTestServer(cancelled func(string)) *testServer {
	ts := &testServer{cancelled: cancelled, listed: make(chan struct{})}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, &mcp.ServerOptions{PageSize: 3})
	ts.srv = s
	add := func(t *mcp.Tool, h mcp.ToolHandler) {
		if t.InputSchema == nil {
			t.InputSchema = obj("")
		}
		s.AddTool(t, h)
	}
	args := func(req *mcp.CallToolRequest) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	add(&mcp.Tool{Name: "echo", Description: "Echoes its text.", InputSchema: obj(`"text":{"type":"string"}`, "text"),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprint(args(req)["text"])), nil
		})
	weatherOut := obj(`"city":{"type":"string"},"temp_c":{"type":"number"}`, "city", "temp_c")
	add(&mcp.Tool{Name: "weather", Description: "Current weather.", InputSchema: obj(`"city":{"type":"string"}`, "city"), OutputSchema: weatherOut,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			city := fmt.Sprint(args(req)["city"])
			if city == "Atlantis" { // breaks its own output schema
				return &mcp.CallToolResult{StructuredContent: map[string]any{"city": city, "temp_c": "warm"},
					Content: []mcp.Content{&mcp.TextContent{Text: `{"city":"Atlantis","temp_c":"warm"}`}}}, nil
			}
			return &mcp.CallToolResult{StructuredContent: map[string]any{"city": city, "temp_c": 18},
				Content: []mcp.Content{&mcp.TextContent{Text: `{"city":"` + city + `","temp_c":18}`}}}, nil
		})
	add(&mcp.Tool{Name: "contents", Description: "Returns one part of every kind."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			size := int64(42)
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "hello"},
				&mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG()},
				&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF....WAVE")},
				&mcp.ResourceLink{URI: "file:///report.pdf", Name: "report.pdf", MIMEType: "application/pdf", Size: &size},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "a note"}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///blob.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}},
			}}, nil
		})
	add(&mcp.Tool{Name: "picture", Description: "Returns an image."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG()}}}, nil
		})
	add(&mcp.Tool{Name: "lookup_order", Description: "Finds an order.", InputSchema: obj(`"id":{"type":"string"}`, "id")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := text(fmt.Sprintf("order %v not found", args(req)["id"]))
			res.IsError = true
			return res, nil
		})
	add(&mcp.Tool{Name: "hang", Description: "Never returns until cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			ts.cancelled("hang")
			return nil, ctx.Err()
		})
	add(&mcp.Tool{Name: "crash", Description: "Exits the server process."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if os.Getenv("MCPTEST_SERVE") != "" {
				os.Exit(3)
			}
			return text("not a process of its own"), nil
		})
	add(&mcp.Tool{Name: "garble", Description: "Writes garbage where the protocol wants JSON."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if os.Getenv("MCPTEST_SERVE") != "" {
				os.Stdout.WriteString("this is not JSON-RPC\n")
			}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	add(&mcp.Tool{Name: "big", Description: "Returns n bytes of text.", InputSchema: obj(`"n":{"type":"integer"}`, "n")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, _ := args(req)["n"].(float64)
			return text(strings.Repeat("x", int(n))), nil
		})
	add(&mcp.Tool{Name: "slow", Description: "Reports its progress."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 2; i++ {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: fmt.Sprintf("step %d", i)})
				}
				if ts.progressed != nil {
					select {
					case <-ts.progressed:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
			}
			return text("done"), nil
		})
	add(&mcp.Tool{Name: "delete_all", Description: "Deletes everything.", Annotations: &mcp.ToolAnnotations{DestructiveHint: yes()}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("deleted"), nil
		})
	add(&mcp.Tool{Name: "set_value", Description: "Sets a value.", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			key, _ := req.Params.Meta["toolwire/idempotencyKey"].(string)
			return text("key " + key), nil
		})
	add(&mcp.Tool{Name: "dotted.name", Description: "A name some providers refuse."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("ok"), nil
		})
	add(&mcp.Tool{Name: "install", Description: "Adds the tool added."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ts.mu.Lock()
			ts.installed = true
			ts.mu.Unlock()
			s.AddTool(&mcp.Tool{Name: "added", Description: "Came later.", InputSchema: obj("")},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("I am new"), nil
				})
			// Answer once the client has asked for the new list.
			select {
			case <-ts.listed:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return text("installed"), nil
		})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				ts.mu.Lock()
				if ts.installed {
					select {
					case <-ts.listed:
					default:
						close(ts.listed)
					}
				}
				ts.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return ts
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
