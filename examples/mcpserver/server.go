// Package mcpserver is a small MCP server for the examples: the order
// desk of the example shop, written with the official MCP Go SDK. Its
// main package, examples/mcpserver/serve, serves it over stdio; the agent
// file examples/agent/mcp.yaml starts it and gives the model its tools.
//
// Its tools are deterministic, and each shows one thing toolwire does
// with an MCP tool:
//
//   - lookup_order: structured content with an output schema (the data
//     of the tool message); an unknown order is an isError result that
//     becomes a not_found error;
//   - weekly_report: progress notifications while it works;
//   - cancel_order: annotated destructive, so each call waits for a
//     person's approval.
package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Order is what lookup_order returns.
type Order struct {
	ID       string   `json:"id"`
	Status   string   `json:"status"`
	TotalEUR float64  `json:"total_eur"`
	Items    []string `json:"items"`
}

var orders = map[string]Order{
	"o-00042": {ID: "o-00042", Status: "in transit, 3 days late", TotalEUR: 86.40, Items: []string{"CO-0042 coffee grinder", "FI-0007 paper filters"}},
	"o-00043": {ID: "o-00043", Status: "delivered", TotalEUR: 12.90, Items: []string{"TE-0001 green tea"}},
}

type lookupIn struct {
	ID string `json:"id" jsonschema:"the order id, e.g. o-00042"`
}

type cancelIn struct {
	ID     string `json:"id" jsonschema:"the order id"`
	Reason string `json:"reason,omitempty" jsonschema:"why, for the customer"`
}

// New returns the server.
func New() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "order-desk", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "lookup_order",
		Description: "Looks up an order by id: its status, total and items.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, Order, error) {
		o, ok := orders[strings.ToLower(strings.TrimSpace(in.ID))]
		if !ok {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("order %q not found; order ids look like o-00042", in.ID)}}}, Order{}, nil
		}
		return nil, o, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "weekly_report",
		Description: "Builds this week's sales report; reports its progress.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		steps := []string{"orders read", "refunds read", "totals computed"}
		if tok := req.Params.GetProgressToken(); tok != nil {
			for i, st := range steps {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Total: float64(len(steps)), Message: st})
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Week 49: 212 orders, 9 refunds, 18,340.50 EUR in sales."}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "cancel_order",
		Description: "Cancels an order and refunds the customer. Cannot be undone.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in cancelIn) (*mcp.CallToolResult, any, error) {
		if _, ok := orders[in.ID]; !ok {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("order %q not found", in.ID)}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "order " + in.ID + " cancelled; the refund is on its way"}}}, nil, nil
	})
	return s
}

var yes = true
