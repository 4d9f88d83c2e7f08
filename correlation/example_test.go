package correlation_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/faultline-go/faultline/correlation"
)

func ExampleMiddleware() {
	logger := slog.New(correlation.NewHandler(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the example's output stable
			}
			return a
		},
	})))

	h := correlation.Middleware()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.InfoContext(r.Context(), "order created", "order", 42)
	}))

	req := httptest.NewRequest(http.MethodGet, "/orders", nil)
	req.Header.Set("X-Request-Id", "req-7f3a9c21")
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Header().Get("X-Request-Id"))
	// Output:
	// {"level":"INFO","msg":"order created","order":42,"correlation_id":"req-7f3a9c21","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}
	// req-7f3a9c21
}

// A background job keeps the ID of the request that started it, so its log
// lines are found under the same correlation_id.
func ExampleWithID() {
	ctx := correlation.WithID(context.Background(), "req-7f3a9c21")
	fmt.Println(correlation.ID(ctx), correlation.Valid("req-7f3a9c21"), correlation.Valid("bad id"))
	// Output:
	// req-7f3a9c21 true false
}
