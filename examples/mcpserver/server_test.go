package mcpserver_test

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/examples/mcpserver"
)

// TestServer: the example server's tools, as an MCP client sees them.
func TestServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- mcpserver.New().Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close(); cancel(); <-done }()
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
	}
	if want := []string{"cancel_order", "lookup_order", "weekly_report"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup_order", Arguments: map[string]any{"id": "o-00042"}})
	if err != nil || res.IsError {
		t.Fatalf("lookup_order(o-00042) = %+v, %v", res, err)
	}
	if m, ok := res.StructuredContent.(map[string]any); !ok || m["status"] != "in transit, 3 days late" {
		t.Errorf("lookup_order(o-00042) structured content = %#v", res.StructuredContent)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup_order", Arguments: map[string]any{"id": "o-1"}})
	if err != nil || !res.IsError {
		t.Errorf("lookup_order(o-1) = %+v, %v; want isError", res, err)
	}
}
