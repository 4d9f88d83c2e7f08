package client_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// FuzzReadError feeds any body, media type and Retry-After to the reader.
// Whatever they hold: the error carries a problem with the response's
// status, the CLI line is one line, a retry delay is never negative, the
// body can still be read in full, and nothing panics or hangs.
func FuzzReadError(f *testing.F) {
	f.Add(503, "application/problem+json", []byte(`{"status":503,"code":"unavailable","action":"retry","retryable":true,"retry_after_ms":1200}`), "2")
	f.Add(422, "application/json", []byte(`{"error":"invalid_grant","error_description":"expired"}`), "")
	f.Add(403, "application/problem+xml", []byte(`<problem xmlns="urn:ietf:rfc:7807"><title>t</title><errors><i><detail>d</detail></i></errors></problem>`), "")
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte, retryAfter string) {
		if status < 400 || status > 599 {
			status = 400 + (status%200+200)%200
		}
		h := http.Header{}
		h["Content-Type"] = []string{contentType}
		h["Retry-After"] = []string{retryAfter}
		res := &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body))}
		err := client.ReadWith(client.Reader{Limit: 512}, res)
		var p *problem.Problem
		if !errors.As(err, &p) || p == nil {
			t.Fatalf("no problem in %v", err)
		}
		if p.Status() != status {
			t.Fatalf("status %d, response %d", p.Status(), status)
		}
		if p.RetryAfter() < 0 {
			t.Fatalf("negative retry delay %s", p.RetryAfter())
		}
		if line := client.Line(err); strings.ContainsAny(line, "\r\n") {
			t.Fatalf("CLI line spans lines: %q", line)
		}
		rest, rerr := io.ReadAll(res.Body)
		if rerr != nil || !bytes.Equal(rest, body) {
			t.Fatalf("body after reading: %q (%v), want %q", rest, rerr, body)
		}
		client.Policy{}.Decide(client.Attempt{Method: "POST", Problem: p, Number: 1})
	})
}
