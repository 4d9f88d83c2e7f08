package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

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

// Denied and failed requests are appended to the file as JSON lines, each
// fsynced before the response goes out.
func ExampleOpenFile() {
	dir, err := os.MkdirTemp("", "audit")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	sink, err := audit.OpenFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		panic(err)
	}
	defer sink.Close()

	deny := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		problem.Write(w, r, problem.New(problem.PolicyDenied))
	})
	principal := audit.WithPrincipal(func(*http.Request) string { return "user-42" })
	handler := middleware.Stack()(audit.Middleware(sink, principal)(deny))
	handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodDelete, "/v1/accounts/7", nil))

	raw, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		panic(err)
	}
	var e audit.Event
	if err := json.Unmarshal(raw, &e); err != nil {
		panic(err)
	}
	fmt.Println(e.Kind, e.Method, e.Route, e.Status, e.Code, e.Principal, e.CorrelationID != "")
	// Output: failure DELETE /v1/accounts/7 403 policy_denied user-42 true
}
