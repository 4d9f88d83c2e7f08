package middleware

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The log tier reads a replaced body whole before it is cut for the log:
// cut first, a credential that straddles the cut keeps its head without
// the length or the closing that make it recognisable, and that head
// reached the log.
func TestGuardCutsTheReplacedBodyAfterTheLogTier(t *testing.T) {
	secrets := []struct {
		value  string
		public int // the length of the head that names its kind only
	}{
		{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", len("ghp_")},
		{"sk_live_4eC39HqLyjWDarjtT1zdp7dcQx83Lm", len("sk_live_")},
		{"xoxb-123456789012-123456789012-abcdefghijABCDEFGHIJklmn", len("xoxb-")},
		{"AKIAIOSFODNN7EXAMPLE", len("AKIA")},
	}
	for _, secret := range secrets {
		for _, before := range []int{secret.public + 6, secret.public + 12} {
			k := newKit()
			// The secret starts before bytes before the cut and ends after it.
			body := strings.Repeat("x", replacedBodyMax-before-1) + " " + secret.value + " trailing words"
			srv := k.serve(t, Stack(WithWriter(k.writer))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/copy" {
					// io.Copy hands the body to the writer's ReadFrom.
					w.WriteHeader(http.StatusBadGateway)
					_, _ = io.Copy(w, strings.NewReader(body))
					return
				}
				http.Error(w, body, http.StatusBadGateway)
			})))
			get(t, srv.URL)
			get(t, srv.URL+"/copy")
			recs := k.logs.records(t)
			if len(recs) != 2 {
				t.Fatalf("%d records", len(recs))
			}
			for _, rec := range recs {
				logged, _ := rec["handler_body"].(string)
				if strings.Contains(logged, secret.value[secret.public:before]) {
					t.Errorf("%s cut after %d bytes: the log holds %q", secret.value[:secret.public], before, logged[len(logged)-40:])
				}
				if len(logged) > replacedBodyMax || rec["handler_body_truncated"] != true {
					t.Errorf("handler_body of %d bytes, truncated %v", len(logged), rec["handler_body_truncated"])
				}
			}
		}
	}
}
