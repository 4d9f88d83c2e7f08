package client_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// kitServer serves h behind the kit's recommended Stack, as a faultline
// service would, over real HTTP on loopback.
func kitServer(t testing.TB, h func(w http.ResponseWriter, r *http.Request) error, opts ...middleware.Option) *httptest.Server {
	t.Helper()
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	stack := middleware.Stack(append([]middleware.Option{middleware.WithWriter(wr)}, opts...)...)
	srv := httptest.NewServer(stack(wr.Handler(h)))
	t.Cleanup(srv.Close)
	return srv
}

// foreignServer is a server that does not speak the contract.
func foreignServer(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
