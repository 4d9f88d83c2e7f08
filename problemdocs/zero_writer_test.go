package problemdocs_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/problemdocs"
)

// A zero Writer writes as problem.Default() does, so the documentation of
// its problems shows what it sends: the text plane's examples open with
// the default brand, not with an empty one.
func TestZeroWriterIsDocumentedAsTheDefault(t *testing.T) {
	for name, wr := range map[string]*problem.Writer{"zero": {}, "nil": nil} {
		b, err := json.Marshal(problemdocs.Components(problemdocs.WithWriter(wr)))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Responses map[string]struct {
				Content map[string]struct {
					Examples map[string]struct{ Value any }
				}
			}
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		n := 0
		for status, r := range c.Responses {
			for code, ex := range r.Content["text/plain"].Examples {
				n++
				if s, _ := ex.Value.(string); !strings.HasPrefix(s, "faultline: "+code+": ") {
					t.Errorf("%s writer, %s %s: %q", name, status, code, s)
				}
			}
		}
		if n == 0 {
			t.Fatalf("%s writer: no text/plain examples in %s", name, b)
		}
	}
}
