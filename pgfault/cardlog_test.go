package pgfault_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-go/faultline/pgfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/jackc/pgx/v5/pgconn"
)

// luhn reports whether the digits of s pass the Luhn check, so that every
// number below is one a card network could issue.
func luhn(s string) bool {
	sum, n, double := 0, 0, false
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		d := int(c - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
		n++
	}
	return n >= 13 && n <= 19 && sum%10 == 0
}

func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// lockedBuffer collects a writer's log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

// TestCardNumberNeverLogged: PostgreSQL quotes the value it refused, and
// an application's RAISE says what it likes; a card number in either
// must not reach the log record, through sanitize's log handler or a plain
// slog handler, whatever separates its digits.
func TestCardNumberNeverLogged(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	var plainLog lockedBuffer
	plain := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&plainLog, nil))),
		problem.WithMappers(pgfault.Mapper(pgfault.WithPool(h.pool))))

	cases := []struct {
		card, q, state string
	}{
		{"4111-1111-1111-1111", "SELECT $1::text::smallint", "22P02"},
		{"4111 1111 1111 1111", "SELECT $1::text::integer", "22P02"},
		{"5555555555554444", "SELECT $1::text::uuid", "22P02"},
		{"3782 822463 10005", "SELECT $1::text::bigint", "22P02"},
		{"6011-0009-9013-9424", "SELECT $1::text::numeric", "22P02"},
		{"4222222222222", "SELECT $1::text::date", "22008"},
		{"4111111111111111", "SELECT $1::text::int2", "22003"},
		{"6304 0000 0000 0000 00", "SELECT $1::text::boolean", "22P02"},
		{"4000056655665556", "DO $$ BEGIN RAISE EXCEPTION 'card % declined', '4000056655665556'; END $$", "P0001"},
	}
	for _, c := range cases {
		t.Run(c.card, func(t *testing.T) {
			if !luhn(c.card) {
				t.Fatalf("%s is not Luhn-valid: the case proves nothing", c.card)
			}
			op := pgfault.Track(ctx, c.q)
			var err error
			if strings.Contains(c.q, "$1") {
				_, err = h.pool.Exec(ctx, c.q, c.card)
			} else {
				_, err = h.pool.Exec(ctx, c.q)
			}
			var pg *pgconn.PgError
			if !errors.As(err, &pg) || pg.Code != c.state {
				t.Fatalf("error %v, want SQLSTATE %s", err, c.state)
			}
			if !strings.Contains(digits(err.Error()), digits(c.card)) {
				t.Fatalf("the driver's message does not quote the card, the case proves nothing: %v", err)
			}
			err = op.Err(err)
			r := h.render(t, err)
			rec := httptest.NewRecorder()
			if werr := plain.Write(rec, httptest.NewRequest(http.MethodPost, "/v1/payments", nil), plain.FromError(err)); werr != nil {
				t.Fatal(werr)
			}
			for name, line := range map[string]string{"sanitize's handler": mustLine(t, h), "a plain handler": plainLog.take()} {
				if line == "" {
					t.Fatalf("%s: no log record", name)
				}
				if strings.Contains(line, c.card) || strings.Contains(line, digits(c.card)) {
					t.Errorf("%s: the card number reaches the log:\n%s", name, line)
				}
				if !strings.Contains(line, `"sqlstate":"`+c.state+`"`) {
					t.Errorf("%s: the evidence is gone too:\n%s", name, line)
				}
			}
			checkHidden(t, r.raw)
			if strings.Contains(r.raw, digits(c.card)[:8]) {
				t.Errorf("the body quotes the card: %s", r.raw)
			}
		})
	}
}

// mustLine is the harness's last log record as written.
func mustLine(t *testing.T, h *harness) string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.logs.String()
}
