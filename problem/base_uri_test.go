package problem_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// A base URI a code cannot follow as given is repaired and the mistake
// logged: one that ends with its host would make the code part of the host
// name (another domain), and bytes a URI cannot hold made the type no URI
// reference. A base that already works is used as given, silently.
func TestBaseURIIsAPrefixACodeCanFollow(t *testing.T) {
	for base, want := range map[string]string{
		"https://errors.example.com":  "https://errors.example.com/not_found",
		"http://localhost:8080":       "http://localhost:8080/not_found",
		"HTTPS://Errors.Example.COM":  "HTTPS://Errors.Example.COM/not_found",
		"https://e.test/a b/":         "https://e.test/a%20b/not_found",
		"https://e.test/docs/errors/": "https://e.test/docs/errors/not_found",
		"https://e.test/errors#":      "https://e.test/errors#not_found",
		"https://e.test/errors?code=": "https://e.test/errors?code=not_found",
		"/problems/":                  "/problems/not_found",
		"urn:example:problem:":        "urn:example:problem:not_found",
		"https://user@e.test:8443":    "https://user@e.test:8443/not_found",
	} {
		var logs bytes.Buffer
		wr := problem.NewWriter(problem.WithBaseURI(base), problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
		repaired := strings.Contains(logs.String(), "WithBaseURI")
		rec := httptest.NewRecorder()
		_ = wr.Write(rec, httptest.NewRequest("GET", "/x", nil), problem.New(problem.NotFound))
		var doc struct{ Type string }
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Type != want {
			t.Errorf("base %q: type %q, want %q", base, doc.Type, want)
		}
		if repaired != (want != base+"not_found") {
			t.Errorf("base %q: repaired %v, log %s", base, repaired, logs.String())
		}
		if u, err := url.Parse(base); err == nil && u.Host != "" {
			if got, err := url.Parse(doc.Type); err != nil || got.Host != u.Host {
				t.Errorf("base %q: type %q names host %q", base, doc.Type, got.Host)
			}
		}
	}
}
