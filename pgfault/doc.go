// Package pgfault maps PostgreSQL failures seen through pgx v5 to
// faultline problems with honest retry guidance.
//
// A driver error is evidence used to choose a public code, never the
// public contract itself: its text quotes SQL, values, and the names of
// constraints, tables, columns and roles. Mapper chooses the code, the
// public detail (written in this package, never taken from the server),
// retryable, retry_after_ms and outcome from the SQLSTATE and from when
// the failure struck: before the statement was sent (outcome not_started),
// when the server refused it (not_committed), or after it was sent with no
// answer back (not_committed for a read, unknown for a write, which the
// problem writer turns into action verify unless the request carried an
// Idempotency-Key). The evidence (SQLSTATE, severity, object names, a
// fingerprint of the statement without its literals, whether it was sent,
// how long it ran, the pool's state) goes to the problem's log record only.
//
// Install it once:
//
//	w := problem.NewWriter(problem.WithMappers(pgfault.Mapper(pgfault.WithPool(pool))))
//
// and pass each statement's error through an Op, which knows what pgx's
// errors cannot tell (read or write, the statement, when it started):
//
//	op := pgfault.Track(ctx, q)
//	_, err := pool.Exec(ctx, q, args...)
//	return op.Err(err)
//
// The statement's words tell a read from a write (a SELECT that calls a
// function other than PostgreSQL's own reading ones is a write); WithAccess
// overrides them for everything tracked under a context, which is how a
// handler whose request mutates marks even its SELECTs. Errors that did not
// pass through an Op are still mapped, conservatively: without knowing the
// statement, a write is assumed. Track costs no allocation; the statement
// is only read when it failed.
package pgfault
