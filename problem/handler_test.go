package problem

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/internal/problemhook"
)

func TestHandlerTypedNilProblemIsSuccess(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	srv := serve(t, wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		var p *Problem // what a successful decode returns
		w.WriteHeader(http.StatusCreated)
		return p
	}))
	resp, body := do(t, http.MethodPost, srv.URL, nil)
	if resp.StatusCode != http.StatusCreated || len(body) != 0 {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

func TestNilProblemsNeverCrash(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	rec := httptest.NewRecorder()
	if err := wr.Write(rec, httptest.NewRequest(http.MethodGet, "/", nil), nil); err != nil || rec.Code != 500 {
		t.Fatalf("Write(nil): %v %d", err, rec.Code)
	}
	var typedNil *Problem
	for _, err := range []error{typedNil, errors.Join(errors.New("x"), typedNil)} {
		rec := httptest.NewRecorder()
		_ = wr.Write(rec, httptest.NewRequest(http.MethodGet, "/", nil), wr.FromError(err))
		if p, perr := Parse(rec.Body.Bytes()); perr != nil || p.code != "internal" {
			t.Fatalf("WriteError(%#v): %s", err, rec.Body)
		}
	}
}

func TestPackageWriteUsesContextWriter(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)), WithBaseURI("urn:acme:"))
	if FromContext(problemhook.NewContext(t.Context(), wr)) != wr || FromContext(t.Context()) != Default() {
		t.Fatal("FromContext does not return what NewContext stored")
	}
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	_ = Write(rec, r.WithContext(problemhook.NewContext(r.Context(), wr)), New(Conflict))
	if p, err := Parse(rec.Body.Bytes()); err != nil || p.typ != "urn:acme:conflict" {
		t.Fatalf("%s (%v)", rec.Body, err)
	}
}
