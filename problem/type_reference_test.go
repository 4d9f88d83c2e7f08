package problem_test

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// isURIReference is RFC 3986's URI-reference as far as the kit's escaping
// decides it: every byte allowed or a valid escape, a colon in the first
// segment only after a scheme, and at most one '#'.
func isURIReference(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~!$&'()*+,;=:@/?#", c) >= 0:
		case c == '%' && i+2 < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[i+1]) >= 0 && strings.IndexByte("0123456789abcdefABCDEF", s[i+2]) >= 0:
		default:
			return false
		}
	}
	if strings.Count(s, "#") > 1 {
		return false
	}
	first := s
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		first = s[:i]
	}
	colon := strings.IndexByte(first, ':')
	if colon < 0 {
		return true
	}
	scheme := first[:colon]
	if scheme == "" || !(scheme[0] >= 'a' && scheme[0] <= 'z' || scheme[0] >= 'A' && scheme[0] <= 'Z') {
		return false
	}
	return strings.Trim(strings.ToLower(scheme), "abcdefghijklmnopqrstuvwxyz0123456789+-.") == ""
}

// A peer's type is relayed as a URI reference (RFC 9457 §3.1.1; Appendix
// A's schema says format uri-reference) in every representation, whatever
// the peer wrote: a colon in a relative reference's first segment would
// read as a scheme, and a second '#' cannot stand in a fragment.
func TestPeerTypeIsAlwaysAURIReference(t *testing.T) {
	types := []string{
		"a b:c", "1abc:foo", ":x", "::", "errors/x", "not a uri ::", "-x:y/z",
		"https://x.test/p#a#b", "https://x.test/p?q=a:b#f#g##", "urn:example:x", "tag:x.test,2026:p",
		"https://x.test/p", "mailto:ops@x.test", "x.y+z:ok",
	}
	var cur string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := problem.Parse([]byte(`{"type":` + strings.TrimSpace(mustJSON(cur)) + `,"status":409,"code":"conflict"}`))
		if err != nil {
			t.Error(err)
			return
		}
		_ = problem.Write(w, r, p)
	}))
	defer srv.Close()
	for _, typ := range types {
		cur = typ
		var rendered []string
		for _, accept := range []string{"application/problem+json", "application/problem+xml"} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
			req.Header.Set("Accept", accept)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var doc struct {
				Type string `json:"type" xml:"type"`
			}
			if strings.Contains(accept, "xml") {
				err = xml.Unmarshal(body, &doc)
			} else {
				err = json.Unmarshal(body, &doc)
			}
			if err != nil {
				t.Fatalf("%q: %v in %s", typ, err, body)
			}
			rendered = append(rendered, doc.Type)
			if !isURIReference(doc.Type) {
				t.Errorf("type %q is sent as %q (%s), not a URI reference", typ, doc.Type, accept)
			}
		}
		if rendered[0] != rendered[1] {
			t.Errorf("type %q: JSON %q, XML %q", typ, rendered[0], rendered[1])
		}
		if isURIReference(typ) && !strings.Contains(typ, " ") && rendered[0] != typ {
			t.Errorf("type %q, already a URI reference, is sent as %q", typ, rendered[0])
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
