package middleware_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// keeper hands records on later, the way a buffering handler does: it
// keeps each record with the context it came with.
type keeper struct {
	mu   sync.Mutex
	kept []kept
}

type kept struct {
	ctx context.Context
	r   slog.Record
}

func (k *keeper) Enabled(context.Context, slog.Level) bool { return true }
func (k *keeper) Handle(ctx context.Context, r slog.Record) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.kept = append(k.kept, kept{ctx, r.Clone()})
	return nil
}
func (k *keeper) WithAttrs([]slog.Attr) slog.Handler { return k }
func (k *keeper) WithGroup(string) slog.Handler      { return k }

// TestMarkSlotVouchesForOneRecord: the request's state lends its room to
// the mark of the first problem record only. Records kept past the request
// and handed to sanitize's handler afterwards (two problems of one request,
// and the handler's own record with the same context) each leave with
// their own text, every secret redacted.
func TestMarkSlotVouchesForOneRecord(t *testing.T) {
	const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	k := &keeper{}
	logger := slog.New(k)
	wr := problem.NewWriter(problem.WithLogger(logger))
	h := middleware.Stack(middleware.WithWriter(wr))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = problem.Write(w, r, problem.From(r, errors.New("first: token "+secret)))
		_ = problem.Write(w, r, problem.From(r, errors.New("second: password="+secret)))
		logger.ErrorContext(r.Context(), "handler", "token", secret)
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(k.kept) != 3 {
		t.Fatalf("%d records, want 3", len(k.kept))
	}
	var out bytes.Buffer
	final := sanitize.NewLogHandler(slog.NewJSONHandler(&out, nil))
	for _, x := range k.kept {
		if err := final.Handle(x.ctx, x.r); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if strings.Contains(out.String(), "hijklmnop") || len(lines) != 3 {
		t.Fatalf("raw secret or lost record:\n%s", out.String())
	}
	for i, want := range []string{`"error":"first: token `, `"error":"second: password=`, `"msg":"handler"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("record %d lacks %s: %s", i, want, lines[i])
		}
	}
}
