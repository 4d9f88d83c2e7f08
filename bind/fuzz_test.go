package bind

import (
	"errors"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// FuzzDecode feeds arbitrary bodies and content types to Decode: it must
// never panic and must always answer with a value or a registered code,
// the walk must list the place the decoder stopped at, and a field error
// must never carry validator or decoder text.
func FuzzDecode(f *testing.F) {
	f.Add("application/json", validOrder)
	f.Add("application/json", `{"items":[{"qty":"1"}]}`)
	f.Add("application/problem+json; charset=utf-8", `{"labels":{"a/b":1}}`)
	f.Add("text/plain", `{}`)
	f.Add("application/json", `null`)
	f.Add("application/json", `{"x":1}`)
	f.Add("application/json", "{\"items\":[{\"size\":-1}]}  x")
	f.Fuzz(func(t *testing.T, ct, body string) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set("Content-Type", ct)
		_, err := Decode[Order](r, WithMaxBytes(4096))
		if err == nil {
			return
		}
		var p *problem.Problem
		if !errors.As(err, &p) {
			t.Fatalf("error %v is not a problem", err)
		}
		code, ok := problem.DefaultRegistry().Lookup(problem.Kind(p.Code()))
		if !ok {
			t.Fatalf("unregistered code %q", p.Code())
		}
		if code.Status != p.Status() {
			t.Fatalf("status %d for %s", p.Status(), p.Code())
		}
		switch p.Code() {
		case "invalid_json", "unsupported_media_type", "request_too_large", "validation_failed":
		default:
			t.Fatalf("unexpected code %q", p.Code())
		}
		// The walk must agree with the decoder: the place the decoder
		// stopped at is among the places the walk listed.
		if where, ok := decoderPointer(p.Unwrap()); ok && (p.Code() == "invalid_json" || p.Code() == "validation_failed") && !listsPointer(p.Errors(), where) {
			t.Fatalf("decoder stopped at %q, walk listed %v (%v)", where, p.Errors(), p.Unwrap())
		}
		for _, fe := range p.Errors() {
			if fe.Detail == "" || strings.Contains(fe.Detail, "Key: ") || strings.Contains(fe.Detail, "json:") {
				t.Fatalf("field error %+v", fe)
			}
			if fe.Pointer != "" && fe.Pointer[0] != '/' {
				t.Fatalf("pointer %q", fe.Pointer)
			}
		}
	})
}

func decoderPointer(err error) (string, bool) {
	var (
		syntax   *jsontext.SyntacticError
		semantic *jsonv2.SemanticError
	)
	switch {
	case errors.As(err, &syntax) && errors.Is(err, jsontext.ErrDuplicateName):
		return string(syntax.JSONPointer), true
	case errors.As(err, &semantic):
		return string(semantic.JSONPointer), true
	}
	return "", false
}
