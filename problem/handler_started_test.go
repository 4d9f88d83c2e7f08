package problem_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// A handler served without middleware.Stack that returns an error after
// it started its response gets that response, not a problem appended to
// its body under the status already sent; the error is logged as not
// written. An error before the first byte is still a problem, also after
// an informational 103, and a streaming handler keeps http.Flusher.
func TestHandlerErrorAfterTheResponseStartedIsNotAppended(t *testing.T) {
	var logs bytes.Buffer
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	fail := errors.New("db: connection reset")
	mux := http.NewServeMux()
	for path, start := range map[string]func(w http.ResponseWriter){
		"/write":      func(w http.ResponseWriter) { _, _ = w.Write([]byte(`[{"id":1},`)) },
		"/header":     func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) },
		"/flush":      func(w http.ResponseWriter) { _, _ = io.WriteString(w, "data: 1\n\n"); w.(http.Flusher).Flush() },
		"/readfrom":   func(w http.ResponseWriter) { _, _ = io.Copy(w, strings.NewReader(`{"a":`)) },
		"/controller": func(w http.ResponseWriter) { _ = http.NewResponseController(w).Flush() },
		"/early-hints": func(w http.ResponseWriter) {
			w.Header().Set("Link", "</a.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
		},
		"/nothing": func(http.ResponseWriter) {},
	} {
		mux.HandleFunc(path, wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
			start(w)
			return fail
		}))
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for path, wantProblem := range map[string]bool{
		"/write": false, "/header": false, "/flush": false, "/readfrom": false, "/controller": false,
		"/early-hints": true, "/nothing": true,
	} {
		logs.Reset()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(bufio.NewReader(res.Body))
		res.Body.Close()
		isProblem := res.StatusCode == http.StatusInternalServerError && strings.HasPrefix(string(body), `{"type":`)
		if isProblem != wantProblem || !wantProblem && strings.Contains(string(body), `"code"`) {
			t.Errorf("%s: %s %q", path, res.Status, body)
		}
		if !strings.Contains(logs.String(), "connection reset") || wantProblem == strings.Contains(logs.String(), `"response_started":true`) {
			t.Errorf("%s: log %s", path, logs.String())
		}
	}
}
