package problem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// A Writer left unset where one is expected, a nil *Writer or a zero
// Writer that NewWriter did not make, writes as Default() does through
// every entry point, instead of panicking on every problem; so does a
// Writer made with WithRegistry(nil). Under middleware.Stack the panic
// had left each failing client with an aborted connection.
func TestUnsetWriterWritesAsTheDefault(t *testing.T) {
	var logs bytes.Buffer
	defer problem.SetDefault(problem.Default())
	problem.SetDefault(problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))), problem.WithBrand("dflt")))
	writers := map[string]*problem.Writer{
		"nil":          nil,
		"zero":         {},
		"nil registry": problem.NewWriter(problem.WithRegistry(nil), problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil)))),
	}
	for name, wr := range writers {
		h := http.NewServeMux()
		h.HandleFunc("/write", func(w http.ResponseWriter, r *http.Request) {
			_ = wr.Write(w, r, problem.New(problem.Conflict))
		})
		h.HandleFunc("/returned", wr.Handler(func(http.ResponseWriter, *http.Request) error { return problem.Gone }))
		h.HandleFunc("/bare", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", http.StatusTooManyRequests) })
		srv := httptest.NewServer(middleware.Stack(middleware.WithWriter(wr))(h))
		for path, code := range map[string]string{"/write": "conflict", "/returned": "gone", "/bare": "rate_limited", "/missing": "not_found"} {
			res, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatalf("%s writer, %s: %v", name, path, err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var doc map[string]any
			if err := json.Unmarshal(body, &doc); err != nil || doc["code"] != code || doc["status"] != float64(res.StatusCode) {
				t.Errorf("%s writer, %s: %s %s", name, path, res.Status, body)
			}
		}
		srv.Close()
		if got := wr.FromError(errors.New("x")).Code(); got != problem.Internal {
			t.Errorf("%s writer: FromError code %s", name, got)
		}
		if err := wr.Check(problem.New(problem.NotFound)); err != nil {
			t.Errorf("%s writer: Check: %v", name, err)
		}
		if p := wr.Report(context.Background(), "abcdefgh", problem.New(problem.NotFound)); p.Status() != http.StatusNotFound {
			t.Errorf("%s writer: Report status %d", name, p.Status())
		}
		if p := wr.Resolve(nil, problem.New(problem.NotFound)); p.Status() != http.StatusNotFound {
			t.Errorf("%s writer: Resolve status %d", name, p.Status())
		}
		if wr.Registry() == nil || wr.Logger() == nil {
			t.Errorf("%s writer: no registry or logger", name)
		}
	}
	if logs.Len() == 0 {
		t.Error("nothing logged to the default writer's logger")
	}
}
