package problem_test

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// wrapsNothing is a handler's error type with a bug: its Error follows a
// field that was never set.
type wrapsNothing struct{ cause error }

func (w wrapsNothing) Error() string { return "load profile: " + w.cause.Error() }

type panicsWithText struct{}

func (panicsWithText) Error() string { panic("dial postgres://app:Pr1vatePw@db/x") }

// A returned error whose Error method panics is still answered with its
// problem and logged under the request's correlation ID, as fmt prints
// such an error: the writer called Error after it had sent the status
// line, so the panic cut the response it had started (an aborted
// connection under Stack, net/http's own recovery without it) and the
// failure's record was never written.
func TestReturnedErrorWhoseErrorPanicsIsStillAProblem(t *testing.T) {
	for _, err := range []error{wrapsNothing{}, panicsWithText{}, errors.Join(errors.New("first"), wrapsNothing{})} {
		for _, stacked := range []bool{true, false} {
			var logs testlog.Buffer
			wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
			var h http.Handler = wr.Handler(func(http.ResponseWriter, *http.Request) error { return err })
			if stacked {
				h = middleware.Stack(middleware.WithWriter(wr))(h)
			}
			srv := httptest.NewServer(h)
			resp, gerr := http.Get(srv.URL)
			if gerr != nil {
				srv.Close()
				t.Fatalf("%T, stacked %v: %v", err, stacked, gerr)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			srv.Close()
			var doc struct {
				Code          string `json:"code"`
				CorrelationID string `json:"correlation_id"`
			}
			if jerr := json.Unmarshal(body, &doc); jerr != nil || resp.StatusCode != 500 || doc.Code != "internal" {
				t.Errorf("%T, stacked %v: %d %s", err, stacked, resp.StatusCode, body)
			}
			out := logs.String()
			if strings.Count(out, "\n") != 1 || !strings.Contains(out, "panic") || strings.Contains(out, "Pr1vatePw") ||
				(stacked && !strings.Contains(out, doc.CorrelationID)) {
				t.Errorf("%T, stacked %v: log\n%s", err, stacked, out)
			}
		}
	}
}
