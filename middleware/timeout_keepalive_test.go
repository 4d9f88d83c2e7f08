package middleware

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"
)

// TestTimeoutDoesNotPoisonKeepAlive: a write that timed out after its
// handler read the whole body must not leave its expired read deadline on
// a connection the next request reuses (that request started with its
// context already cancelled and got an empty 200).
func TestTimeoutDoesNotPoisonKeepAlive(t *testing.T) {
	k := newKit()
	srv := k.serve(t, k.carried(Timeout(20*time.Millisecond)(
		http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			<-r.Context().Done()
		}))))
	for i := range 4 {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"n":1}`))
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		// Reading the body to the end lets the client reuse the connection.
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("request %d: status %d, want 503 timeout", i+1, res.StatusCode)
		}
	}
}

// TestTimeoutKeepsHTTP2ConnectionOpen: over HTTP/2 the read deadline the
// timeout sets ends one stream's body, not the connection's, so nothing
// poisons the connection. Connection: close there makes net/http send
// GOAWAY, so one timed-out upload tore down the connection every other
// stream of that client (a proxy's, say) shares.
func TestTimeoutKeepsHTTP2ConnectionOpen(t *testing.T) {
	k := newKit()
	srv := httptest.NewUnstartedServer(Stack(WithWriter(k.writer), WithRequestTimeout(50*time.Millisecond))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				return
			}
			if r.URL.Path == "/read" {
				_, _ = io.ReadAll(r.Body)
			}
			<-r.Context().Done()
		})))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	client := srv.Client()
	send := func(method, path string, body io.Reader) (reused bool) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, body)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
		}))
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.ProtoMajor != 2 {
			t.Fatalf("%s %s over %s, want HTTP/2", method, path, res.Proto)
		}
		if method != http.MethodGet && res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("%s %s: status %d, want 503 timeout", method, path, res.StatusCode)
		}
		return reused
	}
	send(http.MethodGet, "/", nil)
	for _, c := range []struct{ method, path, body string }{
		{http.MethodPost, "/read", `{"n":1}`},
		{http.MethodPut, "/unread", strings.Repeat("x", 4096)},
		{http.MethodPatch, "/read", "a"},
	} {
		send(c.method, c.path, strings.NewReader(c.body))
		if !send(http.MethodGet, "/", nil) {
			t.Fatalf("after a timed-out %s %s the client needed a new connection: the server closed a shared HTTP/2 connection", c.method, c.path)
		}
	}
}
