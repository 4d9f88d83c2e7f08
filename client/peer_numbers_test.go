package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
)

// answer is a failure a foreign server sends: a status, headers and a body.
type answer struct {
	status int
	header map[string]string
	body   string
}

// countingServer answers with fail until the request count reaches
// failures, then 204; it counts every execution.
func countingServer(t *testing.T, failures int32, fail answer) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var executed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if executed.Add(1) > failures {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		for k, v := range fail.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(fail.status)
		_, _ = w.Write([]byte(fail.body))
	}))
	t.Cleanup(srv.Close)
	return srv, &executed
}

// TestTransportReadsEveryNumberSpelling proves issue 23 item 8 over the
// wire: a retry time in any JSON spelling (and in XML and the text plane)
// is the floor of the wait; one too large for any budget stops at once
// instead of being read as no wait at all.
func TestTransportReadsEveryNumberSpelling(t *testing.T) {
	const problemJSON = "application/problem+json"
	budget := client.Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxElapsed: time.Hour}
	for _, tc := range []struct {
		name  string
		fail  answer
		floor time.Duration // 0: the operation must stop after one execution
	}{
		{"python float", answer{503, map[string]string{"Content-Type": problemJSON}, `{"status":503,"action":"retry","retryable":true,"retry_after_ms":1000.0}`}, time.Second},
		{"exponent", answer{429, map[string]string{"Content-Type": problemJSON}, `{"status":429,"action":"retry","retryable":true,"retry_after_ms":1e3}`}, time.Second},
		{"fraction and exponent", answer{503, map[string]string{"Content-Type": problemJSON}, `{"status":503,"action":"retry","retryable":true,"retry_after_ms":1.5e3}`}, 1500 * time.Millisecond},
		{"signed exponent", answer{429, map[string]string{"Content-Type": "application/json"}, `{"status":429,"title":"Slow down","retry_after_ms":2.5E+3}`}, 2500 * time.Millisecond},
		{"xml", answer{503, map[string]string{"Content-Type": "application/problem+xml"}, `<problem xmlns="urn:ietf:rfc:7807"><status>503</status><action>retry</action><retryable>true</retryable><retry_after_ms> 1.5e3 </retry_after_ms></problem>`}, 1500 * time.Millisecond},
		{"text plane", answer{503, map[string]string{"Content-Type": "text/plain"}, "Example: unavailable: Try later.\naction: retry\nretryable: true\nretry_after_ms: 3e3\n"}, 3 * time.Second},
		{"Retry-After seconds", answer{503, map[string]string{"Retry-After": "2"}, ""}, 2 * time.Second},
		{"Retry-After with leading zeros", answer{429, map[string]string{"Retry-After": "0007"}, ""}, 7 * time.Second},
		{"retry_after_ms past a Duration", answer{503, map[string]string{"Content-Type": problemJSON}, `{"status":503,"action":"retry","retryable":true,"retry_after_ms":1e309}`}, 0},
		{"retry_after_ms of twenty digits", answer{429, map[string]string{"Content-Type": problemJSON}, `{"status":429,"action":"retry","retryable":true,"retry_after_ms":100000000000000000000}`}, 0},
		{"retry_after_ms of 9.3e12", answer{503, map[string]string{"Content-Type": problemJSON}, `{"status":503,"action":"retry","retryable":true,"retry_after_ms":9.3e12}`}, 0},
		{"Retry-After of 2^32 seconds", answer{503, map[string]string{"Retry-After": "4294967296"}, ""}, 0},
		{"Retry-After past uint64", answer{429, map[string]string{"Retry-After": "18446744073709551616"}, ""}, 0},
		{"text plane past a Duration", answer{503, map[string]string{"Content-Type": "text/plain"}, "Example: unavailable: Try later.\naction: retry\nretryable: true\nretry_after_ms: 1e400\n"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, executed := countingServer(t, 1, tc.fail)
			var rec recorder
			var slept []time.Duration
			sleep := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
			c := newClient(&rec, client.WithPolicy(budget), client.WithSleep(sleep))
			res, err := c.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			op := rec.last(t)
			if tc.floor == 0 {
				// A wait past any budget: stop, without waiting or retrying.
				if n := executed.Load(); n != 1 || len(slept) != 0 || op.Decision.Reason != "the next attempt would start after the operation's deadline" {
					t.Errorf("executed %d times, slept %v, decision %+v", n, slept, op.Decision)
				}
				if code := client.ExitCodeOf(op.Decision); code != client.ExitTemporary {
					t.Errorf("exit code %d", code)
				}
				return
			}
			if n := executed.Load(); n != 2 || res.StatusCode != 204 || len(slept) != 1 {
				t.Fatalf("executed %d times, status %d, slept %v", n, res.StatusCode, slept)
			}
			if slept[0] < tc.floor || slept[0] > tc.floor+time.Millisecond {
				t.Errorf("waited %s, want the server's %s", slept[0], tc.floor)
			}
		})
	}
}

// TestTransportPeerDocuments proves the rest of issue 23 item 8 over the
// wire: a document whose only problem member has the wrong type keeps its
// message, and an action outside the known set stops whatever the status.
func TestTransportPeerDocuments(t *testing.T) {
	for _, tc := range []struct {
		name     string
		method   string
		fail     answer
		verdict  client.Verdict
		line     string
		exit     int
		executed int32
	}{
		{"github", "GET", answer{401, map[string]string{"Content-Type": "application/json; charset=utf-8"},
			`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`},
			client.Reauthenticate, "http_401: Bad credentials", client.ExitAuth, 1},
		{"github as problem+json", "POST", answer{401, map[string]string{"Content-Type": "application/problem+json"},
			`{"message":"Bad credentials","status":"401"}`},
			client.Reauthenticate, "http_401: Bad credentials", client.ExitAuth, 1},
		{"wrong-typed status and a plain error", "GET", answer{404, map[string]string{"Content-Type": "application/json"},
			`{"status":"404","error":"No such repository"}`},
			client.FixRequest, "http_404: No such repository", client.ExitUsage, 1},
		{"oauth error beside a problem member", "POST", answer{400, map[string]string{"Content-Type": "application/json"},
			`{"status":400,"error":"invalid_grant","error_description":"The refresh token expired."}`},
			client.FixRequest, "invalid_grant: The refresh token expired.", client.ExitUsage, 1},
		{"unknown action on a 503", "GET", answer{503, map[string]string{"Content-Type": "application/problem+json"},
			`{"status":503,"title":"Busy","action":"retry_later","retryable":true}`},
			client.Stop, "http_503: Busy", client.ExitRefused, 1},
		{"unknown action in another case", "PUT", answer{429, map[string]string{"Content-Type": "application/problem+json"},
			`{"status":429,"code":"slow_down","title":"Slow down","action":"Retry","retryable":true,"retry_after_ms":1}`},
			client.Stop, "slow_down: Slow down", client.ExitRefused, 1},
		{"unknown outcome of a write", "POST", answer{429, map[string]string{"Content-Type": "application/problem+json"},
			`{"status":429,"title":"Slow down","action":"retry","retryable":true,"outcome":"partially_applied"}`},
			client.Verify, "http_429: Slow down", client.ExitUnknownOutcome, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, executed := countingServer(t, 10, tc.fail)
			var rec recorder
			res, err := newClient(&rec, client.WithSleep(noSleep)).Do(request(t, context.Background(), tc.method, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if n := executed.Load(); n != tc.executed {
				t.Errorf("executed %d times, want %d", n, tc.executed)
			}
			op := rec.last(t)
			if op.Decision.Verdict != tc.verdict {
				t.Errorf("decision %+v, want %s", op.Decision, tc.verdict)
			}
			perr := client.ReadError(res)
			if got := client.Line(perr); got != tc.line {
				t.Errorf("Line = %q, want %q", got, tc.line)
			}
			if code := client.ExitCode(tc.method, perr); code != tc.exit {
				t.Errorf("exit code %d, want %d", code, tc.exit)
			}
		})
	}
}
