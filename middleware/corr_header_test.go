package middleware_test

import (
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
)

// Stack builds its correlation from WithCorrelation's options, so a
// response header net/http would drop panics at wiring, as
// correlation.Middleware does.
func TestStackRefusesAResponseHeaderNetHTTPDrops(t *testing.T) {
	for _, name := range []string{"", "X Id", "X-Id\r\nSet-Cookie: a=b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Stack with response header %q did not panic", name)
				}
			}()
			middleware.Stack(middleware.WithCorrelation(correlation.WithResponseHeader(name)))
		}()
	}
}
