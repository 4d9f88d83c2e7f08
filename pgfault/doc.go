// Package pgfault maps PostgreSQL failures seen through pgx v5 to
// faultline problems with honest retry guidance.
//
// A driver error is evidence used to choose a public code, never the
// public contract itself: its text quotes SQL, values, and the names of
// constraints, tables, columns and roles. Mapper chooses the code, the
// public detail (written in this package, never taken from the server),
// retryable, retry_after_ms and outcome from the SQLSTATE and from when
// the failure struck. An outcome is only as strong as the evidence behind
// it: not_started needs proof that nothing was sent (the pool had no free
// connection, the connection could not be made, the context was done
// before the call, pgx refused an argument, pgconn's SafeToRetry, or a
// connection TrackConn saw closed before the call); not_committed needs the
// server's own refusal of a statement that cannot commit inside itself
// (CALL, DO, several statements in one string, CONCURRENTLY and dblink
// can, so their refusals are unknown for a write; untracked, a refusal
// raised inside procedural code is), or a read, which changed nothing. Once any byte of a write or of COMMIT may have reached
// the server and no answer came back (the connection was lost, the
// context ended on the wire, the backend was terminated), the outcome is
// unknown, which the problem writer turns into action verify unless the
// request carried an Idempotency-Key. pgconn's "conn closed" is not proof
// of anything by itself: pgconn gives it, safe to retry, also for a
// statement whose answer it lost over the simple protocol (every statement
// without arguments, and COMMIT). pgfault never says committed: an error
// does not prove that a write took effect. A connection lost under a
// statement (EOF, reset, closed, TLS failure, socket timeout, in an error
// that passed through an Op or carries pgconn's own types) is 502
// upstream_error, unless the caller's context ended first.
//
// The evidence (SQLSTATE, severity, object names, a fingerprint of the
// statement without its literals, whether it was sent, which evidence the
// outcome rests on, how long it ran, the pool's state) goes to the
// problem's log record only, after sanitize's log tier.
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
// On a connection of its own (a *pgx.Conn, tx.Conn()), TrackConn also notes
// whether the connection was already closed, the one evidence that turns
// its "conn closed" into not_started.
//
// The statement's words tell a read from a write (a SELECT that calls a
// function other than PostgreSQL's own reading ones is a write); WithAccess
// overrides them for everything tracked under a context, which is how a
// handler whose request mutates marks even its SELECTs. Errors that did not
// pass through an Op are still mapped, conservatively: without knowing the
// statement, a write is assumed. Track costs no allocation; the statement
// is only read when it failed.
//
// # The catalogue
//
// This module's README.md holds the full tables: the code, status, outcome,
// retry time and public detail of every SQLSTATE rule (rendered from the
// rules, and kept so by TestREADMETable), the failures without a SQLSTATE,
// and the evidence each outcome rests on, as the log record's db.evidence
// names it.
package pgfault
