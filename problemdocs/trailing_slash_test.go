package problemdocs_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// TestCodeWithTrailingSlashRedirectsToItsPage: /problems/rate_limited/ is
// the rate_limited page (by a permanent redirect a browser follows), not
// the index under a base where every link would resolve a level too deep;
// the index itself stays at the mount point.
func TestCodeWithTrailingSlashRedirectsToItsPage(t *testing.T) {
	srv := serve(t, problem.Default())
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(srv.URL + "/problems/rate_limited/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != "../rate_limited" {
		t.Fatalf("%d Location=%q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := get(t, srv.URL+"/problems/rate_limited/", "application/json")
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/problems/rate_limited" || !strings.Contains(body, `"code": "rate_limited"`) {
		t.Errorf("%d %s %s", resp.StatusCode, resp.Request.URL.Path, body)
	}
	resp, body = get(t, srv.URL+"/problems/", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `<a href="rate_limited">`) {
		t.Errorf("index: %d %s", resp.StatusCode, body)
	}
}

// TestRetiredTypeIsGone: the type URI of a retired code, still found in
// old logs and clients, answers gone (410), not an unknown not_found.
func TestRetiredTypeIsGone(t *testing.T) {
	reg := problem.NewRegistry()
	reg.Retire("upstream_timeout")
	srv := serve(t, problem.NewWriter(problem.WithRegistry(reg)))
	resp, body := get(t, srv.URL+"/problems/upstream_timeout", "text/html")
	if resp.StatusCode != http.StatusGone || !strings.Contains(body, `"code":"gone"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, srv.URL+"/problems/never_existed", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown code: %d", resp.StatusCode)
	}
	// With a trailing slash too: it names the retired code, not the index.
	for _, code := range []string{"upstream_timeout", "legacy_quota"} {
		reg.Retire(problem.Kind(code))
		resp, body = get(t, srv.URL+"/problems/"+code+"/", "application/json")
		if resp.StatusCode != http.StatusGone || resp.Request.URL.Path != "/problems/"+code {
			t.Errorf("%s/: %d at %s %s", code, resp.StatusCode, resp.Request.URL.Path, body)
		}
	}
}

// TestIndexListsRetiredCodes: the catalog says which codes were retired,
// as the registry's code table does, so a client or agent that reads it
// ahead of time tells a code that is gone for good from one it never knew;
// a registry without retired codes lists none.
func TestIndexListsRetiredCodes(t *testing.T) {
	reg := problem.NewRegistry()
	reg.Retire("upstream_timeout", "seat_lost", "a_quota")
	srv := serve(t, problem.NewWriter(problem.WithRegistry(reg)))
	_, js := get(t, srv.URL+"/problems/", "application/json")
	var idx struct {
		Retired []string `json:"retired"`
		Codes   []struct{ Code string }
	}
	if err := json.Unmarshal([]byte(js), &idx); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a_quota", "seat_lost", "upstream_timeout"}; !slices.Equal(idx.Retired, want) {
		t.Errorf("json index retired = %q, want %q", idx.Retired, want)
	}
	_, page := get(t, srv.URL+"/problems/", "text/html")
	if !strings.Contains(page, `<p id="retired">`) || !strings.Contains(page, "<code>a_quota</code>, <code>seat_lost</code>, <code>upstream_timeout</code>") {
		t.Errorf("html index does not list the retired codes:\n%s", page)
	}

	plain := serve(t, problem.NewWriter())
	_, js = get(t, plain.URL+"/problems/", "application/json")
	_, page = get(t, plain.URL+"/problems/", "text/html")
	if strings.Contains(js, `"retired"`) || strings.Contains(page, `id="retired"`) {
		t.Errorf("a registry without retired codes lists some")
	}
}
