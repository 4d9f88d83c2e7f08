package correlation

import (
	"strings"
	"testing"

	"github.com/faultline-go/faultline/sanitize"
)

// A client that sends a credential where the ID belongs (a whole
// Authorization value, a token after a space) does not find it in the log
// when sanitize is linked in, as it is with every faultline middleware; the
// record still says what was rejected and why.
func TestRejectedValuePassesTheLogTier(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	for _, hostile := range []string{
		"Bearer " + token,
		"Authorization: Bearer " + token,
		"id token=" + token,
	} {
		var sink logSink
		sink.asDefault(t)
		srv := newServer(t, Middleware()(echo))
		resp := rawGet(t, srv, "/", "X-Request-Id: "+hostile)
		expectGenerated(t, resp, token)
		recs := sink.records(t)
		if len(recs) != 1 {
			t.Fatalf("%q: got %d log records, want 1:\n%s", hostile, len(recs), sink.buf.String())
		}
		if strings.Contains(sink.buf.String(), token[4:20]) {
			t.Errorf("%q: the log holds the token:\n%s", hostile, sink.buf.String())
		}
		if v, _ := recs[0]["value"].(string); !strings.Contains(v, sanitize.Redacted[:5]) || recs[0]["reason"] != "invalid_char" {
			t.Errorf("%q: value %q, reason %v", hostile, v, recs[0]["reason"])
		}
	}
}
