package audit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/faultline-go/faultline/audit"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// down is a sink whose store is unreachable.
type down struct{}

func (down) Write(context.Context, audit.Event) error { return fmt.Errorf("audit store unreachable") }

// In strict mode a request that cannot be audited never reaches the handler.
func ExampleStrict() {
	ran := false
	handler := middleware.Stack()(audit.Middleware(down{}, audit.Strict())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran = true
	})))
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/transfers", nil))
	p, _ := problem.Parse(rec.Body.Bytes())
	fmt.Println(rec.Code, p.Code(), p.Outcome(), ran)
	// Output: 503 audit_unavailable not_started false
}
