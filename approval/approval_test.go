package approval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/approval"
)

func TestAcceptedHeadersAndHEAD(t *testing.T) {
	a := approval.Approval{ID: "apr_1", PollURL: "/v1/approvals/apr_1", RetryAfter: 1500 * time.Millisecond}
	rec := httptest.NewRecorder()
	approval.WriteAccepted(rec, httptest.NewRequest(http.MethodHead, "/v1/refunds", nil), a)
	if rec.Code != 202 || rec.Header().Get("Location") != a.PollURL || rec.Header().Get("Retry-After") != "2" || rec.Body.Len() != 0 {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body)
	}
}

// store is the smallest approval.Store: what a service keeps in its
// database.
type store map[string]approval.Approval

func (s store) Get(_ context.Context, id string) (approval.Approval, error) {
	a, ok := s[id]
	if !ok {
		return approval.Approval{}, fmt.Errorf("%w: %s", approval.ErrNotFound, id)
	}
	return a, nil
}

func TestUnmarshalableResultStillTellsTheState(t *testing.T) {
	a := approval.Approval{ID: "apr_9", State: approval.Approved, PollURL: "/a/apr_9", ResultURL: "/r/1", Result: func() {}}
	rec := httptest.NewRecorder()
	approval.PollHandler(store{a.ID: a}, func(*http.Request) string { return a.ID }).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/a/x", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"state":"approved"`) || rec.Header().Get("Location") != "/r/1" {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

func ExampleWriteAccepted() {
	rec := httptest.NewRecorder()
	approval.WriteAccepted(rec, httptest.NewRequest(http.MethodPost, "/v1/refunds", nil), approval.Approval{
		ID: "apr_7", PollURL: "/v1/approvals/apr_7", RetryAfter: 5 * time.Second,
	})
	fmt.Println(rec.Code, rec.Header().Get("Location"), rec.Header().Get("Retry-After"))
	fmt.Println(rec.Body)
	// Output:
	// 202 /v1/approvals/apr_7 5
	// {"approval_id":"apr_7","state":"pending","action":"poll","poll_url":"/v1/approvals/apr_7","retry_after_ms":5000}
}

// TestPendingAlwaysSaysWhenToPoll: an approval created without a poll
// interval still tells the client when to poll, in the header and the
// document, on the 202 and on the poll.
func TestPendingAlwaysSaysWhenToPoll(t *testing.T) {
	a := approval.Approval{ID: "apr_3", State: approval.Pending, PollURL: "/v1/approvals/apr_3"}
	rec := httptest.NewRecorder()
	approval.WriteAccepted(rec, httptest.NewRequest(http.MethodPost, "/v1/refunds", nil), a)
	if rec.Code != 202 || rec.Header().Get("Location") != a.PollURL || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), `"retry_after_ms":1000`) {
		t.Fatalf("202: %v %s", rec.Header(), rec.Body)
	}
	rec = httptest.NewRecorder()
	approval.PollHandler(store{a.ID: a}, func(*http.Request) string { return a.ID }).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, a.PollURL, nil))
	if rec.Code != 200 || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), `"state":"pending"`) {
		t.Fatalf("poll: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

// The poll endpoint reads the approval from the service's Store; here a
// pending one, which tells the client when to poll again.
func ExamplePollHandler() {
	pending := approval.Approval{ID: "apr_7", State: approval.Pending, PollURL: "/v1/approvals/apr_7", RetryAfter: 5 * time.Second}
	mux := http.NewServeMux()
	mux.Handle("GET /v1/approvals/{id}", approval.PollHandler(store{pending.ID: pending}, func(r *http.Request) string { return r.PathValue("id") }))

	for _, path := range []string{"/v1/approvals/apr_7", "/v1/approvals/apr_8"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Println(rec.Code, rec.Header().Get("Retry-After"), rec.Header().Get("Content-Type"))
	}
	// Output:
	// 200 5 application/json
	// 404  application/problem+json
}

// A pending approval's poll interval can be computed (time.Until the next
// check) and come out below a millisecond: the document still says when to
// poll, never omits retry_after_ms while the header says 1, as problems do.
func TestPollIntervalBelowAMillisecondIsStillTold(t *testing.T) {
	for _, d := range []time.Duration{time.Nanosecond, 300 * time.Microsecond, time.Millisecond - time.Nanosecond} {
		a := approval.Approval{ID: "apr_9", State: approval.Pending, PollURL: "/v1/approvals/apr_9", RetryAfter: d}
		rec := httptest.NewRecorder()
		approval.WriteAccepted(rec, httptest.NewRequest(http.MethodPost, "/v1/refunds", nil), a)
		var doc struct {
			RetryAfterMS *int64 `json:"retry_after_ms"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.RetryAfterMS == nil || *doc.RetryAfterMS < 1 || rec.Header().Get("Retry-After") != "1" {
			t.Errorf("RetryAfter %v: Retry-After %q, document %s", d, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
}
