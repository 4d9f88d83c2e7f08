package bind

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// FuzzDecode feeds arbitrary bodies and content types to Decode: it must
// never panic and must always answer with a value or a registered code,
// every decode error must be located, and an invalid_json field error must never carry validator or decoder
// text.
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
		_, p := Decode[Order](r, WithMaxBytes(4096))
		if p == nil {
			return
		}
		code, ok := problem.DefaultRegistry().Lookup(p.Code)
		if !ok {
			t.Fatalf("unregistered code %q", p.Code)
		}
		if code.Status != p.Status {
			t.Fatalf("status %d for %s", p.Status, p.Code)
		}
		switch p.Code {
		case "invalid_json", "unsupported_media_type", "request_too_large", "validation_failed":
		default:
			t.Fatalf("unexpected code %q", p.Code)
		}
		// The locator must agree with encoding/json: a decode failure it
		// cannot place would reach the client without a pointer.
		if p.Code == "invalid_json" && len(p.Errors) == 0 && p.Detail == issueDetails[codeInvalidValue] {
			t.Fatalf("decode error not located: %v", p.Unwrap())
		}
		for _, fe := range p.Errors {
			if fe.Detail == "" || strings.Contains(fe.Detail, "Key: ") || strings.Contains(fe.Detail, "json:") {
				t.Fatalf("field error %+v", fe)
			}
			if fe.Pointer != "" && fe.Pointer[0] != '/' {
				t.Fatalf("pointer %q", fe.Pointer)
			}
		}
	})
}
