package middleware

import (
	"net/http"
	"testing"
)

func TestRecoverBeforeFirstWrite(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
			"GET /boom": func(w http.ResponseWriter, r *http.Request) { panic("secret-panic-value") },
		})
		srv := k.serve(t, h)
		r := get(t, srv.URL+"/boom")
		wantProblem(t, r, 500, "internal", map[string]any{
			"action": "retry", "cause": "internal", "outcome": "not_committed", "retryable": true,
		})
		if contains(r.body, "secret-panic-value") {
			t.Fatalf("panic value leaked: %s", r.body)
		}
		recs := k.logs.records(t)
		if len(recs) != 1 {
			t.Fatalf("%d log records, want 1: %v", len(recs), recs)
		}
		rec := recs[0]
		if rec["panic"] != "secret-panic-value" || rec["correlation_id"] != r.Header.Get("X-Request-Id") ||
			!containsStr(rec["stack"], "recover_test.go") {
			t.Fatalf("log record %v", rec)
		}
	})
}
