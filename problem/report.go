package problem

import (
	"context"

	"github.com/faultline-go/faultline/correlation"
)

// Report is Write for surfaces other than an HTTP response (an MCP tool
// result, a JSON-RPC error, a CLI line): it returns the occurrence as Write
// would send it, with the contract's rules applied as for a request without
// an Idempotency-Key, and logs it exactly once. The correlation ID is
// correlationID when set, otherwise the one in ctx. The observer set with
// WithObserver is not called: it is for HTTP responses.
func (wr *Writer) Report(ctx context.Context, correlationID string, p *Problem) *Problem {
	wr = wr.usable()
	if p == nil {
		p = New(Internal)
	}
	res, e := wr.resolve(nil, p, nil)
	if p.correlationID == "" {
		// The caller's ID or the context's is the kit's own, logged
		// under the same value; resolve sent a literal through the
		// public tier.
		res.correlationID, res.correlationPlain, res.correlationFresh = correlationID, false, false
		if res.correlationID == "" && ctx != nil {
			res.correlationID = correlation.ID(ctx)
		}
	}
	// logRecord, Report, then the caller: three frames up.
	wr.logRecord(ctx, nil, &res, e, false, 0, 3)
	return &res
}
