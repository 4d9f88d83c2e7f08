package problem_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// A handler answering an unsatisfiable range with a problem keeps the
// Content-Range RFC 9110 §15.5.17 asks for; other statuses drop it with the
// other headers that described a body the problem replaces.
func TestRangeNotSatisfiableKeepsContentRange(t *testing.T) {
	wr := problem.NewWriter()
	for _, c := range []struct {
		status int
		want   string
	}{{http.StatusRequestedRangeNotSatisfiable, "bytes */10"}, {http.StatusBadRequest, ""}} {
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Range", "bytes */10")
		rec.Header().Set("Etag", `"v1"`)
		wr.Write(rec, httptest.NewRequest(http.MethodGet, "/file", nil), wr.Registry().ForStatus(c.status))
		if rec.Code != c.status || rec.Header().Get("Content-Range") != c.want || rec.Header().Get("Etag") != "" {
			t.Errorf("status %d: Content-Range %q, Etag %q, want %q and none", rec.Code, rec.Header().Get("Content-Range"), rec.Header().Get("Etag"), c.want)
		}
	}
}
