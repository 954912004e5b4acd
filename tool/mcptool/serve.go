package mcptool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// ToolServerOptions configures a [ToolServer]. A nil *ToolServerOptions, or a zero
// field, means the documented default.
type ToolServerOptions struct {
	// Name and Version are what the server tells clients; defaults
	// "toolwire" and "dev".
	Name, Version string
	// Executor configures the calls: timeouts, retries, the approver of
	// tools that need approval (none: their calls are refused). Its
	// Shaper is the server's. nil means the executor's defaults.
	Executor *tool.Config
	// Budget is the most tokens one result may take once shaped; 0
	// means the shaper's default (4,000).
	Budget int
	// Counter counts tokens for shaping; nil means the estimator.
	Counter toolresult.Counter
	// Store keeps the results shaping offloads, which read_result pages
	// through; nil means an in-memory store. Each client session's
	// results are kept apart.
	Store toolresult.Store
}

// A ToolServer offers the tools of a registry to MCP clients. Each call runs
// through a [tool.Executor] — arguments validated, defaults filled,
// timeouts, retries by idempotency level — and its result is shaped by
// the observation pipeline (toolresult) to the budget, then sent as the
// text of the tool message toolwire would give a model (with isError on
// failures, and images as image content): a client that cannot shape
// results gets toolwire's. read_result is offered too, to page through
// what shaping offloaded. Progress a tool reports reaches a client that
// asked for it.
type ToolServer struct {
	srv    *mcp.Server
	exec   *tool.Executor
	budget int
	calls  atomic.Int64
}

// NewToolServer returns a server of reg's tools, with read_result added. A
// tool's level gives its annotations: level_2 is readOnlyHint, level_1
// idempotentHint; a tool that needs approval is destructiveHint.
func NewToolServer(reg *tool.Registry, opts *ToolServerOptions) (*ToolServer, error) {
	var o ToolServerOptions
	if opts != nil {
		o = *opts
	}
	o.Name = cmp.Or(o.Name, "toolwire")
	o.Version = cmp.Or(o.Version, "dev")
	if o.Counter == nil {
		c, err := budget.NewCounter(budget.Estimated)
		if err != nil {
			return nil, fmt.Errorf("mcptool: new server: %w", err)
		}
		o.Counter = c
	}
	if o.Store == nil {
		o.Store = toolresult.NewMemoryStore(0)
	}
	sh, err := toolresult.NewShaper(o.Counter, o.Store, nil)
	if err != nil {
		return nil, fmt.Errorf("mcptool: new server: %w", err)
	}
	served := tool.NewRegistry()
	served.Sync(reg)
	if _, ok := served.Lookup(tool.ReadResultName); !ok {
		rr, err := tool.ReadResult(sh)
		if err != nil {
			return nil, fmt.Errorf("mcptool: new server: %w", err)
		}
		if err := served.Add(rr); err != nil {
			return nil, fmt.Errorf("mcptool: new server: %w", err)
		}
	}
	var ec tool.Config
	if o.Executor != nil {
		ec = *o.Executor
	}
	ec.Shaper, ec.Images = sh, toolresult.InlineImages
	exec, err := tool.NewExecutor(served, &ec)
	if err != nil {
		return nil, fmt.Errorf("mcptool: new server: %w", err)
	}
	s := &ToolServer{srv: mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, nil), exec: exec, budget: o.Budget}
	for _, spec := range served.Specs() {
		t := &mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: schemaOf(spec.Parameters)}
		a := &mcp.ToolAnnotations{ReadOnlyHint: spec.Idempotency == tool.Level2, IdempotentHint: spec.Idempotency == tool.Level1 || spec.Idempotency == tool.Level2}
		if spec.RequiresApproval {
			yes := true
			a.DestructiveHint = &yes
		}
		t.Annotations = a
		s.srv.AddTool(t, s.handler(spec.Name))
	}
	return s, nil
}

// schemaOf is a tool's parameters as the SDK wants an input schema.
func schemaOf(params jsontext.Value) jsontext.Value {
	if len(params) == 0 || string(params) == "null" {
		return jsontext.Value(`{"type":"object"}`)
	}
	return params
}

// MCP returns the SDK's server, to run over any transport.
func (s *ToolServer) MCP() *mcp.Server { return s.srv }

// Run serves one client over t until it goes away or ctx is done.
func (s *ToolServer) Run(ctx context.Context, t mcp.Transport) error {
	return s.srv.Run(ctx, t)
}

// Close waits for the calls that ignored their cancellation (see
// [tool.Executor.Close]), or until ctx is done.
func (s *ToolServer) Close(ctx context.Context) error {
	return s.exec.Close(ctx)
}

// handler runs one call of the tool name.
func (s *ToolServer) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id := fmt.Sprintf("mcp_%d", s.calls.Add(1))
		if req.Session != nil {
			ctx = toolresult.WithScope(ctx, "mcp:"+req.Session.ID())
		}
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			ss := req.Session
			ctx = tool.WithProgress(ctx, func(ctx context.Context, p tool.Progress) {
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p.Progress, Total: p.Total, Message: p.Message})
			})
		}
		args := jsontext.Value(req.Params.Arguments)
		if len(args) == 0 {
			args = jsontext.Value("{}")
		}
		out := s.exec.RunWithin(ctx, []llm.ToolCall{{ID: id, Name: name, Input: args}}, s.budget)[0]
		if out.Cancelled != "" && ctx.Err() != nil {
			return nil, errors.Join(ctx.Err(), errors.New("the call was cancelled"))
		}
		return callResult(out.Result), nil
	}
}

// callResult is a tool message as an MCP result: its text and images,
// isError on failure.
func callResult(r llm.ToolResult) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: r.Status == llm.StatusError, Content: []mcp.Content{}}
	for _, p := range r.Content {
		switch p := p.(type) {
		case llm.Text:
			res.Content = append(res.Content, &mcp.TextContent{Text: p.Text})
		case llm.Image:
			res.Content = append(res.Content, &mcp.ImageContent{MIMEType: p.MediaType, Data: p.Data})
		}
	}
	return res
}
