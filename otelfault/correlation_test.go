package otelfault_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/otelfault"
)

func withCorrelation(r chi.Router, g *rig) {
	r.With(otelfault.RecordCorrelationID).Get("/ok", func(w http.ResponseWriter, r *http.Request) {})
}

func TestRecordCorrelationIDPutsTheIDOnEverySpan(t *testing.T) {
	g := newRig(t, withCorrelation)
	cases := []struct {
		name  string
		sent  string
		keeps bool
	}{
		{"client's own ID", "0193b1c2-7a5e-7c3d-9f10-aabbccddeeff", true},
		{"none sent: generated", "", false},
		// net/http answers 400 itself to CR, LF and NUL in a header
		// value; these are what reaches a handler.
		{"markup: replaced", "<script>alert(1)</script>", false},
		{"spaces and quotes: replaced", `abc" def=ghi`, false},
		{"non-ASCII: replaced", "idé-0193b1c2-7a5e", false},
		{"10 KiB: replaced", strings.Repeat("a", 10<<10), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", g.srv.URL+"/ok", nil)
			if c.sent != "" {
				req.Header.Set("X-Request-Id", c.sent)
			}
			before := len(g.spans.Ended())
			res, err := g.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			id := res.Header.Get("X-Request-Id")
			if c.keeps && id != c.sent || !c.keeps && (id == "" || id == c.sent) {
				t.Fatalf("response ID %q for sent %q", id, c.sent)
			}
			a := attrs(g.span(t, before+1))
			if got := a[otelfault.AttrCorrelationID].String(); got != id {
				t.Errorf("span correlation ID %q, response %q", got, id)
			}
		})
	}
}
