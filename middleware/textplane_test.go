package middleware_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// hidingWriter is a third-party wrapper (a logger's, a compressor's) that
// does not pass problem.Writer's mark on.
type hidingWriter struct{ http.ResponseWriter }

// A handler's own text/plain error that sets a header named like the
// writer's code header is not the text plane: X-Error-Code is a common
// name, and its raw body (a DSN, a user's name) must not pass as a
// problem. The text plane a Writer sends through a wrapper that hides its
// mark still passes, under whatever code header the writer names.
func TestOwnCodeHeaderDoesNotMakeAPlainErrorAProblem(t *testing.T) {
	const secret = "hunter2"
	for _, codeHeader := range []string{problem.DefaultCodeHeader, "X-Problem-Code"} {
		wr := problem.NewWriter(problem.WithCodeHeader(codeHeader))
		mux := http.NewServeMux()
		mux.HandleFunc("/legacy/{value}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(codeHeader, r.PathValue("value"))
			http.Error(w, "dial postgres://app:"+secret+"@10.0.0.5/db failed", http.StatusInternalServerError)
		})
		mux.HandleFunc("/plane", func(w http.ResponseWriter, r *http.Request) {
			_ = problem.Write(hidingWriter{w}, r, problem.New(problem.Conflict))
		})
		srv := httptest.NewServer(middleware.Stack(middleware.WithWriter(wr))(mux))
		for _, value := range []string{"DB_DOWN", "E1234", "db-down", "x"} {
			res, err := http.Get(srv.URL + "/legacy/" + value)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(body), secret) || res.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s: %s: handler's error passed through: %s %q", codeHeader, value, res.Header.Get("Content-Type"), body)
			}
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/plane", nil)
		req.Header.Set("Accept", "text/plain")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusConflict || res.Header.Get(codeHeader) != "conflict" || !strings.HasPrefix(string(body), "faultline: conflict: ") {
			t.Errorf("%s: the text plane through a hiding wrapper: %s %v %q", codeHeader, res.Status, res.Header, body)
		}
		srv.Close()
	}
}
