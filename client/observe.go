package client

import (
	cryptorand "crypto/rand"
	"log/slog"
	"net/http"
	"time"

	"github.com/faultline-go/faultline/problem"
)

// Observer receives reports of attempts and operations; either hook may be
// nil. Hooks run on the caller's goroutine, before RoundTrip returns or
// waits, and must not keep the response.
type Observer struct {
	Attempt   func(AttemptReport)
	Operation func(OperationReport)
}

// AttemptReport describes one attempt.
type AttemptReport struct {
	// OperationID is the same for every attempt of an operation: the
	// generated Idempotency-Key when there is one, else a random ID.
	OperationID string
	Method      string
	// Attempt is the attempt's number, the first being 1.
	Attempt int
	// Status is the response's status; 0 after a transport error.
	Status  int
	Code    string
	Outcome problem.Outcome
	// Problem is what the server answered a failed attempt with; nil after
	// a success or a transport error.
	Problem *problem.Problem
	// Err is the transport error, if the server did not answer.
	Err error
	// Decision is what follows a failed attempt; zero after a success.
	Decision Decision
}

// OperationReport describes an operation once it has ended.
type OperationReport struct {
	OperationID string
	Method      string
	Attempts    int
	// Status is the final response's status; 0 when the operation ended
	// with an error.
	Status int
	Code   string
	// Decision is the last attempt's; its verdict says what the caller
	// should do now (Stop after retries ran out, Verify, FixRequest, ...).
	// It is zero when the operation succeeded.
	Decision Decision
	Elapsed  time.Duration
	Err      error
}

// operation carries one RoundTrip's reporting state. Its ID is drawn only
// when something reports, so an unobserved success costs no allocation.
type operation struct {
	t     *Transport
	req   *http.Request
	start time.Time
	id    string
	last  *problem.Problem
}

func (op *operation) operationID() string {
	if op.id == "" {
		op.id = cryptorand.Text()
	}
	return op.id
}

func (op *operation) logger() *slog.Logger {
	if op.t.logger != nil {
		return op.t.logger
	}
	return slog.Default()
}

func (op *operation) succeeded(n int, res *http.Response) {
	ctx := op.req.Context()
	log := op.logger()
	level := slog.LevelDebug
	if n > 1 {
		level = slog.LevelInfo
	}
	if op.t.observer.Attempt == nil && op.t.observer.Operation == nil && !log.Enabled(ctx, level) {
		return
	}
	if op.t.observer.Attempt != nil {
		op.t.observer.Attempt(AttemptReport{OperationID: op.operationID(), Method: op.req.Method, Attempt: n, Status: res.StatusCode})
	}
	op.ended(n, res, nil, Decision{})
}

func (op *operation) attempt(a Attempt, res *http.Response, d Decision) {
	r := AttemptReport{Method: a.Method, Attempt: a.Number, Problem: a.Problem, Err: a.Err, Decision: d}
	if res != nil {
		r.Status = res.StatusCode
	}
	if a.Problem != nil {
		r.Code, r.Outcome = string(a.Problem.Code()), a.Problem.Outcome()
		op.last = a.Problem
	}
	ctx := op.req.Context()
	log := op.logger()
	if op.t.observer.Attempt == nil && !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	r.OperationID = op.operationID()
	if op.t.observer.Attempt != nil {
		op.t.observer.Attempt(r)
	}
	attrs := []slog.Attr{
		slog.String("operation_id", r.OperationID),
		slog.String("method", r.Method),
		slog.Int("attempt", r.Attempt),
		slog.Int("status", r.Status),
		slog.String("code", r.Code),
		slog.String("outcome", string(r.Outcome)),
		slog.String("verdict", d.Verdict.String()),
		slog.Int64("delay_ms", d.Delay.Milliseconds()),
		slog.String("reason", d.Reason),
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", a.Err.Error()))
	}
	log.LogAttrs(ctx, slog.LevelInfo, "faultline client: attempt failed", attrs...)
}

func (op *operation) ended(n int, res *http.Response, err error, d Decision) {
	r := OperationReport{Method: op.req.Method, Attempts: n, Err: err, Decision: d, Elapsed: op.t.now().Sub(op.start)}
	if res != nil {
		r.Status = res.StatusCode
		if res.StatusCode >= 400 && op.last != nil {
			r.Code = string(op.last.Code())
		}
	}
	ctx := op.req.Context()
	log := op.logger()
	level := slog.LevelInfo
	if n == 1 && err == nil && r.Status < 400 {
		level = slog.LevelDebug
	}
	if op.t.observer.Operation == nil && !log.Enabled(ctx, level) {
		return
	}
	r.OperationID = op.operationID()
	if op.t.observer.Operation != nil {
		op.t.observer.Operation(r)
	}
	attrs := []slog.Attr{
		slog.String("operation_id", r.OperationID),
		slog.String("method", r.Method),
		slog.Int("attempts", r.Attempts),
		slog.Int("status", r.Status),
		slog.String("code", r.Code),
		slog.Int64("elapsed_ms", r.Elapsed.Milliseconds()),
	}
	if r.Status >= 400 || err != nil {
		attrs = append(attrs, slog.String("verdict", d.Verdict.String()), slog.String("reason", d.Reason))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	log.LogAttrs(ctx, level, "faultline client: operation ended", attrs...)
}
