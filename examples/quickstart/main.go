// Command quickstart is the README's first snippets, compiled: a small book
// service adopting faultline on chi (chi.go) or on http.ServeMux (mux.go),
// and configured with its own writer, mapper and limits (configured.go).
// The README's Go blocks are excerpts of these files, and
// internal/repocheck keeps them so.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/faultline-go/faultline/serve"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	router := flag.String("router", "configured", "chi (the smallest adoption), mux (the same on http.ServeMux) or configured")
	flag.Parse()
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(os.Stderr, nil))))
	var h http.Handler
	switch s := newShelf(); *router {
	case "chi":
		h = newChiRouter(s)
	case "mux":
		h = newServeMux(s)
	case "configured":
		h = newConfiguredRouter(s, logger)
	default:
		fmt.Fprintf(os.Stderr, "quickstart: unknown -router %q\n", *router)
		os.Exit(2)
	}
	srv := serve.NewServer(h)
	srv.Addr = *addr
	logger.Info("listening", "addr", *addr, "router", *router)
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("server stopped", "error", err)
		os.Exit(1)
	}
}
