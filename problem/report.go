package problem

import (
	"context"

	"github.com/faultline-go/faultline/correlation"
)

// Report is Write for surfaces other than an HTTP response (an MCP tool
// result, a JSON-RPC error, a CLI line): it returns the occurrence as Write
// would render it (type, title, status and the writer's rules applied) and
// logs it exactly once. The correlation ID is correlationID when set,
// otherwise the one in ctx.
func (wr *Writer) Report(ctx context.Context, correlationID string, p *Problem) *Problem {
	return wr.report(ctx, correlationID, p)
}

// report keeps Report's caller at the frame depth log expects.
func (wr *Writer) report(ctx context.Context, correlationID string, p *Problem) *Problem {
	if p == nil {
		p = New(Internal)
	}
	res := wr.resolve(nil, p)
	if res.CorrelationID == "" {
		res.CorrelationID = correlationID
	}
	if res.CorrelationID == "" && ctx != nil {
		res.CorrelationID = correlation.ID(ctx)
	}
	wr.logContext(ctx, nil, &res, p, false)
	return &res
}
