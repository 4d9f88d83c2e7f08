package middleware

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// problem.From in a handler behind Stack(WithWriter(wr)) maps with wr's
// mappers, not the default writer's: a mapped not-found stays a 404 that
// says fix_request, never a retryable 500.
func TestFromUsesTheServingWriter(t *testing.T) {
	errBookNotFound := errors.New("store: book not found")
	errShelfLocked := errors.New("store: shelf locked")
	cases := []struct {
		err       error
		status    int
		code      string
		action    string
		retryable bool
	}{
		{errBookNotFound, 404, "not_found", "fix_request", false},
		{fmt.Errorf("load 7: %w", errBookNotFound), 404, "not_found", "fix_request", false},
		{fmt.Errorf("shelf: %w", errShelfLocked), 409, "conflict", "fix_request", false},
		{errors.New("unmapped"), 500, "internal", "verify", false},
	}
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		wr := problem.NewWriter(problem.WithLogger(k.writer.Logger()), problem.WithMappers(
			problem.MapIs(errBookNotFound, func() *problem.Problem { return problem.New(problem.NotFound) }),
			problem.MapIs(errShelfLocked, func() *problem.Problem { return problem.New(problem.Conflict) }),
		))
		var current error
		h := rt.build(Stack(WithWriter(wr)), map[string]http.HandlerFunc{
			"POST /books": func(w http.ResponseWriter, r *http.Request) {
				p := problem.From(r, current)
				_ = problem.Write(w, r, p)
			},
		})
		srv := k.serve(t, h)
		for _, c := range cases {
			current = c.err
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/books", nil)
			resp := do(t, req)
			m := wantProblem(t, resp, c.status, c.code, map[string]any{"retryable": c.retryable})
			if c.code != "internal" && m["action"] != c.action {
				t.Errorf("%v: action %v, want %s", c.err, m["action"], c.action)
			}
		}
	})
}
