package pgfault_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/faultline-go/faultline/pgfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/jackc/pgx/v5/pgconn"
)

// A unique violation as pgx reports it: the constraint, the table and the
// duplicated value stay out of the response and go to the log record.
func Example() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		// Drop what changes from run to run.
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "elapsed" {
				return slog.Attr{}
			}
			return a
		},
	}))
	w := problem.NewWriter(
		problem.WithBaseURI("https://errors.example.com/"),
		problem.WithLogger(logger),
		problem.WithMappers(pgfault.Mapper()),
	)

	q := "INSERT INTO users (email) VALUES ($1)"
	op := pgfault.Track(context.Background(), q)
	err := op.Err(&pgconn.PgError{
		Severity: "ERROR", Code: "23505", TableName: "users", ConstraintName: "users_email_key",
		Message: `duplicate key value violates unique constraint "users_email_key"`,
		Detail:  "Key (email)=(ada@example.com) already exists.",
	})

	rec := httptest.NewRecorder()
	_ = w.Write(rec, httptest.NewRequest(http.MethodPost, "/users", nil), w.FromError(err))
	fmt.Println(rec.Code)
	os.Stdout.Write(rec.Body.Bytes())
	// Output:
	// level=INFO msg=problem code=conflict status=409 cause=request action=fix_request method=POST path=/users correlation_id="" error="ERROR: duplicate key value violates unique constraint \"users_email_key\" (SQLSTATE 23505)" db.sqlstate=23505 db.severity=ERROR db.table=users db.constraint=users_email_key db.query="INSERT INTO users (email) VALUES ($1)" db.access=write db.sent=yes db.evidence=server_refused
	// 409
	// {"type":"https://errors.example.com/conflict","title":"Conflict","status":409,"detail":"A record with the same unique value already exists.","instance":"/users","code":"conflict","action":"fix_request","cause":"request","retryable":false,"outcome":"not_committed"}
}

// A statement whose context was cancelled before it was tried never
// reached the server: safe to repeat.
func ExampleTrack() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	op := pgfault.Track(ctx, "UPDATE accounts SET balance = balance - $1 WHERE id = $2")
	p := problem.NewWriter(problem.WithMappers(pgfault.Mapper())).FromError(op.Err(ctx.Err()))
	fmt.Println(p.Code(), p.Outcome(), p.Retryable())
	// Output: client_closed_request not_started true
}

func ExampleFingerprint() {
	fmt.Println(pgfault.Fingerprint("SELECT * FROM users WHERE email = 'ada@example.com' AND age > 30 -- adults"))
	// Output: SELECT * FROM users WHERE email = ? AND age > ?
}
