package pgfault

import (
	"cmp"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Option configures Mapper.
type Option func(*mapper)

// WithPool adds the pool's state (total, idle, acquired and maximum
// connections, and how often acquiring had to wait) to every record, so an
// exhausted pool shows in the log next to the failure it caused.
func WithPool(p *pgxpool.Pool) Option { return func(m *mapper) { m.pool = p } }

// WithRetryAfter sets the base of the short retry_after_ms given for
// transient conditions (serialization failures, deadlocks, no free
// connection): each problem gets the base plus a random part of up to the
// base again, so clients told at the same moment do not return at the same
// moment. The default is 100ms.
func WithRetryAfter(base time.Duration) Option {
	return func(m *mapper) { m.retryBase = base }
}

type mapper struct {
	pool      *pgxpool.Pool
	retryBase time.Duration
}

// Mapper returns the problem.Mapper for pgx errors, to install with
// problem.WithMappers. It claims *pgconn.PgError, connection and pool
// failures, pgx.ErrNoRows, pgx's refusal to encode an argument (nothing was
// sent: outcome not_started) and every error annotated by Op.Err, and
// leaves anything else to the next mapper.
func Mapper(opts ...Option) problem.Mapper {
	m := &mapper{retryBase: 100 * time.Millisecond}
	for _, o := range opts {
		o(m)
	}
	return m.mapError
}

// Sent says whether the failed statement reached the server.
type sent uint8

const (
	sentUnknown sent = iota
	sentNo
	sentYes
)

func (s sent) String() string {
	switch s {
	case sentNo:
		return "no"
	case sentYes:
		return "yes"
	}
	return "unknown"
}

// evidence is what the error chain tells, gathered in one walk, and what
// the tracked statement says.
type evidence struct {
	op *Error
	// access is the Op's hint, else its statement's verb; unknown without
	// an Op. commits marks a statement that may commit part of its work
	// before failing (see classify).
	access      Access
	commits     bool
	pg          *pgconn.PgError
	connect     bool
	parseConfig bool
	noRows      bool
	rolledBack  bool
	// safe is set by the first error offering SafeToRetry, pgconn's own
	// statement that nothing was sent (or not). It is not the whole truth:
	// pgconn also answers "conn closed", safe to retry, when it closed the
	// connection itself after losing the answer to a statement sent over
	// the simple protocol (MultiResultReader.NextResult drops the read
	// error), so connClosed marks that answer as needing more evidence.
	hasSafe, safe bool
	connClosed    bool
	// lost: the chain holds a failure of the connection itself (EOF, reset,
	// broken pipe, TLS alert, socket timeout).
	lost               bool
	canceled, deadline bool
	// encode: pgx refused an argument while building the statement, so
	// nothing was sent; outOfRange: the value does not fit the parameter's
	// type, which is the client's value, not the service's bug.
	encode, outOfRange bool
}

func (ev *evidence) walk(err error) {
	for err != nil {
		switch e := err.(type) {
		case *Error:
			if ev.op == nil {
				ev.op = e
			}
		case *pgconn.PgError:
			if ev.pg == nil {
				ev.pg = e
			}
		case *pgconn.ConnectError:
			ev.connect = true
		case *pgconn.ParseConfigError:
			ev.parseConfig = true
		case tls.AlertError, tls.RecordHeaderError:
			ev.lost = true
		case net.Error:
			// context.DeadlineExceeded has Timeout too; it is told apart
			// below, as the caller's deadline rather than the socket's.
			ev.lost = ev.lost || err != context.DeadlineExceeded
		}
		if s, ok := err.(interface{ SafeToRetry() bool }); ok && !ev.hasSafe {
			ev.hasSafe, ev.safe = true, s.SafeToRetry()
		}
		switch err {
		case pgx.ErrNoRows:
			ev.noRows = true
		case pgx.ErrTxCommitRollback:
			ev.rolledBack = true
		case pgconn.ErrConnClosed:
			ev.connClosed, ev.lost = true, true
		case io.EOF, io.ErrUnexpectedEOF:
			ev.lost = true
		case context.Canceled:
			ev.canceled = true
		case context.DeadlineExceeded:
			ev.deadline = true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				ev.walk(e)
			}
			return
		default:
			return
		}
	}
}

// driver reports whether the chain is a database failure at all. A bare
// context error is one only when Op.Err says so: otherwise it could come
// from anywhere, and the kit's own mapping of it stands. pgconn.Timeout is
// asked last and only about a deadline, since it costs an allocation.
func (ev *evidence) driver(err error) bool {
	return ev.op != nil || ev.pg != nil || ev.connect || ev.parseConfig ||
		ev.noRows || ev.rolledBack || ev.hasSafe || ev.deadline && pgconn.Timeout(err)
}

// unexplained reports that nothing in the chain but, at most, an Op says
// what failed: only then is the text worth reading for an encoding failure.
func (ev *evidence) unexplained() bool {
	return ev.pg == nil && !ev.connect && !ev.parseConfig && !ev.noRows && !ev.rolledBack &&
		!ev.hasSafe && !ev.canceled && !ev.deadline && !ev.lost
}

// notSent reports evidence that nothing of the statement left the client:
// pgconn's SafeToRetry, believed for "conn closed" only when the Op saw the
// connection closed before the call began (TrackConn). Without that, "conn
// closed" may be the connection pgconn closed under the statement.
func (ev *evidence) notSent() bool {
	return ev.hasSafe && ev.safe && (!ev.connClosed || ev.op != nil && ev.op.op.closedBefore)
}

// encodeFailure recognises pgx's refusal of an argument, which it reports
// before sending anything and only in text ("failed to encode args[i]:
// ..."), and whether the value was out of range for the parameter's type.
func encodeFailure(err error) (encode, outOfRange bool) {
	msg := err.Error()
	if !strings.Contains(msg, "failed to encode args[") {
		return false, false
	}
	return true, strings.Contains(msg, " than maximum value for ") ||
		strings.Contains(msg, " than minimum value for ") || strings.Contains(msg, " is out of range")
}

// gather collects the evidence of err, and whether it is a database
// failure at all.
func gather(err error) (ev evidence, ok bool) {
	ev.walk(err)
	driver := ev.driver(err)
	if ev.unexplained() {
		ev.encode, ev.outOfRange = encodeFailure(err)
	}
	if !driver && !ev.encode {
		return ev, false
	}
	if ev.op != nil {
		ev.access, ev.commits = classify(ev.op.op.sql)
		if h := ev.op.op.hint; h != AccessUnknown {
			ev.access = h
		}
	}
	return ev, true
}

func (m *mapper) mapError(err error) (*problem.Problem, bool) {
	ev, ok := gather(err)
	if !ok {
		return nil, false
	}
	v := decide(&ev)
	p := problem.New(v.kind).WithOutcome(v.outcome)
	if v.detail != "" {
		p = p.WithDetail(v.detail)
	}
	if d := m.retryAfter(); v.retrySoon && d > 0 {
		p = p.WithRetryAfter(d)
	}
	return p.WithLogAttrs(ev.attrs(m.pool, v)), true
}

// verdict is the problem decide chose.
type verdict struct {
	kind    problem.Kind
	detail  string // empty: the kind's default
	outcome problem.Outcome
	// retrySoon adds the short jittered retry time.
	retrySoon bool
	sent      sent
	// basis is the evidence the outcome rests on, named in the record.
	basis basis
}

// basis names the evidence an outcome rests on. Each outcome pgfault
// gives has one of these behind it, and the record says which
// (db.evidence), so an operator can see why a client was told it may, or
// may not, retry. pgfault never says committed: an error never proves that
// a write took effect.
type basis uint8

const (
	basisNoEvidence     basis = iota // nothing tells when it failed
	basisConfig                      // the configuration was refused before connecting
	basisConnect                     // no connection was made
	basisConnectRefused              // the server refused the session while connecting
	basisServerRefused               // the server refused the statement and rolled it back
	basisServerUnsure                // the server said it cannot tell (40003)
	basisPartCommitted               // the server refused a part of a statement that commits inside itself
	basisSessionEnded                // the server ended the session under the statement
	basisNoRows                      // the statement ran and found no row
	basisCommitRollback              // COMMIT was answered ROLLBACK
	basisNotSent                     // pgconn: nothing was written (SafeToRetry)
	basisClosedBefore                // the connection was closed before the call began (TrackConn)
	basisEncode                      // pgx refused an argument before sending
	basisDoneBefore                  // the context was done before the call (Track)
	basisPoolWait                    // the deadline passed waiting for a pooled connection
	basisContextDuring               // the context ended during the call
	basisLost                        // the connection was lost under the statement
	basisCount
)

var basisNames = [basisCount]string{
	basisNoEvidence:     "no_evidence",
	basisConfig:         "config_refused",
	basisConnect:        "not_connected",
	basisConnectRefused: "refused_at_connect",
	basisServerRefused:  "server_refused",
	basisServerUnsure:   "server_unsure",
	basisPartCommitted:  "refused_after_inner_commit",
	basisSessionEnded:   "session_ended",
	basisNoRows:         "no_rows",
	basisCommitRollback: "commit_rolled_back",
	basisNotSent:        "nothing_written",
	basisClosedBefore:   "closed_before_call",
	basisEncode:         "argument_refused",
	basisDoneBefore:     "context_done_before_call",
	basisPoolWait:       "pool_wait",
	basisContextDuring:  "context_done_during_call",
	basisLost:           "connection_lost",
}

func (b basis) String() string { return basisNames[b] }

// The details of failures without a SQLSTATE, written for clients.
const (
	detailUnreachable = "The database cannot be reached."
	detailNotUsable   = "The database connection was not usable; nothing was sent."
	detailNoFreeConn  = "The database has no free connection."
	detailLost        = "The connection to the database was lost."
	detailOutOfRange  = "A number is out of range."
)

// decide chooses the problem, says whether the statement was sent and
// names the evidence the outcome rests on. The order matters: what the
// server said beats what the client saw, and proof that nothing was sent
// beats a broken connection.
func decide(ev *evidence) verdict {
	switch {
	case ev.parseConfig:
		return verdict{kind: problem.Internal, outcome: problem.OutcomeNotStarted, sent: sentNo, basis: basisConfig}
	case ev.pg != nil:
		r := ruleFor(ev.pg.Code, ev.pg.Routine)
		v := verdict{kind: r.code, detail: r.detail, outcome: r.outcome, retrySoon: r.retrySoon, sent: sentYes, basis: basisServerRefused}
		switch {
		case ev.connect:
			// Refused while connecting: nothing of the request ran.
			v.outcome, v.sent, v.basis = problem.OutcomeNotStarted, sentNo, basisConnectRefused
		case r.dropped:
			v.outcome, v.basis = droppedOutcome(ev.access), basisSessionEnded
		case r.outcome == problem.OutcomeUnknown:
			v.basis = basisServerUnsure
		case (ev.commits || ev.op == nil && strings.Contains(ev.pg.Where, "PL/")) && ev.access != Read:
			// The error is about one part of the statement; a COMMIT
			// before it (another statement of the string, one inside a
			// procedure or DO block) may have taken effect, whatever the
			// part's SQLSTATE says. Without an Op, the error's context is
			// the one sign of that: it was raised inside procedural code
			// (PL/pgSQL, PL/Python, ...), which may have been a procedure
			// or a DO block.
			v.outcome, v.basis = problem.OutcomeUnknown, basisPartCommitted
		case r.outcome == problem.OutcomeNotStarted:
			// These conditions (too many connections, starting up, no
			// such role or database) are refusals of the session.
			v.sent, v.basis = sentNo, basisConnectRefused
		}
		return v
	case ev.noRows:
		return verdict{kind: problem.NotFound, sent: sentYes, basis: basisNoRows}
	case ev.connect:
		return verdict{kind: problem.Unavailable, detail: detailUnreachable, outcome: problem.OutcomeNotStarted, retrySoon: true, sent: sentNo, basis: basisConnect}
	case ev.rolledBack:
		// COMMIT found the transaction already failed: a statement in it
		// failed and the handler went on regardless.
		return verdict{kind: problem.Internal, outcome: problem.OutcomeNotCommitted, sent: sentYes, basis: basisCommitRollback}
	case ev.notSent():
		b := basisNotSent
		if ev.connClosed {
			b = basisClosedBefore
		}
		return verdict{kind: problem.Unavailable, detail: detailNotUsable, outcome: problem.OutcomeNotStarted, retrySoon: true, sent: sentNo, basis: b}
	case ev.encode && ev.outOfRange:
		return verdict{kind: problem.ValidationFailed, detail: detailOutOfRange, outcome: problem.OutcomeNotStarted, sent: sentNo, basis: basisEncode}
	case ev.encode:
		return verdict{kind: problem.Internal, outcome: problem.OutcomeNotStarted, sent: sentNo, basis: basisEncode}
	case ev.canceled || ev.deadline:
		return contextDone(ev)
	case ev.hasSafe || ev.lost:
		// The connection broke, and nothing proves the statement stayed
		// on this side: any byte of it may have reached the server, and
		// the server may have committed and answered.
		return verdict{kind: problem.UpstreamError, detail: detailLost, outcome: droppedOutcome(ev.access), sent: sentUnknown, basis: basisLost}
	}
	// Annotated, but nothing in the chain says when it failed.
	return verdict{kind: problem.Internal, outcome: droppedOutcome(ev.access), sent: sentUnknown, basis: basisNoEvidence}
}

// contextDone maps a cancelled or expired context by when it struck.
func contextDone(ev *evidence) verdict {
	kind := problem.ClientClosedRequest
	if ev.deadline {
		kind = problem.Timeout
	}
	switch {
	case ev.op != nil && ev.op.op.doneBefore:
		// Done before the statement was even tried.
		return verdict{kind: kind, outcome: problem.OutcomeNotStarted, sent: sentNo, basis: basisDoneBefore}
	case ev.deadline && ev.op != nil && ev.op.Err == context.DeadlineExceeded:
		// pgconn reports a deadline it hit while talking to the server as
		// its own timeout error; a bare deadline comes from waiting for a
		// pooled connection, so nothing was sent: the pool is exhausted.
		return verdict{kind: problem.Unavailable, detail: detailNoFreeConn, outcome: problem.OutcomeNotStarted, retrySoon: true, sent: sentNo, basis: basisPoolWait}
	}
	// A cancellation cannot tell waiting for a connection from waiting for
	// the answer; a deadline past the pool was met on the wire.
	return verdict{kind: kind, outcome: droppedOutcome(ev.access), sent: sentUnknown, basis: basisContextDuring}
}

// droppedOutcome is the outcome of a statement that may have reached the
// server without an answer coming back: a read changed nothing and may be
// repeated; a write may have committed. The problem stays retryable: the
// writer turns it into verify unless the request carried an
// Idempotency-Key.
func droppedOutcome(a Access) problem.Outcome {
	if a == Read {
		return problem.OutcomeNotCommitted
	}
	return problem.OutcomeUnknown
}

func (m *mapper) retryAfter() time.Duration {
	if m.retryBase <= 0 {
		return 0
	}
	return m.retryBase + rand.N(m.retryBase)
}

// attrs is the record's evidence, one "db" group. Object names appear here
// and only here. The fingerprint and the pool's state are computed when the
// record is written, not when the error is mapped.
func (ev *evidence) attrs(pool *pgxpool.Pool, v verdict) slog.Attr {
	n := 2
	if pg := ev.pg; pg != nil {
		n += 2 + nonEmpty(pg.SchemaName) + nonEmpty(pg.TableName) + nonEmpty(pg.ColumnName) +
			nonEmpty(pg.ConstraintName) + nonEmpty(pg.DataTypeName)
	}
	if ev.op != nil {
		n += 3
	}
	if pool != nil {
		n++
	}
	// Sized exactly: the slice is the one allocation the group costs.
	a := make([]slog.Attr, 0, n)
	if pg := ev.pg; pg != nil {
		a = append(a, slog.String("sqlstate", pg.Code), slog.String("severity", cmp.Or(pg.SeverityUnlocalized, pg.Severity)))
		a = appendNonEmpty(a, "schema", pg.SchemaName)
		a = appendNonEmpty(a, "table", pg.TableName)
		a = appendNonEmpty(a, "column", pg.ColumnName)
		a = appendNonEmpty(a, "constraint", pg.ConstraintName)
		a = appendNonEmpty(a, "data_type", pg.DataTypeName)
	}
	if op := ev.op; op != nil {
		a = append(a,
			slog.Any("query", (*fingerprint)(op)),
			slog.String("access", ev.access.String()),
			// As text ("1.2ms"), as the kit logs every duration: a JSON
			// handler writes a slog.Duration as a count of nanoseconds.
			slog.String("elapsed", op.elapsed.String()))
	}
	a = append(a, slog.String("sent", v.sent.String()), slog.String("evidence", v.basis.String()))
	if pool != nil {
		a = append(a, slog.Any("pool", (*poolState)(pool)))
	}
	return slog.Attr{Key: "db", Value: slog.GroupValue(a...)}
}

func nonEmpty(s string) int {
	if s == "" {
		return 0
	}
	return 1
}

// appendNonEmpty adds one of the server's names, after the log tier: the
// record must be fit to write through any handler, not only sanitize's.
func appendNonEmpty(a []slog.Attr, key, v string) []slog.Attr {
	if v == "" {
		return a
	}
	return append(a, slog.String(key, sanitize.Log(v)))
}

// fingerprint resolves to the statement's fingerprint when logged.
type fingerprint Error

func (f *fingerprint) LogValue() slog.Value {
	return slog.StringValue(sanitize.Log(Fingerprint(f.op.sql)))
}

// poolState resolves to the pool's counters when logged.
type poolState pgxpool.Pool

func (p *poolState) LogValue() slog.Value {
	st := (*pgxpool.Pool)(p).Stat()
	return slog.GroupValue(
		slog.Int("total", int(st.TotalConns())),
		slog.Int("idle", int(st.IdleConns())),
		slog.Int("acquired", int(st.AcquiredConns())),
		slog.Int("max", int(st.MaxConns())),
		slog.Int64("empty_acquire", st.EmptyAcquireCount()),
		slog.String("empty_acquire_wait", st.EmptyAcquireWaitTime().String()),
	)
}
