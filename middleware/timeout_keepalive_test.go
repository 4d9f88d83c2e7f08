package middleware

import (
	"io"
	"net/http"
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
