package mcpfault

import (
	"context"
	"errors"
	"fmt"

	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool wraps a typed tool handler so that what it returns reaches the agent
// in the contract: an error becomes a problem (through the Writer's mappers,
// its raw text kept for the log), a panic becomes an internal problem, and a
// [Pending] approval passes through for [Middleware] to render. Register the
// result with mcp.AddTool as usual.
//
// Tool does not know whether the tool is safe to repeat; [AddTool] does,
// from the tool's annotations, and is the better entry point.
func Tool[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return wrap(h, false)
}

// AddTool registers h on s like mcp.AddTool, wrapped as [Tool] does, and
// keeps the contract's retry rule for tool calls, which carry no
// Idempotency-Key: unless t's annotations declare the tool read-only or
// idempotent, a retryable failure of the operation itself (cause internal,
// upstream or environment) whose handler did not say what became of it has
// outcome unknown, so the agent is told to verify, never to replay it, and
// one whose write committed is not retryable. A failure before the
// operation (a rate limit, outcome not_started) stays retryable.
func AddTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	safe := t.Annotations != nil && (t.Annotations.ReadOnlyHint || t.Annotations.IdempotentHint)
	mcp.AddTool(s, t, wrap(h, !safe))
}

func wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], unsafeToRepeat bool) mcp.ToolHandlerFor[In, Out] {
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
				p := problem.New(problem.Internal).Wrap(fmt.Errorf("panic in tool %q: %v", toolName(req), v))
				if unsafeToRepeat {
					// The panic may have struck after the tool's side effect.
					p = p.WithOutcome(problem.OutcomeUnknown)
				}
				err = p
			}
		}()
		res, out, err = h(ctx, req, in)
		if err == nil {
			return res, out, nil
		}
		if pending := (*Pending)(nil); errors.As(err, &pending) {
			return res, out, err
		}
		// Converted here, not only in Middleware, so that even a server
		// without the middleware shows the SDK a problem, whose Error() is
		// the public "code: message", instead of the raw error text.
		p := wr.FromError(err)
		if unsafeToRepeat && p.Retryable() {
			switch {
			case p.Outcome() == problem.OutcomeCommitted:
				// The write took effect and the call carries no key to
				// deduplicate a replay: repeating it applies it twice.
				p = p.WithOutcome(problem.OutcomeCommitted).WithRetryable(false)
			case p.Outcome() == "":
				switch p.Cause() {
				case problem.CauseInternal, problem.CauseUpstream, problem.CauseEnvironment:
					p = p.WithOutcome(problem.OutcomeUnknown)
				}
			}
		}
		return res, out, p
	}
}

func toolName(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil {
		return ""
	}
	return req.Params.Name
}
