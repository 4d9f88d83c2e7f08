//go:build unix

package pgfault_test

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/pgfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/jackc/pgx/v5/pgconn"
)

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(testlog.CPUTime()-start)/float64(b.N), "cpu-ns/op")
}

// sink keeps the baseline's problem on the heap, as the mapper's is.
var sink *problem.Problem

// BenchmarkBuildProblem is the baseline: building by hand the problem the
// mapper returns for a unique violation.
func BenchmarkBuildProblem(b *testing.B) {
	b.ReportAllocs()
	defer reportCPU(b, testlog.CPUTime())
	for b.Loop() {
		sink = problem.New(problem.Conflict).
			WithDetail("A record with the same unique value already exists.").
			WithOutcome(problem.OutcomeNotCommitted)
	}
}

// BenchmarkMapper measures mapping one failure, evidence included; the
// difference to BenchmarkBuildProblem is the mapper's own cost.
func BenchmarkMapper(b *testing.B) {
	ctx := context.Background()
	unique := &pgconn.PgError{Severity: "ERROR", Code: "23505", TableName: "users", ConstraintName: "users_email_key",
		Message: `duplicate key value violates unique constraint "users_email_key"`}
	terminated := &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}
	cases := []struct {
		name string
		err  error
		code string
	}{
		{"unique_violation", pgfault.Track(ctx, "INSERT INTO users (email) VALUES ($1)").Err(unique), "conflict"},
		{"dropped_write", pgfault.Track(ctx, "UPDATE accounts SET balance = balance - $1 WHERE id = $2").Err(terminated), "upstream_error"},
		{"pool_exhausted", pgfault.Track(ctx, "SELECT * FROM accounts WHERE id = $1").Err(context.DeadlineExceeded), "unavailable"},
		{"untracked_pgerror", unique, "conflict"},
	}
	m := pgfault.Mapper()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b, testlog.CPUTime())
			for b.Loop() {
				p, ok := m(c.err)
				if !ok || string(p.Code()) != c.code {
					b.Fatal(p, ok)
				}
			}
		})
	}
}

// BenchmarkTrackSuccess is what tracking costs a statement that succeeds:
// it only takes note.
func BenchmarkTrackSuccess(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b, testlog.CPUTime())
	for b.Loop() {
		op := pgfault.Track(ctx, "SELECT * FROM accounts WHERE id = $1")
		if err := op.Err(nil); err != nil {
			b.Fatal(err)
		}
	}
}
