package client_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// countingBody stands for what a layer above the Transport puts around a
// response body (an instrumentation wrapper counting bytes).
type countingBody struct {
	io.ReadCloser
	n int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += n
	return n, err
}

type countingTransport struct{ next http.RoundTripper }

func (c countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := c.next.RoundTrip(req)
	if err == nil {
		res.Body = &countingBody{ReadCloser: res.Body}
	}
	return res, err
}

// TestReadErrorThroughAWrappedBody: http.Client.Timeout, and any layer
// above the Transport, wraps the response body. ReadError used to find the
// Transport's reading only by the body's type, so behind such a wrapper it
// read the response again as a stranger's: with the default Reader instead
// of WithReader's, and taking the Idempotency-Key the Transport had drawn
// for the caller's own. A keyless POST answered 503 three times then exited
// 5 ("running the command again is safe"), and running it again sends a
// new key: the write could be applied once more.
func TestReadErrorThroughAWrappedBody(t *testing.T) {
	var executed atomic.Int32
	srv := foreignServer(t, func(w http.ResponseWriter, r *http.Request) {
		executed.Add(1)
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("X-Failure", "overloaded")
		if r.URL.Path == "/kit" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"status":503,"code":"unavailable","action":"retry","retryable":true}`)
			return
		}
		w.WriteHeader(http.StatusBadGateway)
	})
	for _, wrap := range []string{"Client.Timeout", "an outer RoundTripper"} {
		for _, tc := range []struct {
			path, key string
			exit      int
		}{
			{"/kit", "", client.ExitUnknownOutcome},
			{"/foreign", "", client.ExitUnknownOutcome},
			{"/kit", "order-7f1c", client.ExitTemporary},
			{"/foreign", "order-7f1c", client.ExitTemporary},
		} {
			executed.Store(0)
			var rt http.RoundTripper = client.NewTransport(nil, client.WithIdempotencyKeys(), client.WithPolicy(fastPolicy),
				client.WithLogger(quiet), client.WithReader(client.Reader{CodeHeader: "X-Failure"}))
			c := &http.Client{Transport: rt}
			if wrap == "Client.Timeout" {
				c.Timeout = 10 * time.Second
			} else {
				c.Transport = countingTransport{rt}
			}
			req, _ := http.NewRequest("POST", srv.URL+tc.path, strings.NewReader(`{"sku":"KB101"}`))
			if tc.key != "" {
				req.Header.Set(client.IdempotencyKeyHeader, tc.key)
			}
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			err = client.ReadError(res)
			res.Body.Close()
			name := wrap + " " + tc.path + " key " + tc.key
			if n := executed.Load(); n != 3 {
				t.Errorf("%s: executed %d times, want 3 (a key on every attempt)", name, n)
			}
			if code := client.ExitCode("POST", err); code != tc.exit {
				t.Errorf("%s: exit code %d, want %d", name, code, tc.exit)
			}
			var p *problem.Problem
			if want := map[string]string{"/kit": "unavailable", "/foreign": "overloaded"}[tc.path]; !errors.As(err, &p) || string(p.Code()) != want {
				t.Errorf("%s: %v, want code %s as the Transport's Reader read it", name, err, want)
			}
		}
	}
}
