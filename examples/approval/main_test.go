package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

type statusDoc struct {
	ApprovalID    string          `json:"approval_id"`
	State         string          `json:"state"`
	Action        string          `json:"action"`
	PollURL       string          `json:"poll_url"`
	RetryAfterMS  int64           `json:"retry_after_ms"`
	ResultURL     string          `json:"result_url"`
	Result        json.RawMessage `json:"result"`
	CorrelationID string          `json:"correlation_id"`
}

func do(t *testing.T, method, url, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

func doc(t *testing.T, raw []byte) statusDoc {
	t.Helper()
	var d statusDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return d
}

func TestApprovalLoop(t *testing.T) {
	a := newApp(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler))))
	srv := httptest.NewServer(a.handler)
	defer srv.Close()

	resp, raw := do(t, http.MethodPost, srv.URL+"/v1/refunds", `{"order_id":"o1","amount":12}`)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Content-Type") != "application/json" ||
		resp.Header.Get("Retry-After") != "2" || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("POST: %d %v %s", resp.StatusCode, resp.Header, raw)
	}
	d := doc(t, raw)
	if d.State != "pending" || d.Action != "poll" || d.RetryAfterMS != 2000 || d.ApprovalID == "" ||
		resp.Header.Get("Location") != d.PollURL || d.PollURL != "/v1/approvals/"+d.ApprovalID ||
		d.CorrelationID != resp.Header.Get("X-Request-Id") {
		t.Fatalf("accepted document %+v, Location %q", d, resp.Header.Get("Location"))
	}
	if strings.Contains(string(raw), `"code"`) || strings.Contains(string(raw), `"retryable"`) {
		t.Fatalf("a pending approval is not a problem: %s", raw)
	}

	resp, raw = do(t, http.MethodGet, srv.URL+d.PollURL, "")
	if p := doc(t, raw); resp.StatusCode != 200 || p.State != "pending" || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("poll while pending: %d %s", resp.StatusCode, raw)
	}

	if resp, raw = do(t, http.MethodPost, srv.URL+d.PollURL+"/approve", ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("approve: %d %s", resp.StatusCode, raw)
	}
	resp, raw = do(t, http.MethodGet, srv.URL+d.PollURL, "")
	p := doc(t, raw)
	if resp.StatusCode != 200 || p.State != "approved" || p.Action != "read_result" || p.ResultURL == "" ||
		resp.Header.Get("Location") != p.ResultURL || resp.Header.Get("Retry-After") != "" {
		t.Fatalf("poll once approved: %d %v %s", resp.StatusCode, resp.Header, raw)
	}
	resp, raw = do(t, http.MethodGet, srv.URL+p.ResultURL, "")
	if resp.StatusCode != 200 || !strings.Contains(string(raw), `"order_id":"o1"`) {
		t.Fatalf("result: %d %s", resp.StatusCode, raw)
	}
	if len(a.refunds) != 1 {
		t.Fatalf("%d refunds made, want exactly 1", len(a.refunds))
	}

	// Approving twice does not refund twice.
	if resp, _ = do(t, http.MethodPost, srv.URL+d.PollURL+"/approve", ""); resp.StatusCode != http.StatusConflict {
		t.Fatalf("second approve: %d", resp.StatusCode)
	}
}

func TestDeniedAndUnknownApprovals(t *testing.T) {
	srv := httptest.NewServer(newApp(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))).handler)
	defer srv.Close()
	_, raw := do(t, http.MethodPost, srv.URL+"/v1/refunds", `{"order_id":"o2","amount":5}`)
	d := doc(t, raw)
	do(t, http.MethodPost, srv.URL+d.PollURL+"/deny", "")
	resp, raw := do(t, http.MethodGet, srv.URL+d.PollURL, "")
	if p := doc(t, raw); resp.StatusCode != 200 || p.State != "denied" || p.Action != "none" || p.ResultURL != "" {
		t.Fatalf("denied: %d %s", resp.StatusCode, raw)
	}
	resp, raw = do(t, http.MethodGet, srv.URL+"/v1/approvals/apr_nope", "")
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(raw), `"code":"not_found"`) {
		t.Fatalf("unknown: %d %s", resp.StatusCode, raw)
	}
	resp, raw = do(t, http.MethodPost, srv.URL+"/v1/refunds", `{"amount":-1}`)
	if resp.StatusCode != 422 || !strings.Contains(string(raw), `"code":"validation_failed"`) {
		t.Fatalf("invalid refund: %d %s", resp.StatusCode, raw)
	}
}
