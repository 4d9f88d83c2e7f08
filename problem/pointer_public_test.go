package problem_test

import (
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// A field error's pointer names a member the client sent; built by the kit
// or read from a peer, it reaches every representation through the public
// tier, so the same problem renders the same after a Parse round trip.
func TestFieldErrorPointerPassesThePublicTier(t *testing.T) {
	secret := "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	p := problem.New(problem.ValidationFailed).WithErrors(
		problem.FieldError{Pointer: "/" + secret, Detail: "is not a known field", Code: "unknown_field"},
		problem.FieldError{Pointer: `\\0`, Detail: "d", Code: "min"},
		problem.FieldError{Pointer: "/items/0/sku", Detail: "is required", Code: "required"},
	)
	js := string(p.AppendJSON(nil))
	xml := string(problem.AppendXML(p, nil))
	txt := string(problem.AppendText(p, nil, "faultline"))
	for name, out := range map[string]string{"json": js, "xml": xml, "text": txt} {
		if strings.Contains(out, secret) {
			t.Errorf("%s echoes a token from a pointer: %s", name, out)
		}
		if !strings.Contains(out, "/items/0/sku") {
			t.Errorf("%s lost an ordinary pointer: %s", name, out)
		}
	}
	back, err := problem.Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if again := string(back.AppendJSON(nil)); again != js {
		t.Errorf("round trip differs:\n%s\n%s", js, again)
	}
}
