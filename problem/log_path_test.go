package problem_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// The request path reaches the problem's log record through the log tier,
// even behind a plain slog handler: a token in the path is not logged, and
// a bidi control or NUL cannot reorder or cut what an operator reads.
func TestLogRecordPathPassesTheLogTier(t *testing.T) {
	var buf bytes.Buffer
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	srv := httptest.NewServer(wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		return problem.New(problem.NotFound)
	}))
	defer srv.Close()
	for _, path := range []string{
		"/t/ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"/reset/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"/u/%E2%80%AEtxt.exe",
		"/v1/orders/42",
	} {
		buf.Reset()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var rec struct{ Path string }
		if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v: %s", path, err, buf.Bytes())
		}
		for _, leak := range []string{"abcdefghijklmnopqrstuvwxyz0123456789", "dozjgNryP4J3jVmNHl0w5N", "\u202e"} {
			if strings.Contains(rec.Path, leak) {
				t.Errorf("%s: logged path %q keeps %q", path, rec.Path, leak)
			}
		}
		if path == "/v1/orders/42" && rec.Path != path {
			t.Errorf("clean path logged as %q", rec.Path)
		}
	}
}
