// Command serve runs the example MCP server (package mcpserver) over
// stdio, as an MCP client starts it:
//
//	go run ./examples/mcpserver/serve
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/examples/mcpserver"
)

func main() {
	if err := mcpserver.New().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}
