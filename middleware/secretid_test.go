package middleware

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
)

// A client that puts a token where its request ID belongs gets a fresh ID:
// the token would be redacted in every log line, where an operator then
// searches for the ID the client was told in vain, and it would be echoed
// back as it came. IDs the log keeps as they are stay the client's.
func TestSecretShapedRequestIDIsReplaced(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream failed", http.StatusBadGateway)
	})))
	for _, id := range []string{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "AKIAIOSFODNN7EXAMPLE", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz", "xoxb-123456789012-123456789012-abcdefghijABCDEFGHIJklmn", "4111111111111111"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("X-Request-Id", id)
		r := do(t, req)
		got := r.Header.Get("X-Request-Id")
		if got == id || !correlation.Valid(got) {
			t.Errorf("%s: answered under %q, want a fresh valid ID", id, got)
		}
		var body struct {
			CorrelationID string `json:"correlation_id"`
		}
		if err := json.Unmarshal(r.body, &body); err != nil || body.CorrelationID != got {
			t.Errorf("%s: body correlation_id %q, header %q (%v)", id, body.CorrelationID, got, err)
		}
		if strings.Contains(string(r.body), id) {
			t.Errorf("%s: echoed in the body %s", id, r.body)
		}
	}
	logs := k.logs.String()
	if n := strings.Count(logs, `"reason":"secret_shaped"`); n != 6 {
		t.Errorf("%d rejections logged as secret_shaped, want 6:\n%s", n, logs)
	}
	for _, id := range []string{"0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "req-12345678", "4bf92f3577b34da6a3ce929d0e0e4736"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("X-Request-Id", id)
		if got := do(t, req).Header.Get("X-Request-Id"); got != id {
			t.Errorf("ID %q answered under %q, want it kept", id, got)
		}
	}
}
