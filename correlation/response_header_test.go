package correlation_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/correlation"
)

// A response header name net/http cannot write is a wiring mistake that
// would silently send every response without its ID: building the
// middleware panics (middleware's TestStackRefusesAResponseHeaderNetHTTPDrops
// holds Stack to it). A valid name echoes the ID.
func TestResponseHeaderMustBeAFieldName(t *testing.T) {
	for _, name := range []string{"", "X Id", "X-Id\r\nSet-Cookie: a=b", "X-Ïd", "X-Id:", "(id)"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("response header %q did not panic", name)
				}
			}()
			correlation.Middleware(correlation.WithResponseHeader(name))
		}()
	}
	for _, name := range []string{"X-Trace-Ref", "x-request-id", "Request_ID.v2"} {
		srv := httptest.NewServer(correlation.Middleware(correlation.WithResponseHeader(name))(http.NotFoundHandler()))
		res, err := http.Get(srv.URL)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if !correlation.Valid(res.Header.Get(name)) {
			t.Errorf("response header %q: %v", name, res.Header)
		}
	}
}
