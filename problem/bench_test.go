package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/faultline-go/faultline/correlation"
)

// benchProblem carries everything the issue names: code/action/cause, retry
// fields, correlation ID, legacy members and three field errors.
func benchProblem() *Problem {
	p := New(ValidationFailed).WithRetryAfter(1500*time.Millisecond).WithOutcome(OutcomeNotStarted).WithErrors(
		FieldError{Detail: "must be at least 3 characters", Pointer: "/name", Code: "min"},
		FieldError{Detail: "must be a valid email address", Pointer: "/customer/email", Code: "email"},
		FieldError{Detail: "is required", Pointer: "/items/0/sku", Code: "required"},
	)
	p.typ = DefaultBaseURI + p.code
	p.instance = "/v1/orders"
	p.correlationID = "0193b1c2-7d1e-7a3b-9c4d-5e6f70819203"
	return p
}

// stdProblem is the same document for encoding/json, the baseline.
type stdProblem struct {
	Type          string       `json:"type"`
	Title         string       `json:"title"`
	Status        int          `json:"status"`
	Detail        string       `json:"detail,omitempty"`
	Instance      string       `json:"instance,omitempty"`
	Code          string       `json:"code"`
	Action        string       `json:"action"`
	Cause         string       `json:"cause"`
	Retryable     bool         `json:"retryable"`
	RetryAfterMS  int64        `json:"retry_after_ms,omitempty"`
	Outcome       string       `json:"outcome,omitempty"`
	CorrelationID string       `json:"correlation_id,omitempty"`
	Errors        []FieldError `json:"errors,omitempty"`
	Error         string       `json:"error"`
	Message       string       `json:"message"`
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

func BenchmarkRender(b *testing.B) {
	p := benchProblem()
	b.Run("faultline_append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bp := bufPool.Get().(*[]byte)
			*bp = p.appendJSON((*bp)[:0], true)
			bufPool.Put(bp)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := stdProblem{p.typ, p.title, p.status, p.detail, p.instance, p.code, string(p.action),
				string(p.cause), p.retryable, p.retryAfter.Milliseconds(), string(p.outcome),
				p.correlationID, p.fieldErrors, p.code, p.Message()}
			if _, err := json.Marshal(&s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("faultline_write", func(b *testing.B) {
		wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)), WithLegacy(Legacy{}))
		r := httptest.NewRequest("POST", "/v1/orders", nil)
		r = r.WithContext(correlation.WithID(r.Context(), p.correlationID))
		w := &discardWriter{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			clear(w.h)
			_ = wr.Write(w, r, p)
		}
	})
}

// BenchmarkWriteError is the error route without HTTP: an error mapped to
// internal, rendered, and logged as one JSON line.
func BenchmarkWriteError(b *testing.B) {
	err := fmt.Errorf("load order: %w", errors.New("connection refused"))
	wr := NewWriter(WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	r := httptest.NewRequest("GET", "/v1/orders/42", nil)
	r = r.WithContext(correlation.WithID(r.Context(), "0193b1c2-7d1e-7a3b-9c4d-5e6f70819203"))
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		_ = wr.Write(w, r, wr.FromError(err))
	}
}
