// Package anchor is the error route a team writes by hand today with chi
// alone, the fair anchor faultline's error route is held to (issue 13):
// chi's RequestID and Recoverer, one slog JSON record per failure with the
// error text (unredacted) and the request ID, and an encoding/json problem
// body. BenchmarkErrorRoute runs it in process, load.sh over loopback.
package anchor

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
)

// problem is the RFC 9457 body a team renders by hand: the five standard
// members plus a code.
type problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail"`
	Instance string `json:"instance"`
	Code     string `json:"code"`
}

// ErrorRoute serves GET /fail, failing with next's error every time.
func ErrorRoute(logger *slog.Logger, next func() error) http.Handler {
	return errorRoute(logger, next, false)
}

// ErrorRouteWithContractHeaders is ErrorRoute sending, as a team would set
// them by hand, the headers faultline's contract puts on every problem
// besides Content-Type (Cache-Control, X-Request-Id, the code header, Vary,
// X-Content-Type-Options). It is not the anchor: it shows how much of the
// difference between the anchor and faultline those headers are.
func ErrorRouteWithContractHeaders(logger *slog.Logger, next func() error) http.Handler {
	return errorRoute(logger, next, true)
}

func errorRoute(logger *slog.Logger, next func() error, contractHeaders bool) http.Handler {
	r := chi.NewRouter()
	r.Use(chimw.RequestID, chimw.Recoverer)
	r.Get("/fail", func(w http.ResponseWriter, req *http.Request) {
		err := next()
		logger.LogAttrs(req.Context(), slog.LevelError, "request failed",
			slog.String("error", err.Error()),
			slog.String("request_id", chimw.GetReqID(req.Context())))
		body, _ := json.Marshal(problem{
			Type:     "https://errors.example.com/internal",
			Title:    "Internal server error",
			Status:   http.StatusInternalServerError,
			Detail:   "An unexpected error occurred.",
			Instance: req.URL.Path,
			Code:     "internal",
		})
		w.Header().Set("Content-Type", "application/problem+json")
		if contractHeaders {
			h := w.Header()
			h.Set("Cache-Control", "no-store")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Vary", "Accept")
			h.Set("X-Error-Code", "internal")
			h.Set("X-Request-Id", chimw.GetReqID(req.Context()))
		}
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write(body)
	})
	return r
}
