package client_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/faultline-go/faultline/client"
)

// A problem document with a code but neither title nor detail (RFC 9457
// makes both optional) still gives a command a message: the status
// phrase, never "code: " with nothing after it.
func TestLineOfAProblemWithoutProse(t *testing.T) {
	srv := foreignServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusConflict)
		_, _ = io.WriteString(w, `{"status":409,"code":"conflict"}`)
	})
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got, want := client.Line(client.ReadError(res)), "conflict: Conflict"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}
