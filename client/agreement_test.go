package client_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

var allMethods = []string{"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "POST", "PATCH"}

// errorStatuses is every 4xx and 5xx status net/http names, and a few it
// does not.
func errorStatuses() []int {
	var out []int
	for s := 400; s <= 599; s++ {
		if http.StatusText(s) != "" {
			out = append(out, s)
		}
	}
	return append(out, 420, 499, 520, 599)
}

// statusRuled are the statuses the client reads a meaning into when a
// problem has no action; every other one is read as its class.
var statusRuled = map[int]bool{400: true, 401: true, 403: true, 407: true, 408: true, 425: true, 429: true, 451: true,
	499: true, 500: true, 501: true, 502: true, 503: true, 504: true, 599: true}

// bodies is what a server may send with a status: nothing, an HTML page
// from a proxy, a plain JSON error, and problem documents with every
// combination of the guidance members, known and unknown values (for the
// statuses of their own rule; a sample for the others).
func bodies(status int) []struct{ media, body string } {
	out := []struct{ media, body string }{
		{"", ""},
		{"text/html", "<html><body>Bad Gateway</body></html>"},
		{"application/json", `{"message":"Bad credentials","status":"` + fmt.Sprint(status) + `"}`},
		{"application/json", `{"error":"quota_exceeded","error_description":"too many"}`},
	}
	actions := []string{"", "retry", "verify", "fix_request", "reauthenticate", "configure", "approve", "unlock", "none", "retry_later"}
	outcomes := []string{"", "not_started", "not_committed", "committed", "unknown", "partially_committed"}
	causes := []string{"", "auth", "upstream", "internal"}
	// A floor past any budget stops a retryable failure at once.
	waits := []string{"", "1e309"}
	if !statusRuled[status] {
		actions, causes = []string{"", "retry", "none", "retry_later"}, []string{"", "auth"}
	}
	for _, a := range actions {
		for _, o := range outcomes {
			for _, c := range causes {
				for _, r := range []bool{true, false} {
					for _, w := range waits {
						if w != "" && a != "" && a != "retry" {
							// Only a retry waits.
							continue
						}
						var b strings.Builder
						fmt.Fprintf(&b, `{"status":%d,"title":"t","retryable":%v`, status, r)
						for name, v := range map[string]string{"action": a, "outcome": o, "cause": c} {
							if v != "" {
								fmt.Fprintf(&b, `,%q:%q`, name, v)
							}
						}
						if w != "" {
							b.WriteString(`,"retry_after_ms":` + w)
						}
						b.WriteString("}")
						out = append(out, struct{ media, body string }{"application/problem+json", b.String()})
					}
				}
			}
		}
	}
	return out
}

// transportErrors are failures without a response, each with the
// request context's state when it happened.
func transportErrors() []client.Attempt {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	cert := &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	headerTimeout := fmt.Errorf("net/http: timeout awaiting response headers: %w", context.DeadlineExceeded)
	var out []client.Attempt
	for _, err := range []error{dial, reset, cert, io.EOF, io.ErrUnexpectedEOF, headerTimeout,
		context.Canceled, context.DeadlineExceeded, &net.DNSError{Err: "no such host", Name: "api.invalid"}, errors.New("boom")} {
		for _, ctxErr := range []error{nil, context.Canceled, context.DeadlineExceeded} {
			out = append(out, client.Attempt{Err: fmt.Errorf("Post: %w", err), ContextErr: ctxErr})
		}
	}
	return out
}

// checkAgreement states, apart from Decide, what each verdict allows as an
// exit code: the two never disagree on whether running again is safe.
var allowedExit = map[client.Verdict][]int{
	client.Verify:          {client.ExitUnknownOutcome},
	client.Retry:           {client.ExitTemporary, client.ExitUpstream, client.ExitInternal},
	client.FixRequest:      {client.ExitUsage, client.ExitAuth},
	client.Reauthenticate:  {client.ExitAuth},
	client.WaitForApproval: {client.ExitRefused, client.ExitAuth},
	client.Stop:            {client.ExitInternal, client.ExitAuth, client.ExitRefused, client.ExitTemporary, client.ExitUpstream, client.ExitUnknownOutcome},
}

func checkAgreement(d client.Decision) error {
	code := client.ExitCodeOf(d)
	ok := false
	for _, c := range allowedExit[d.Verdict] {
		ok = ok || c == code
	}
	if !ok {
		return fmt.Errorf("verdict %s (%s) with exit code %d", d.Verdict, d.Reason, code)
	}
	if d.Verdict == client.Stop {
		budget := d.Reason == "attempts exhausted" || d.Reason == "the next attempt would start after the operation's deadline"
		if (code == client.ExitTemporary || code == client.ExitUpstream) && !budget {
			return fmt.Errorf("stop (%s) with exit code %d: a script would run again what Decide stopped", d.Reason, code)
		}
		if code == client.ExitUnknownOutcome && !strings.Contains(d.Reason, "took effect") {
			return fmt.Errorf("stop (%s) with exit code 7", d.Reason)
		}
	}
	return nil
}

// TestDecideAndExitCodeAgree proves issue 23 item 5: for every status
// (with and without a body, with every outcome and action), every
// transport error, every method, with and without a key, at the first
// attempt and the last, Decide's verdict and its exit code agree, and
// ExitCode is the exit code of Decide's decision.
func TestDecideAndExitCodeAgree(t *testing.T) {
	pol := client.Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxElapsed: 10 * time.Second}
	seen := map[client.Verdict]int{}
	codes := map[int]int{}
	var attempts []client.Attempt
	var errs, keyedErrs []error
	for _, status := range errorStatuses() {
		for _, b := range bodies(status) {
			var read [2]error
			for i, key := range []string{"", "order-7f1c"} {
				res := &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody,
					Request: &http.Request{Method: "POST", Header: http.Header{}}}
				if key != "" {
					res.Request.Header.Set(client.IdempotencyKeyHeader, key)
				}
				if b.body != "" {
					res.Header.Set("Content-Type", b.media)
					res.Body = io.NopCloser(strings.NewReader(b.body))
				}
				read[i] = client.ReadError(res)
			}
			var p *problem.Problem
			if !errors.As(read[0], &p) {
				t.Fatalf("%d %s: ReadError = %v", status, b.body, read[0])
			}
			attempts = append(attempts, client.Attempt{Problem: p})
			errs, keyedErrs = append(errs, read[0]), append(keyedErrs, read[1])
		}
	}
	for _, a := range transportErrors() {
		attempts = append(attempts, a)
		// A transport error does not say whether the request had a key.
		errs, keyedErrs = append(errs, a.Err), append(keyedErrs, nil)
	}
	failures := 0
	for i, base := range attempts {
		for _, method := range allMethods {
			for _, key := range []bool{false, true} {
				for _, n := range []int{1, pol.MaxAttempts} {
					a := base
					a.Method, a.IdempotencyKey, a.Number = method, key, n
					d := pol.Decide(a)
					seen[d.Verdict]++
					codes[client.ExitCodeOf(d)]++
					if err := checkAgreement(d); err != nil && failures < 20 {
						failures++
						t.Errorf("%s key=%v attempt %d of %v: %v", method, key, n, errs[i], err)
					}
				}
			}
			// ExitCode is the decision of a first attempt, with the key
			// the response's request carried.
			for key, err := range map[bool]error{false: errs[i], true: keyedErrs[i]} {
				if err == nil {
					continue
				}
				a := base
				a.Method, a.Number, a.IdempotencyKey = method, 1, key
				if a.Err != nil {
					// ExitCode sees only the error: a cancellation in it is
					// the caller's, a deadline a timeout.
					a.ContextErr = nil
				}
				want := client.Policy{}.Decide(a)
				if got := client.ExitCode(method, err); got != client.ExitCodeOf(want) && failures < 20 {
					failures++
					t.Errorf("%s key=%v %v: ExitCode %d, Decide %s (%s) whose exit code is %d", method, key, err, got, want.Verdict, want.Reason, client.ExitCodeOf(want))
				}
			}
		}
	}
	for v := client.Stop; v <= client.WaitForApproval; v++ {
		if seen[v] == 0 {
			t.Errorf("no input decided %s", v)
		}
	}
	for c := client.ExitInternal; c <= client.ExitUnknownOutcome; c++ {
		if codes[c] == 0 {
			t.Errorf("no input had exit code %d", c)
		}
	}
	t.Logf("%d inputs, verdicts %v, exit codes %v", len(attempts), seen, codes)
}

// TestExitCodeOfWritesAServerDidNotVouchFor pins the cases issue 23 item 5
// found: a bare 5xx, and a foreign problem without an outcome, are to be
// verified for a write without a key, never "temporary".
func TestExitCodeOfWritesAServerDidNotVouchFor(t *testing.T) {
	for _, status := range []int{500, 502, 503, 504} {
		for _, body := range []string{"", `{"status":` + fmt.Sprint(status) + `,"title":"x","retryable":true}`, `{"title":"x","action":"retry","retryable":true,"code":"busy"}`} {
			for _, method := range []string{"POST", "PATCH"} {
				res := &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody}
				if body != "" {
					res.Header.Set("Content-Type", "application/problem+json")
					res.Body = io.NopCloser(strings.NewReader(body))
				}
				err := client.ReadError(res)
				var p *problem.Problem
				errors.As(err, &p)
				d := client.Policy{}.Decide(client.Attempt{Method: method, Problem: p, Number: 1})
				if d.Verdict != client.Verify || client.ExitCode(method, err) != client.ExitUnknownOutcome {
					t.Errorf("%s %d %q: %s, exit code %d; want verify and 7", method, status, body, d.Verdict, client.ExitCode(method, err))
				}
				// Under a key the same failure is retried, and temporary.
				d = client.Policy{}.Decide(client.Attempt{Method: method, Problem: p, Number: 1, IdempotencyKey: true})
				if d.Verdict != client.Retry || client.ExitCodeOf(d) == client.ExitUnknownOutcome {
					t.Errorf("%s %d %q with a key: %s, exit code %d", method, status, body, d.Verdict, client.ExitCodeOf(d))
				}
			}
		}
	}
	// A committed write that retrying would repeat is not "temporary".
	p := problem.New(problem.Unavailable).WithOutcome(problem.OutcomeCommitted)
	if code := client.ExitCode("POST", p); code != client.ExitUnknownOutcome {
		t.Errorf("committed POST: exit code %d", code)
	}
	// Nor is a failure the server says retrying will not help.
	foreign := peer(map[string]any{"status": 503, "action": "retry"})
	d := client.Policy{}.Decide(client.Attempt{Method: "GET", Problem: foreign, Number: 1})
	if code := client.ExitCode("GET", foreign); d.Verdict != client.Stop || code == client.ExitTemporary {
		t.Errorf("not retryable: %s, exit code %d", d.Verdict, code)
	}
}

// TestExitCodeKnowsTheCallersKey: a write the server may have executed is
// safe to run again under the caller's own Idempotency-Key (exit code 5,
// as Decide retried it), never under a key the Transport drew, which the
// next run of the command does not have (exit code 7).
func TestExitCodeKnowsTheCallersKey(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		opts   []client.Option
		exit   int
	}{
		{"caller's key", []string{client.IdempotencyKeyHeader, "order-7f1c"}, nil, client.ExitTemporary},
		{"generated key", nil, []client.Option{client.WithIdempotencyKeys()}, client.ExitUnknownOutcome},
		{"no key", nil, nil, client.ExitUnknownOutcome},
	} {
		srv, executed := countingServer(t, 10, answer{status: http.StatusServiceUnavailable})
		var rec recorder
		res, err := newClient(&rec, append([]client.Option{client.WithSleep(noSleep)}, tc.opts...)...).Do(request(t, context.Background(), "POST", srv.URL, tc.header...))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		want := int32(3)
		if tc.header == nil && tc.opts == nil {
			want = 1
		}
		if n := executed.Load(); n != want {
			t.Errorf("%s: executed %d times, want %d", tc.name, n, want)
		}
		if code := client.ExitCode("POST", client.ReadError(res)); code != tc.exit {
			t.Errorf("%s: exit code %d, want %d", tc.name, code, tc.exit)
		}
	}
}
