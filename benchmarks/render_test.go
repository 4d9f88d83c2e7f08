package benchmarks

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/moogar0880/problems"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
)

const benchCorrelationID = "0193b1c2-7d1e-7a3b-9c4d-5e6f70819203"

// renderProblem is the document every contender renders: a validation
// failure with two field errors, the most member-heavy problem an API sends
// routinely.
func renderProblem() *problem.Problem {
	p := problem.New(problem.ValidationFailed).WithErrors(
		problem.FieldError{Detail: "must be at least 1", Pointer: "/quantity", Code: "min"},
		problem.FieldError{Detail: "must be a valid email address", Pointer: "/customer/email", Code: "email"},
	)
	return resolved(p)
}

// resolved is p as the default writer sends it for a request, so type,
// instance and correlation_id are filled in as on the wire.
func resolved(p *problem.Problem) *problem.Problem {
	r := httptest.NewRequest(http.MethodPost, "/v1/orders", nil)
	r = r.WithContext(correlation.WithID(r.Context(), benchCorrelationID))
	return problem.Default().Resolve(r, p)
}

// stdDocument is the same members for encoding/json: what a service writes
// when it hand-rolls problem details.
type stdDocument struct {
	Type          string               `json:"type"`
	Title         string               `json:"title"`
	Status        int                  `json:"status"`
	Detail        string               `json:"detail,omitempty"`
	Instance      string               `json:"instance,omitempty"`
	Code          string               `json:"code"`
	Action        string               `json:"action"`
	Cause         string               `json:"cause"`
	Retryable     bool                 `json:"retryable"`
	CorrelationID string               `json:"correlation_id,omitempty"`
	Errors        []problem.FieldError `json:"errors,omitempty"`
}

// moogarExtensions carries faultline's guidance members, which
// moogar0880/problems only supports nested under "extensions".
type moogarExtensions struct {
	Code          string               `json:"code"`
	Action        string               `json:"action"`
	Cause         string               `json:"cause"`
	Retryable     bool                 `json:"retryable"`
	CorrelationID string               `json:"correlation_id"`
	Errors        []problem.FieldError `json:"errors"`
}

// discardResponse is a ResponseWriter that keeps headers and drops the body,
// so the figure is the writer's cost and not a growing recorder buffer.
type discardResponse struct{ h http.Header }

func (d *discardResponse) Header() http.Header         { return d.h }
func (d *discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardResponse) WriteHeader(int)             {}

func BenchmarkRender(b *testing.B) {
	p := renderProblem()
	req := httptest.NewRequest(http.MethodPost, "/v1/orders", nil)
	req = req.WithContext(correlation.WithID(req.Context(), benchCorrelationID))

	b.Run("faultline_write_recorder", func(b *testing.B) {
		wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
		b.ReportAllocs()
		for b.Loop() {
			rec := httptest.NewRecorder()
			if err := wr.Write(rec, req, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("faultline_write_logged", func(b *testing.B) {
		// The log record is part of every real error response.
		logger := slog.New(correlation.NewHandler(slog.NewJSONHandler(io.Discard, nil)))
		wr := problem.NewWriter(problem.WithLogger(logger))
		w := &discardResponse{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			clear(w.h)
			if err := wr.Write(w, req, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("faultline_append_json", func(b *testing.B) {
		buf := make([]byte, 0, 1024)
		b.ReportAllocs()
		for b.Loop() {
			buf = p.AppendJSON(buf[:0])
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			doc := stdDocument{
				Type: p.Type(), Title: p.Title(), Status: p.Status(), Detail: p.Detail(), Instance: p.Instance(),
				Code: string(p.Code()), Action: string(p.Action()), Cause: string(p.Cause()), Retryable: p.Retryable(),
				CorrelationID: p.CorrelationID(), Errors: p.Errors(),
			}
			if _, err := json.Marshal(&doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("huma_error_model", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			// huma's model has no code/action/cause members: it renders less.
			m := &huma.ErrorModel{
				Type: p.Type(), Title: p.Title(), Status: p.Status(), Detail: p.Detail(), Instance: p.Instance(),
				Errors: []*huma.ErrorDetail{
					{Message: p.Errors()[0].Detail, Location: "body.quantity", Value: 0},
					{Message: p.Errors()[1].Detail, Location: "body.customer.email", Value: "nope"},
				},
			}
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("moogar0880_problems", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mp := problems.NewStatusProblem(p.Status())
			mp.Type, mp.Detail, mp.Instance = p.Type(), p.Detail(), p.Instance()
			ext := problems.Extend(mp, moogarExtensions{
				Code: string(p.Code()), Action: string(p.Action()), Cause: string(p.Cause()), Retryable: p.Retryable(),
				CorrelationID: p.CorrelationID(), Errors: p.Errors(),
			})
			if _, err := json.Marshal(ext); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRenderContendersAgree keeps the comparison honest: every contender
// must produce a document carrying the same public members.
func TestRenderContendersAgree(t *testing.T) {
	p := renderProblem()
	got, err := problem.Parse(p.AppendJSON(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Code() != p.Code() || got.Status() != p.Status() || len(got.Errors()) != len(p.Errors()) {
		t.Fatalf("faultline document lost members: %+v", got)
	}
	mp := problems.NewStatusProblem(p.Status())
	mp.Type, mp.Detail, mp.Instance = p.Type(), p.Detail(), p.Instance()
	out, err := json.Marshal(problems.Extend(mp, moogarExtensions{Code: string(p.Code()), Errors: p.Errors()}))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Status     int `json:"status"`
		Extensions struct {
			Code string `json:"code"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Status != p.Status() || doc.Extensions.Code != string(p.Code()) {
		t.Fatalf("moogar0880/problems document: %s", out)
	}
}

// fieldErrorsProblem is the shape (retry fields, outcome,
// correlation ID) with n field errors, built by hand as a service does:
// distinct pointers, messages and codes from a small set, so every field
// error is text from outside the kit and passes the public tier.
func fieldErrorsProblem(n int) *problem.Problem {
	msgs := [...]struct{ detail, code string }{
		{"must be at least 3 characters", "min"},
		{"must be a valid email address", "email"},
		{"is required", "required"},
	}
	errs := make([]problem.FieldError, n)
	for i := range errs {
		m := msgs[i%len(msgs)]
		errs[i] = problem.FieldError{Detail: m.detail, Pointer: fmt.Sprintf("/items/%d/sku", i), Code: m.code}
	}
	p := problem.New(problem.ValidationFailed).WithRetryAfter(1500 * time.Millisecond).
		WithOutcome(problem.OutcomeNotStarted).WithErrors(errs...)
	return resolved(p)
}

// stdFieldErrorsDocument is fieldErrorsProblem's members for encoding/json.
type stdFieldErrorsDocument struct {
	Type          string               `json:"type"`
	Title         string               `json:"title"`
	Status        int                  `json:"status"`
	Detail        string               `json:"detail,omitempty"`
	Instance      string               `json:"instance,omitempty"`
	Code          string               `json:"code"`
	Action        string               `json:"action"`
	Cause         string               `json:"cause"`
	Retryable     bool                 `json:"retryable"`
	RetryAfterMS  int64                `json:"retry_after_ms,omitempty"`
	Outcome       string               `json:"outcome,omitempty"`
	CorrelationID string               `json:"correlation_id,omitempty"`
	Errors        []problem.FieldError `json:"errors,omitempty"`
}

// BenchmarkRenderFieldErrors is the render rows: validation_failed
// with 3 and with 100 field errors through AppendJSON into a reused buffer,
// and encoding/json of the same members.
func BenchmarkRenderFieldErrors(b *testing.B) {
	for _, n := range []int{3, 100} {
		p := fieldErrorsProblem(n)
		b.Run(fmt.Sprintf("%d/faultline_append_json", n), func(b *testing.B) {
			buf := make([]byte, 0, 16<<10)
			b.ReportAllocs()
			for b.Loop() {
				buf = p.AppendJSON(buf[:0])
			}
		})
		b.Run(fmt.Sprintf("%d/encoding_json", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				doc := stdFieldErrorsDocument{
					Type: p.Type(), Title: p.Title(), Status: p.Status(), Detail: p.Detail(), Instance: p.Instance(),
					Code: string(p.Code()), Action: string(p.Action()), Cause: string(p.Cause()), Retryable: p.Retryable(),
					RetryAfterMS: p.RetryAfter().Milliseconds(), Outcome: string(p.Outcome()),
					CorrelationID: p.CorrelationID(), Errors: p.Errors(),
				}
				if _, err := json.Marshal(&doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
