package middleware

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// A client that sends a credential where the ID belongs (a whole
// Authorization value, a token after a space) does not find it in the log,
// through Stack or correlation's own middleware, whatever the logger's
// handler: the record still says what was rejected and why.
func TestRejectedCorrelationIDPassesTheLogTier(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	for _, hostile := range []string{
		"Bearer " + token,
		"Authorization: Bearer " + token,
		"id token=" + token,
		"\u202e " + token + strings.Repeat("x", 4<<10),
	} {
		for name, wrap := range map[string]func(*slog.Logger) http.Handler{
			"stack": func(l *slog.Logger) http.Handler {
				return Stack(WithWriter(problem.NewWriter(problem.WithLogger(l))))(ok)
			},
			"correlation": func(l *slog.Logger) http.Handler {
				prev := slog.Default()
				t.Cleanup(func() { slog.SetDefault(prev) })
				slog.SetDefault(l)
				return correlation.Middleware()(ok)
			},
		} {
			var buf bytes.Buffer
			srv := httptest.NewServer(wrap(slog.New(slog.NewJSONHandler(&buf, nil))))
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header["X-Request-Id"] = []string{hostile}
			resp, err := srv.Client().Do(req)
			srv.Close()
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("X-Request-Id"); strings.Contains(got, token) || got == "" {
				t.Errorf("%s %q: echoed %q", name, hostile, got)
			}
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("%s %q: %v in %s", name, hostile, err, buf.String())
			}
			if strings.Contains(buf.String(), token[4:20]) {
				t.Errorf("%s %q: the log holds the token:\n%s", name, hostile, buf.String())
			}
			v, _ := rec["value"].(string)
			if !strings.Contains(v, sanitize.Redacted[:5]) || rec["reason"] == "" || len(v) > 64 || strings.ContainsRune(v, '\u202e') {
				t.Errorf("%s %q: value %q, reason %v", name, hostile, v, rec["reason"])
			}
		}
	}
}
