package mcptool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// mcpTool is one tool of an MCP server, as a [tool.Tool].
type mcpTool struct {
	c           *conn
	mcpName     string
	spec        tool.Spec
	fingerprint string // the tool as listed, with the overrides: a change replaces it
}

// Spec returns the tool's contract.
func (t *mcpTool) Spec() tool.Spec { return t.spec }

// newTool maps an MCP tool onto a contract: see [Spec].
func newTool(c *conn, mt *mcp.Tool) (*mcpTool, error) {
	spec, err := Spec(mt, c.cfg.Overrides[mt.Name])
	if err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil {
		return nil, errors.New(oneLine(err.Error(), 300))
	}
	fp, _ := jsonx.Marshal(struct {
		Tool *mcp.Tool
		Spec tool.Spec
	}{mt, spec})
	return &mcpTool{c: c, mcpName: mt.Name, spec: spec, fingerprint: string(fp)}, nil
}

// Spec maps an MCP tool and what the agent's definition says of it onto
// a contract. The name is the MCP name, with every character that some
// provider refuses replaced by '_' (and cut to 64 bytes); the
// description is the tool's, or its title. The parameters are its
// inputSchema, the return schema its outputSchema. The annotations give
// the defaults, which o overrides: readOnlyHint → level_2; else
// idempotentHint → level_1; else level_0 (never retried); an explicit
// destructiveHint (on a tool that is not read-only) → approval required.
func Spec(mt *mcp.Tool, o Override) (tool.Spec, error) {
	if mt == nil {
		return tool.Spec{}, errors.New("no tool")
	}
	spec := tool.Spec{Name: toolName(mt.Name), Description: mt.Description, Idempotency: tool.Level0}
	if strings.TrimSpace(spec.Description) == "" {
		spec.Description = mt.Title
	}
	var err error
	if mt.InputSchema != nil {
		if spec.Parameters, err = schema(mt.InputSchema); err != nil {
			return tool.Spec{}, fmt.Errorf("its inputSchema cannot be read: %v", err)
		}
	}
	if mt.OutputSchema != nil {
		if spec.Returns, err = schema(mt.OutputSchema); err != nil {
			return tool.Spec{}, fmt.Errorf("its outputSchema cannot be read: %v", err)
		}
	}
	if a := mt.Annotations; a != nil {
		switch {
		case a.ReadOnlyHint:
			spec.Idempotency = tool.Level2
		case a.IdempotentHint:
			spec.Idempotency = tool.Level1
		}
		spec.RequiresApproval = !a.ReadOnlyHint && a.DestructiveHint != nil && *a.DestructiveHint
	}
	if o.Idempotency != "" {
		spec.Idempotency = o.Idempotency
	}
	if o.Approval != nil {
		spec.RequiresApproval = *o.Approval
	}
	spec.Timeout = o.Timeout
	return spec, nil
}

// schema encodes a schema the SDK decoded.
func schema(v any) (jsontext.Value, error) {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// toolName makes an MCP tool name one that every provider accepts.
func toolName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			b[i] = '_'
		}
	}
	if len(b) == 0 || (b[0] >= '0' && b[0] <= '9') || b[0] == '-' {
		b = append([]byte{'_'}, b...)
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// Call calls the tool on its server. Whatever goes wrong is a tool
// message, with a nil error, but for the context's end (which the
// executor reports as a timeout or a cancellation; the SDK sends the
// server notifications/cancelled).
func (t *mcpTool) Call(ctx context.Context, args jsontext.Value) (toolresult.Envelope, error) {
	c := t.c
	if c.p.isClosed() {
		return unreachable(c, "the connection to it is closed"), nil
	}
	cs, err := c.session(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return toolresult.Envelope{}, ctx.Err()
		}
		var be *errBackoff
		if errors.As(err, &be) {
			env := unreachable(c, be.Error())
			env.Error.RetryAfter = be.wait
			return env, nil
		}
		return unreachable(c, oneLine(err.Error(), 300)), nil
	}
	if len(args) == 0 {
		args = jsontext.Value("{}")
	}
	params := &mcp.CallToolParams{Name: t.mcpName, Arguments: args}
	if ci, ok := tool.CallInfoFrom(ctx); ok && ci.IdempotencyKey != "" {
		params.Meta = mcp.Meta{"toolwire/idempotencyKey": ci.IdempotencyKey}
	}
	if tool.Watched(ctx) {
		token, end := c.watch(ctx)
		defer end()
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return toolresult.Envelope{}, ctx.Err()
		}
		return t.callFailed(cs, err), nil
	}
	c.succeeded()
	c.settle(ctx)
	env := Envelope(res, c.p.opts.MaxResultBytes)
	env.Meta.Source = sourcePrefix + c.cfg.Name
	return env, nil
}

// callFailed maps an error of the SDK: an error the server answered
// with, or a broken connection, which ends the session.
func (t *mcpTool) callFailed(cs *mcp.ClientSession, err error) toolresult.Envelope {
	c := t.c
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		msg := oneLine(we.Message, 300)
		var env toolresult.Envelope
		switch we.Code {
		case jsonrpc.CodeInvalidParams:
			env = toolresult.Failure(toolresult.InvalidArguments, "the MCP server refused the arguments: "+msg)
		case jsonrpc.CodeMethodNotFound:
			env = toolresult.Failure(toolresult.NotFound, "the MCP server has no such tool any more: "+msg)
		default:
			env = toolresult.Failure(toolresult.UpstreamError, fmt.Sprintf("the MCP server answered with error %d: %s", we.Code, msg))
			env.Error.Retryable = false
		}
		return env
	}
	cause := oneLine(err.Error(), 200)
	switch {
	case errors.Is(err, mcp.ErrConnectionClosed):
		cause = "the connection closed during the call"
	case errors.Is(err, errTooLarge):
		cause = errTooLarge.Error()
	}
	c.dropped(cs, cause)
	env := toolresult.Failure(toolresult.UpstreamError, fmt.Sprintf("the MCP server %s failed during the call (%s); whether the call took effect is unknown. It is started again on the next call", c.cfg.Name, cause))
	return env
}

// unreachable is the message of a call that could not be sent.
func unreachable(c *conn, why string) toolresult.Envelope {
	env := toolresult.Failure(toolresult.UpstreamError, fmt.Sprintf("the MCP server %s cannot be reached: %s; the call was not sent", c.cfg.Name, why))
	return env
}
