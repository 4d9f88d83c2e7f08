package benchmarks

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/benchmarks/internal/anchor"
	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

var errWithDSN = errors.New(`load order: dial postgres://app:hunter2-pw@10.1.2.3:5432/orders: SELECT * FROM orders WHERE id = 'ord_9': connection refused`)

// distinctErrors are errWithDSN for 4096 different orders: a route that
// returns them in turn never fails with the same text twice within any
// cache of recent texts, so it shows the cost of an error seen for the
// first time.
var distinctErrors = func() []error {
	errs := make([]error, 4096)
	for i := range errs {
		errs[i] = fmt.Errorf(`load order: dial postgres://app:hunter2-pw@10.1.2.3:5432/orders: SELECT * FROM orders WHERE id = 'ord_%d': connection refused`, i)
	}
	return errs
}()

// sameError returns errWithDSN every time; cycleErrors returns
// distinctErrors in turn (the benchmarks run one request at a time).
func sameError() error { return errWithDSN }

func cycleErrors() func() error {
	i := 0
	return func() error {
		i++
		return distinctErrors[i%len(distinctErrors)]
	}
}

// BenchmarkErrorRoute is the in-process form of load.sh's /fail route: a
// bare chi http.Error, the hand-written anchor, and faultline mapping,
// sanitizing, rendering and logging (JSON lines through the correlation and
// sanitize handlers, to io.Discard) an error whose text holds a DSN: the
// same error on every request, as in an error storm, and a different one
// on every request.
func BenchmarkErrorRoute(b *testing.B) {
	bare := chi.NewRouter()
	bare.Get("/fail", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "internal error", http.StatusInternalServerError)
	})

	faultline := func(h slog.Handler, next func() error) http.Handler {
		logger := slog.New(correlation.NewHandler(h))
		wr := problem.NewWriter(problem.WithLogger(logger))
		r := chi.NewRouter()
		r.Use(middleware.Stack(middleware.WithWriter(wr), middleware.WithBodyLimit(1<<20)))
		r.Method(http.MethodGet, "/fail", wr.Handler(func(http.ResponseWriter, *http.Request) error { return next() }))
		return r
	}
	jsonLog := slog.NewJSONHandler(io.Discard, nil)

	for _, c := range []struct {
		name string
		h    http.Handler
	}{
		{"bare_chi_http_error", bare},
		// The anchor faultline's error route is held to (issue 13).
		{"chi_handwritten_slog_json_problem", anchor.ErrorRoute(slog.New(jsonLog), sameError)},
		// Not the anchor: the same route sending the contract's headers too,
		// which shows how much of the difference they are.
		{"chi_handwritten_slog_json_problem_contract_headers", anchor.ErrorRouteWithContractHeaders(slog.New(jsonLog), sameError)},
		// The recommended logger: every record through sanitize's log tier.
		{"faultline_sanitize_log_handler", faultline(sanitize.NewLogHandler(jsonLog), sameError)},
		// problem already passes the error text through the log tier; this
		// is the cost without the second, whole-record pass.
		{"faultline_problem_log_tier_only", faultline(jsonLog, sameError)},
		{"distinct_errors/chi_handwritten_slog_json_problem", anchor.ErrorRoute(slog.New(jsonLog), cycleErrors())},
		// The anchor issue 27 holds distinct errors to.
		{"distinct_errors/chi_handwritten_slog_json_problem_contract_headers", anchor.ErrorRouteWithContractHeaders(slog.New(jsonLog), cycleErrors())},
		{"distinct_errors/faultline_sanitize_log_handler", faultline(sanitize.NewLogHandler(jsonLog), cycleErrors())},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/fail", nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusInternalServerError {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}

// BenchmarkErrorTextLogTier is the log tier's own pass over the error
// route's texts: what a faultline error route pays for a text it has not
// seen recently (distinct) and does not pay for one it has (the route
// remembers the attribute). The difference between the route's two
// faultline rows is this pass.
func BenchmarkErrorTextLogTier(b *testing.B) {
	b.Run("repeated", func(b *testing.B) {
		text := errWithDSN.Error()
		b.ReportAllocs()
		for b.Loop() {
			_ = sanitize.Log(text)
		}
	})
	b.Run("distinct", func(b *testing.B) {
		next := cycleErrors()
		b.ReportAllocs()
		for b.Loop() {
			_ = sanitize.Log(next().Error())
		}
	})
}
