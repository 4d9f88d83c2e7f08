package mcpfault

import (
	"context"
	"net/http"
	"strings"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
)

// Handler carries the correlation ID of each HTTP request into the MCP
// session served by h (the SDK's streamable HTTP handler), so tool failures
// and their log records carry the ID of the request that caused them. Mount
// it behind faultline's middleware.Stack, which assigns the ID and turns
// transport failures (401, 403, 413, 429, 503) into problems.
//
// The SDK answers some JSON-RPC errors with an HTTP error status (400 for
// invalid params, 404 for an unknown method) and the JSON-RPC error as the
// body; with [Middleware] that error's data is the problem. Handler tells
// the kit's Guard that such a response is a problem in its JSON-RPC
// representation, so it reaches the MCP client as the protocol requires
// instead of being replaced by a problem+json body it cannot parse.
//
// The SDK also answers some malformed calls itself, before any middleware
// runs: with a JSON-RPC error whose message quotes the request (params
// that do not decode), or with a plain-text 400 (a body that is not JSON,
// a call without params, an unknown method). Handler logs the SDK's text
// and answers a JSON-RPC error whose data is the problem instead, so the
// client reads it as a protocol error and nothing raw reaches it.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := correlation.ID(r.Context()); id != "" {
			r.Header.Set(correlationHeader, handoffKey+" "+id)
		} else {
			r.Header.Del(correlationHeader)
		}
		m, _ := w.(problemhook.ProblemMarker)
		rw := &rpcErrorWriter{ResponseWriter: w, marker: m, ctx: r.Context()}
		h.ServeHTTP(rw, r)
		if rw.held {
			// The SDK set a plain-text 400 and wrote nothing after it.
			rw.ResponseWriter.WriteHeader(http.StatusBadRequest)
		}
	})
}

type rpcErrorWriter struct {
	http.ResponseWriter
	marker problemhook.ProblemMarker // nil outside the kit's Guard
	ctx    context.Context
	// held: the SDK began a plain-text 400; its text, in the next Write,
	// says whether it is a JSON-RPC failure to answer in JSON-RPC.
	held bool
}

func (w *rpcErrorWriter) WriteHeader(status int) {
	if status == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.held = true
		return
	}
	if w.marker != nil && status >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		w.marker.MarkProblem()
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write passes the SDK's output through, except a JSON-RPC error the SDK
// answered on its own, before any middleware ran (a method it does not
// know, params that do not decode into the method's type): its message
// quotes the request and names Go types, so it is logged, and the agent
// gets the problem in its place.
func (w *rpcErrorWriter) Write(b []byte) (int, error) {
	if w.held {
		w.held = false
		out, ok := sdkTextError(w.ctx, b)
		if !ok {
			w.ResponseWriter.WriteHeader(http.StatusBadRequest)
			return w.ResponseWriter.Write(b)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		if _, err := w.ResponseWriter.Write(out); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	out, ok := rewriteSDKErrors(w.ctx, w.Header().Get("Content-Type"), b)
	if !ok {
		return w.ResponseWriter.Write(b)
	}
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Flush keeps the SDK's server-sent events streaming.
func (w *rpcErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
