package pgfault

import (
	"context"
	"time"
)

// Access says whether an operation may change data. It decides what a
// connection lost after the statement was sent means: a read changed
// nothing and may be repeated, a write may have committed.
type Access uint8

const (
	// AccessUnknown is treated as a write, since assuming a read could
	// invite a client to replay a mutation.
	AccessUnknown Access = iota
	// Read changes nothing.
	Read
	// Write may change data.
	Write
)

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "unknown"
}

type accessKey struct{}

// WithAccess marks every statement tracked under ctx as a read or a write.
// The mark wins over the statement's verb: a SELECT that calls a function
// with side effects is a write, and a handler that reads inside a
// transaction it will commit can say so once.
func WithAccess(ctx context.Context, a Access) context.Context {
	return context.WithValue(ctx, accessKey{}, a)
}

// Op is one statement about to run. Track it before calling pgx and pass
// the error through Err, so the mapper knows what pgx's error cannot tell:
// read or write, the statement's shape, how long it ran, and whether the
// context was already done before anything was sent.
type Op struct {
	sql          string
	hint         Access
	start        time.Time
	doneBefore   bool
	closedBefore bool
}

// Track starts an Op for sql under ctx. The access is the one marked with
// WithAccess, else the one the statement's verb implies. Track only takes
// note: the statement is read only if it fails.
func Track(ctx context.Context, sql string) Op {
	hint, _ := ctx.Value(accessKey{}).(Access)
	return Op{sql: sql, hint: hint, start: time.Now(), doneBefore: ctx.Err() != nil}
}

// TrackConn is Track for a statement about to run on conn (a *pgx.Conn, a
// *pgconn.PgConn, or tx.Conn() of a transaction). It also notes whether
// conn was already closed, the one evidence that pgconn's "conn closed"
// means nothing was sent: pgconn gives the same error when it closed the
// connection itself after losing the answer to a statement it had sent, so
// without TrackConn a "conn closed" write is outcome unknown.
func TrackConn(ctx context.Context, conn interface{ IsClosed() bool }, sql string) Op {
	o := Track(ctx, sql)
	o.closedBefore = conn.IsClosed()
	return o
}

// Err returns nil for nil, else err annotated with the Op.
func (o Op) Err(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, op: o, elapsed: time.Since(o.start)}
}

// Error is a pgx error annotated by Op.Err. Its text is the driver's,
// which may quote SQL and values: it reaches the log, never a client.
type Error struct {
	Err     error
	op      Op
	elapsed time.Duration
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }
