package blackbox

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/internal/testlog"
)

// When a problem replaces a handler's error response, the headers that
// describe the handler's body (its encoding, length, digests, validators,
// freshness) would lie about the problem and go; the headers that matter
// for the failure or the client's safety stay.
func TestReplacedResponseKeepsOnlyHeadersThatStillHold(t *testing.T) {
	a := &app{t: t, logs: &testlog.Buffer{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range map[string]string{
			"Content-Encoding": "gzip", "Content-Length": "999", "ETag": `"abc"`,
			"Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT", "Content-Language": "fr",
			"Content-Disposition": "attachment; filename=x.bin", "Digest": "sha-256=abc",
			// RFC 9530: digests of the content and of the representation.
			"Content-Digest": "sha-256=:YWJj:", "Repr-Digest": "sha-256=:YWJj:",
			// The replaced body's freshness; the problem is no-store.
			"Expires":    "Thu, 01 Dec 2094 16:00:00 GMT",
			"Set-Cookie": "a=b", "Access-Control-Allow-Origin": "*", "Strict-Transport-Security": "max-age=1",
			"Retry-After": "7", "WWW-Authenticate": `Bearer realm="api"`,
		} {
			w.Header().Set(k, v)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "upstream down")
	})
	a.srv = httptest.NewServer(stack(newWriter(testlog.Logger(a.logs), false))(h))
	t.Cleanup(a.srv.Close)
	ans := a.request("GET", "/", "", "Accept-Encoding", "gzip")
	a.checkContract("replaced 503", ans, 503, "unavailable")
	for _, gone := range []string{"Content-Encoding", "Etag", "Last-Modified", "Content-Language", "Content-Disposition", "Digest", "Content-Digest", "Repr-Digest", "Expires"} {
		if v := ans.header.Get(gone); v != "" {
			t.Errorf("%s: %q describes the replaced body, not the problem", gone, v)
		}
	}
	for kept, want := range map[string]string{"Set-Cookie": "a=b", "Access-Control-Allow-Origin": "*", "Strict-Transport-Security": "max-age=1", "Retry-After": "7", "Www-Authenticate": `Bearer realm="api"`} {
		if v := ans.header.Get(kept); v != want {
			t.Errorf("%s = %q, want %q", kept, v, want)
		}
	}
}
