package client_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// TestReadErrorTextPlaneWithCRLF: text/plain's canonical line break is
// CRLF (RFC 2046 §4.1.1), and a proxy or gateway may send the kit's text
// plane so. Each line's CR belongs to the break, not to the value: it was
// kept, so "action: retry\r" was an unknown action (a 429 to stop, exit
// code 4, never retried) and every message ended in a stray byte.
func TestReadErrorTextPlaneWithCRLF(t *testing.T) {
	kit := kitServer(t, func(_ http.ResponseWriter, r *http.Request) error {
		if r.URL.Path == "/limited" {
			return problem.New(problem.RateLimited).WithRetryAfter(1500 * time.Millisecond)
		}
		return problem.New(problem.ValidationFailed).WithErrors(
			problem.FieldError{Detail: "must be at least 1", Pointer: "/quantity", Code: "min"})
	})
	proxy := foreignServer(t, func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequest(r.Method, kit.URL+r.URL.Path, nil)
		req.Header.Set("Accept", "text/plain")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		w.Header().Set("Content-Type", res.Header.Get("Content-Type"))
		w.WriteHeader(res.StatusCode)
		_, _ = io.WriteString(w, strings.ReplaceAll(string(b), "\n", "\r\n"))
	})
	for _, tc := range []struct {
		path   string
		code   problem.Kind
		action problem.Action
		exit   int
	}{
		{"/limited", problem.RateLimited, problem.ActionRetry, client.ExitTemporary},
		{"/orders", problem.ValidationFailed, problem.ActionFixRequest, client.ExitUsage},
	} {
		res, err := http.Get(proxy.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		p, re := readProblem(t, res)
		res.Body.Close()
		if re.Err != nil || p.Code() != tc.code || p.Action() != tc.action {
			t.Errorf("%s: code %q action %q (err %v)", tc.path, p.Code(), p.Action(), re.Err)
		}
		if line := client.Line(re); strings.HasSuffix(line, " ") {
			t.Errorf("%s: line %q ends in the CR", tc.path, line)
		}
		if code := client.ExitCode("GET", re); code != tc.exit {
			t.Errorf("%s: exit code %d, want %d", tc.path, code, tc.exit)
		}
		if tc.code == problem.RateLimited && (!p.Retryable() || p.RetryAfter() != 1500*time.Millisecond) {
			t.Errorf("%s: retryable %v, retry after %s", tc.path, p.Retryable(), p.RetryAfter())
		}
		for _, fe := range p.Errors() {
			if strings.ContainsRune(fe.Detail, '\r') || fe.Pointer != "/quantity" {
				t.Errorf("%s: field error %+v", tc.path, fe)
			}
		}
	}
}
