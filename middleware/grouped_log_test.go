package middleware

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// A logger given to the problem writer after WithGroup keeps its
// attributes, secrets included, inside the group: NewHandler rebuilds
// those records to put the ID at the top level, and the rebuilt record
// must pass sanitize's handler in full, whatever the problem writer
// vouched for in the record it built.
func TestGroupedRecordsPassTheLogTierWhole(t *testing.T) {
	secrets := []struct{ key, value, leak string }{
		{"dsn", "postgres://app:Sup3rSecret@db/x", "Sup3rSecret"},
		{"password", "hunter2", "hunter2"},
		{"api_key", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c838347Ae178B4a"},
	}
	for _, mk := range []func(io.Writer) slog.Handler{
		func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) },
		func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) },
	} {
		for _, groups := range [][]string{{"app"}, {"svc", "http"}} {
			var buf testlog.Buffer
			logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(mk(&buf))))
			for _, g := range groups {
				logger = logger.WithGroup(g)
			}
			for _, s := range secrets {
				logger = logger.With(s.key, s.value)
			}
			wr := problem.NewWriter(problem.WithLogger(logger))
			mux := http.NewServeMux()
			mux.Handle("/fail", wr.Handler(func(http.ResponseWriter, *http.Request) error {
				return errors.New("query failed")
			}))
			mux.Handle("/missing", wr.Handler(func(http.ResponseWriter, *http.Request) error {
				return problem.New(problem.NotFound)
			}))
			srv := httptest.NewServer(Stack(WithWriter(wr))(mux))
			for i := 0; i < 3; i++ {
				for _, path := range []string{"/fail", "/missing"} {
					req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
					if i == 2 {
						req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
			srv.Close()
			out := buf.String()
			if n := strings.Count(out, "correlation_id"); n < 6 {
				t.Errorf("groups %v: %d records with an ID:\n%s", groups, n, out)
			}
			for _, s := range secrets {
				if strings.Contains(out, s.leak) {
					t.Errorf("groups %v: the log holds %s's %q:\n%s", groups, s.key, s.leak, out)
				}
			}
		}
	}
}
