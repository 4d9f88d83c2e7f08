package serve

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// Run accepts the request's ID in front of everything, as the service's
// Stack would: a rejected inbound ID is reported to the writer's logger
// (the one place a service gives its logger), not to slog.Default, and the
// ID goes out under the writer's header alone.
func TestRunAcceptsTheIDAsTheWritersStack(t *testing.T) {
	var fallback bytes.Buffer
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	slog.SetDefault(slog.New(slog.NewJSONHandler(&fallback, nil)))

	sink := &logSink{}
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(sink, nil))),
		problem.WithCorrelationHeader("X-Correlation-Id"))
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	url, _, _ := started(t, middleware.Stack(middleware.WithWriter(wr))(ok), wr, time.Second)

	res := send(url, "rejected", http.MethodGet, http.Header{"X-Request-Id": {"Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789"}})
	if res.err != nil {
		t.Fatal(res.err)
	}
	if id := res.header.Get("X-Correlation-Id"); id == "" || res.header.Get("X-Request-Id") != "" {
		t.Errorf("ID headers: X-Correlation-Id %q, X-Request-Id %q", id, res.header.Get("X-Request-Id"))
	}
	if recs := sink.withMsg(t, "correlation: inbound request ID rejected, generated a new one"); len(recs) != 1 ||
		recs[0]["correlation_id"] != res.header.Get("X-Correlation-Id") {
		t.Errorf("the writer's logger got %v", sink.buf.String())
	}
	if fallback.Len() != 0 {
		t.Errorf("slog.Default got %s", fallback.String())
	}
	if strings.Contains(sink.buf.String(), "ghp_abcdefghij") {
		t.Errorf("the log holds the token: %s", sink.buf.String())
	}

	const inbound = "req-from-client-0001"
	res = send(url, "accepted", http.MethodGet, http.Header{"X-Correlation-Id": {inbound}})
	if res.err != nil || res.header.Get("X-Correlation-Id") != inbound || res.header.Get("X-Request-Id") != "" {
		t.Errorf("accepted: %v, headers %v", res.err, res.header)
	}
}
