package client_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/client"
)

// okTransport answers every request 200 from memory, so the Transport's own
// cost is measured without the network's noise.
type okTransport struct{ res http.Response }

func (o *okTransport) RoundTrip(*http.Request) (*http.Response, error) { return &o.res, nil }

func newOK() *okTransport {
	return &okTransport{res: http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}}
}

// BenchmarkTransportSuccess compares a successful request sent through the
// client's Transport with the same request sent straight to its base: in
// memory (the Transport's overhead alone) and over loopback HTTP.
func BenchmarkTransportSuccess(b *testing.B) {
	get, _ := http.NewRequest("GET", "http://example.test/v1/orders", nil)
	mem := newOK()
	b.Run("memory/bare", func(b *testing.B) { benchRoundTrip(b, mem, get) })
	b.Run("memory/client", func(b *testing.B) { benchRoundTrip(b, client.NewTransport(mem, client.WithLogger(quiet)), get) })
	keyedPost, _ := http.NewRequest("POST", "http://example.test/v1/orders", nil)
	b.Run("memory/client-post-generated-key", func(b *testing.B) {
		benchRoundTrip(b, client.NewTransport(mem, client.WithLogger(quiet), client.WithIdempotencyKeys()), keyedPost)
	})

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	b.Run("loopback/bare", func(b *testing.B) { benchRoundTrip(b, base, req) })
	b.Run("loopback/client", func(b *testing.B) { benchRoundTrip(b, client.NewTransport(base, client.WithLogger(quiet)), req) })
}

func benchRoundTrip(b *testing.B, rt http.RoundTripper, req *http.Request) {
	b.ReportAllocs()
	for b.Loop() {
		res, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

// BenchmarkReadError reads a kit problem+json body of a failed response.
func BenchmarkReadError(b *testing.B) {
	body := `{"type":"https://errors.example.com/rate_limited","title":"Too many requests","status":429,"detail":"The limit of 100 requests per minute was reached.","code":"rate_limited","action":"retry","cause":"request","retryable":true,"retry_after_ms":2400,"correlation_id":"0193b1c2"}`
	h := http.Header{"Content-Type": {"application/problem+json"}}
	b.ReportAllocs()
	for b.Loop() {
		res := &http.Response{StatusCode: 429, Header: h, Body: io.NopCloser(strings.NewReader(body))}
		if client.ReadError(res) == nil {
			b.Fatal("no error")
		}
	}
}

// TestTransportSuccessAllocations holds the Transport to its budget: a
// success that nobody observes costs no allocation of its own.
func TestTransportSuccessAllocations(t *testing.T) {
	mem := newOK()
	get, _ := http.NewRequest("GET", "http://example.test/", nil)
	rt := client.NewTransport(mem, client.WithLogger(quiet))
	if n := testing.AllocsPerRun(200, func() { _, _ = rt.RoundTrip(get) }); n > 0 {
		t.Errorf("%v allocations per successful GET, want 0", n)
	}
}
