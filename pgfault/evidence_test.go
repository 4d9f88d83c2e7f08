package pgfault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// safeErr stands for pgconn's errors that say whether anything was
// written (SafeToRetry), which are unexported.
type safeErr struct {
	safe bool
	err  error
}

func (e safeErr) Error() string     { return "pgconn: " + fmt.Sprint(e.err) }
func (e safeErr) SafeToRetry() bool { return e.safe }
func (e safeErr) Unwrap() error     { return e.err }

// TestOutcomeEvidence walks every outcome pgfault can give and the
// evidence each rests on: for each basis, an error chain that has it, the
// outcome for a write and for a read, and what the record says was sent.
// The table is the contract of outcomes; a basis added without a row here
// fails the test. The real failures behind the rows run against
// PostgreSQL in TestScenarios, TestLostAnswer, TestLostConnectionCode and
// TestCommitInside, which assert the same db.evidence.
func TestOutcomeEvidence(t *testing.T) {
	ctx := context.Background()
	done, cancel := context.WithCancel(ctx)
	cancel()
	closed := closedConn(true)
	pg := func(code string) error { return &pgconn.PgError{Severity: "ERROR", Code: code} }
	const (
		ns = problem.OutcomeNotStarted
		nc = problem.OutcomeNotCommitted
		un = problem.OutcomeUnknown
	)
	rows := []struct {
		basis basis
		// err builds the chain; track annotates it as a statement marked
		// a write, then as one marked a read.
		err         func(track func(error) error) error
		write, read problem.Outcome
		sent        sent
		why         string
	}{
		{basisConfig, func(tr func(error) error) error { return &pgconn.ParseConfigError{} }, ns, ns, sentNo,
			"the configuration was refused before any connection was tried"},
		{basisConnect, func(tr func(error) error) error { return tr(&pgconn.ConnectError{Config: &pgconn.Config{}}) }, ns, ns, sentNo,
			"no connection was made, so no statement could be sent"},
		{basisConnectRefused, func(tr func(error) error) error { return tr(pg("53300")) }, ns, ns, sentNo,
			"the server refused the session (too many connections, starting up, no such role or database)"},
		{basisServerRefused, func(tr func(error) error) error { return tr(pg("23505")) }, nc, nc, sentYes,
			"the server answered with an error: the statement failed and its transaction rolled back"},
		{basisServerUnsure, func(tr func(error) error) error { return tr(pg("40003")) }, un, un, sentYes,
			"the server itself said it cannot tell whether the statement completed"},
		{basisPartCommitted, func(tr func(error) error) error { return tr(pg("23505")) }, un, nc, sentYes,
			"the server refused a part of a statement that can commit inside itself (CALL, DO, several statements, CONCURRENTLY, dblink)"},
		{basisSessionEnded, func(tr func(error) error) error { return tr(pg("57P01")) }, un, nc, sentYes,
			"the server ended the session under the statement: a write may have committed, a read changed nothing"},
		{basisNoRows, func(tr func(error) error) error { return tr(pgx.ErrNoRows) }, "", "", sentYes,
			"the statement ran and found nothing: no outcome to state"},
		{basisCommitRollback, func(tr func(error) error) error { return tr(pgx.ErrTxCommitRollback) }, nc, nc, sentYes,
			"the server answered COMMIT with ROLLBACK"},
		{basisNotSent, func(tr func(error) error) error { return tr(safeErr{true, errors.New("conn busy")}) }, ns, ns, sentNo,
			"pgconn says nothing was written (SafeToRetry), and it is not the ambiguous \"conn closed\""},
		{basisClosedBefore, func(tr func(error) error) error {
			return TrackConn(ctx, closed, "UPDATE t SET a = 1").Err(safeErr{true, pgconn.ErrConnClosed})
		}, ns, ns, sentNo,
			"TrackConn saw the connection closed before the call, so its \"conn closed\" means nothing was sent"},
		{basisEncode, func(tr func(error) error) error { return tr(errors.New("failed to encode args[0]: unable to encode")) }, ns, ns, sentNo,
			"pgx refused an argument while building the statement, before sending it"},
		{basisDoneBefore, func(tr func(error) error) error {
			return Track(done, "UPDATE t SET a = 1").Err(context.Canceled)
		}, ns, ns, sentNo,
			"the context was done when Track ran, and pgconn checks it before sending"},
		{basisPoolWait, func(tr func(error) error) error { return tr(context.DeadlineExceeded) }, ns, ns, sentNo,
			"a bare deadline through Op.Err comes from waiting for a pooled connection; pgconn wraps one met on the wire"},
		{basisContextDuring, func(tr func(error) error) error { return tr(context.Canceled) }, un, nc, sentUnknown,
			"the context ended during the call: the statement may have run"},
		{basisLost, func(tr func(error) error) error { return tr(safeErr{true, pgconn.ErrConnClosed}) }, un, nc, sentUnknown,
			"the connection was lost under the statement (EOF, reset, TLS, socket timeout, or pgconn's own \"conn closed\")"},
		{basisNoEvidence, func(tr func(error) error) error { return tr(errors.New("something pgx never said before")) }, un, nc, sentUnknown,
			"an error passed through Op.Err, but nothing in it tells when it failed"},
	}
	seen := map[basis]bool{}
	var table strings.Builder
	table.WriteString("\n| evidence | write | read | sent | why |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		seen[r.basis] = true
		sql := "UPDATE t SET a = 1"
		if r.basis == basisPartCommitted {
			sql = "CALL import_orders(ARRAY[1, 1])"
		}
		for _, c := range []struct {
			access Access
			want   problem.Outcome
		}{{Write, r.write}, {Read, r.read}} {
			err := r.err(func(e error) error { return Track(WithAccess(ctx, c.access), sql).Err(e) })
			want := r.basis
			if r.basis == basisPartCommitted && c.access == Read {
				// A statement marked a read commits nothing, whatever it
				// calls: the server's refusal stands.
				want = basisServerRefused
			}
			ev, ok := gather(err)
			if !ok {
				t.Errorf("%s: not claimed", err)
				continue
			}
			v := decide(&ev)
			if v.basis != want || v.outcome != c.want || v.sent != r.sent {
				t.Errorf("%s, %s: basis %s, outcome %q, sent %s; want %s, %q, %s", err, c.access, v.basis, v.outcome, v.sent, want, c.want, r.sent)
			}
		}
		fmt.Fprintf(&table, "| `%s` | %s | %s | %s | %s |\n", r.basis, show(r.write), show(r.read), r.sent, r.why)
	}
	for b := range basisCount {
		if !seen[b] {
			t.Errorf("basis %s has no row: every outcome must name its evidence", b)
		}
	}
	// No error is evidence of a commit: committed is never given.
	for _, r := range rows {
		if r.write == problem.OutcomeCommitted || r.read == problem.OutcomeCommitted {
			t.Errorf("%s claims committed", r.basis)
		}
	}
	t.Log(table.String())
}

func show(o problem.Outcome) string {
	if o == "" {
		return "-"
	}
	return "`" + string(o) + "`"
}

type closedConn bool

func (c closedConn) IsClosed() bool { return bool(c) }
