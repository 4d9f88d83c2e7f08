package problem_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

// Issue 24 trap 2: a Problem has no member a handler can set that the
// writer then ignores. Every field is unexported, so the only way to change
// one is a builder, and what a builder expresses goes out exactly as built.
func TestProblemHasNoAssignableMember(t *testing.T) {
	typ := reflect.TypeFor[problem.Problem]()
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() {
			t.Errorf("Problem.%s is exported: a handler could assign it and the writer overrule it", f.Name)
		}
	}
}

func TestWhatABuilderExpressesGoesOutAsBuilt(t *testing.T) {
	const withdrawn problem.Kind = "book_withdrawn"
	reg := problem.NewRegistry()
	register(t, reg, problem.Definition{Code: withdrawn, Status: 410, Title: "Book withdrawn",
		Action: problem.ActionNone, Cause: problem.CausePolicy, ShowDetail: true})
	wr := problem.NewWriter(problem.WithRegistry(reg), problem.WithLogger(slog.New(slog.DiscardHandler)))
	cases := []struct {
		name   string
		p      *problem.Problem
		status int
		want   map[string]any
	}{
		{"not_found told not to retry", problem.New(problem.NotFound).WithAction(problem.ActionNone), 404,
			map[string]any{"title": "Not found", "code": "not_found", "action": "none"}},
		{"conflict blamed on policy", problem.New(problem.Conflict).WithCause(problem.CausePolicy).WithAction(problem.ActionApprove), 409,
			map[string]any{"code": "conflict", "cause": "policy", "action": "approve"}},
		{"unavailable, not retryable", problem.New(problem.Unavailable).WithRetryAfter(2 * time.Second).WithRetryable(false), 503,
			map[string]any{"code": "unavailable", "retryable": false}},
		// A 410 is the code's: the built-in gone, or the service's own kind.
		{"gone", problem.New(problem.Gone).WithDetail("Book 7 was withdrawn."), 410,
			map[string]any{"title": definition(problem.Gone).Title, "code": "gone", "detail": "Book 7 was withdrawn."}},
		{"a user kind for 410", problem.New(withdrawn), 410,
			map[string]any{"title": "Book withdrawn", "code": "book_withdrawn", "action": "none", "cause": "policy"}},
	}
	for _, c := range cases {
		if err := wr.Check(c.p); err != nil {
			t.Errorf("%s: Check = %v", c.name, err)
		}
		rec := httptest.NewRecorder()
		if err := wr.Write(rec, httptest.NewRequest("GET", "/books/7", nil), c.p); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if rec.Code != c.status || m["status"] != float64(c.status) {
			t.Errorf("%s: status %d, body %s", c.name, rec.Code, rec.Body)
		}
		for k, v := range c.want {
			if m[k] != v {
				t.Errorf("%s: %s = %v, want %v (%s)", c.name, k, m[k], v, rec.Body)
			}
		}
		if _, ok := m["retry_after_ms"]; ok && m["retryable"] == false {
			t.Errorf("%s: a retry time without permission to retry: %s", c.name, rec.Body)
		}
	}
}

// A builder never changes its receiver: a shared sentinel stays as built.
func TestBuildersLeaveTheSentinel(t *testing.T) {
	sentinel := problem.New(problem.Unavailable).WithRetryAfter(time.Second)
	_ = sentinel.WithAction(problem.ActionNone).WithCause(problem.CauseConfig).WithRetryable(false).WithOutcome(problem.OutcomeCommitted)
	if sentinel.Action() != definition(problem.Unavailable).Action || sentinel.Cause() != definition(problem.Unavailable).Cause ||
		!sentinel.Retryable() || sentinel.RetryAfter() != time.Second || sentinel.Outcome() != "" {
		t.Errorf("sentinel changed: %s %s %v %s %q", sentinel.Action(), sentinel.Cause(), sentinel.Retryable(), sentinel.RetryAfter(), sentinel.Outcome())
	}
}
