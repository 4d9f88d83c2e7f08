package approval_test

import (
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

func TestUnmarshalableResultStillTellsTheState(t *testing.T) {
	store := approval.NewMemoryStore(func(id string) string { return "/a/" + id }, time.Second)
	a := store.Create()
	if err := store.Approve(a.ID, "/r/1", func() {}); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	approval.PollHandler(store, func(*http.Request) string { return a.ID }).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/a/x", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"state":"approved"`) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if err := store.Deny(a.ID); err == nil {
		t.Fatal("a decided approval was decided again")
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
	store := approval.NewMemoryStore(func(id string) string { return "/v1/approvals/" + id }, 0)
	a := store.Create()
	rec := httptest.NewRecorder()
	approval.WriteAccepted(rec, httptest.NewRequest(http.MethodPost, "/v1/refunds", nil), a)
	if rec.Code != 202 || rec.Header().Get("Location") != a.PollURL || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), `"retry_after_ms":1000`) {
		t.Fatalf("202: %v %s", rec.Header(), rec.Body)
	}
	rec = httptest.NewRecorder()
	approval.PollHandler(store, func(*http.Request) string { return a.ID }).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, a.PollURL, nil))
	if rec.Code != 200 || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), `"state":"pending"`) {
		t.Fatalf("poll: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}
