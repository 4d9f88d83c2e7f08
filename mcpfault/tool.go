package mcpfault

import (
	"context"
	"fmt"

	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool wraps a typed tool handler so that what it returns reaches the agent
// in the contract: an error becomes a problem (through the Writer's mappers,
// its raw text kept for the log), a panic becomes an internal problem, and a
// [Pending] approval passes through for [Middleware] to render. Register the
// result with mcp.AddTool as usual.
func Tool[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		wr := problem.Default()
		if st := stateFrom(ctx); st != nil {
			st.reached = true
			wr = st.writer
		}
		defer func() {
			if v := recover(); v != nil {
				var zero Out
				res, out = nil, zero
				err = problem.New(problem.Internal).Wrap(fmt.Errorf("panic in tool %q: %v", toolName(req), v))
			}
		}()
		res, out, err = h(ctx, req, in)
		if err == nil {
			return res, out, nil
		}
		if _, ok := err.(*Pending); ok {
			return res, out, err
		}
		// Converted here, not only in Middleware, so that even a server
		// without the middleware shows the SDK a problem, whose Error() is
		// the public "code: message", instead of the raw error text.
		return res, out, wr.FromError(err)
	}
}

func toolName(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil {
		return ""
	}
	return req.Params.Name
}
