package problem_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/problem"
)

// wr.Handler fits the handler-function slot of chi's r.Get and of
// ServeMux.HandleFunc, and a returned error goes out with wr.
func TestHandlerFitsRouterFuncSlots(t *testing.T) {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)), problem.WithCodeHeader("X-Fault"))
	books := wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.Query().Get("id") == "" {
			return problem.New(problem.ValidationFailed).WithErrors(problem.FieldError{Detail: "required", Pointer: "#/id"})
		}
		return problem.New(problem.NotFound)
	})
	chiRouter := chi.NewRouter()
	chiRouter.Get("/books", books)
	chiRouter.Post("/books", books)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /books", books)
	for name, h := range map[string]http.Handler{"chi": chiRouter, "servemux": mux} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			for query, code := range map[string]string{"": "validation_failed", "?id=7": "not_found"} {
				resp, err := http.Get(srv.URL + "/books" + query)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var m map[string]any
				if err := json.Unmarshal(body, &m); err != nil || m["code"] != code || resp.Header.Get("X-Fault") != code {
					t.Errorf("GET /books%s: %d %s %q (%v)", query, resp.StatusCode, resp.Header.Get("X-Fault"), body, err)
				}
			}
		})
	}
}
