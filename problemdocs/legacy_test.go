package problemdocs_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// pageExample is the example document on an HTML page, unescaped.
func pageExample(t *testing.T, page string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre id="example">(.*?)</pre>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no example on the page:\n%s", page)
	}
	text := strings.NewReplacer("&#34;", `"`, "&quot;", `"`, "&lt;", "<", "&gt;", ">", "&#39;", "'", "&amp;", "&").Replace(m[1])
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("example %s: %v", text, err)
	}
	return doc
}

// liveBody is what the Writer sends for k, for comparing the pages'
// examples with the wire.
func liveBody(t *testing.T, wr *problem.Writer, k problem.Kind) map[string]any {
	t.Helper()
	rec := httptest.NewRecorder()
	wr.Write(rec, httptest.NewRequest(http.MethodGet, "/v1/orders", nil), problem.New(k))
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestPagesAnnounceTheLegacyWindow: with a legacy window configured, every
// type-URI page, the index and their JSON name the legacy members and the
// end date, and the examples carry the members as the Writer sends them;
// with none, nothing of it appears.
func TestPagesAnnounceTheLegacyWindow(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clock := problemhook.WithClock(func() time.Time { return now }).(problem.Option)
	for _, c := range []struct {
		name     string
		legacy   *problem.Legacy
		announce []string // on every page; nil: no notice at all
		members  bool     // the examples carry error and message
	}{
		{"ends 2027-03-31", &problem.Legacy{Until: time.Date(2027, 3, 31, 23, 59, 0, 0, time.UTC)},
			[]string{`id="legacy"`, `<code>error</code>`, `<code>message</code>`, `datetime="2027-03-31T23:59:00Z">2027-03-31</time>`}, true},
		{"ends 2029-01-15 in another zone", &problem.Legacy{Until: time.Date(2029, 1, 15, 20, 0, 0, 0, time.FixedZone("PST", -8*3600))},
			[]string{`id="legacy"`, `<code>error</code>`, `<code>message</code>`, `>2029-01-16</time>`}, true},
		{"no announced end", &problem.Legacy{},
			[]string{`id="legacy"`, `<code>error</code>`, `<code>message</code>`, "no end date announced"}, true},
		{"ended", &problem.Legacy{Until: time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)},
			[]string{`id="legacy"`, "no longer sent", `>2026-06-30</time>`}, false},
		{"none", nil, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := []problem.Option{clock}
			if c.legacy != nil {
				opts = append(opts, problem.WithLegacy(*c.legacy))
			}
			wr := problem.NewWriter(opts...)
			srv := serve(t, wr)
			_, index := get(t, srv.URL+"/problems/", "text/html")
			for _, k := range []problem.Kind{problem.RateLimited, problem.NotFound, problem.Internal, problem.ValidationFailed} {
				_, page := get(t, srv.URL+"/problems/"+string(k), "text/html")
				for _, html := range []string{page, index} {
					if c.announce == nil && strings.Contains(html, `id="legacy"`) {
						t.Errorf("%s: a legacy notice without a window", string(k))
					}
					for _, want := range c.announce {
						if !strings.Contains(html, want) {
							t.Errorf("%s: page lacks %q", string(k), want)
						}
					}
				}
				example := pageExample(t, page)
				live := liveBody(t, wr, k)
				for _, m := range []string{"error", "message"} {
					if _, ok := example[m]; ok != c.members {
						t.Errorf("%s: example has %s: %v, want %v", string(k), m, ok, c.members)
					}
					if example[m] != live[m] {
						t.Errorf("%s: example %s %v, the wire %v", string(k), m, example[m], live[m])
					}
				}
				if c.members && example["error"] != string(k) {
					t.Errorf("%s: example error %v", string(k), example["error"])
				}

				_, body := get(t, srv.URL+"/problems/"+string(k), "application/json")
				var doc struct {
					Legacy *struct {
						Members []string `json:"members"`
						Until   string   `json:"until"`
						Active  bool     `json:"active"`
					} `json:"legacy"`
					Example map[string]any `json:"example"`
				}
				if err := json.Unmarshal([]byte(body), &doc); err != nil {
					t.Fatal(err)
				}
				if (doc.Legacy != nil) != (c.legacy != nil) {
					t.Fatalf("%s: JSON legacy %+v", string(k), doc.Legacy)
				}
				if doc.Legacy != nil {
					want := ""
					if !c.legacy.Until.IsZero() {
						want = c.legacy.Until.UTC().Format(time.RFC3339)
					}
					if strings.Join(doc.Legacy.Members, ",") != "error,message" || doc.Legacy.Until != want || doc.Legacy.Active != c.members {
						t.Errorf("%s: JSON legacy %+v", string(k), doc.Legacy)
					}
				}
				if _, ok := doc.Example["message"]; ok != c.members {
					t.Errorf("%s: JSON example has message %v", string(k), ok)
				}
			}
			_, body := get(t, srv.URL+"/problems/", "application/json")
			if strings.Contains(body, `"legacy"`) != (c.legacy != nil) {
				t.Errorf("index JSON legacy notice: %v, want %v", strings.Contains(body, `"legacy"`), c.legacy != nil)
			}
			spec := specOf(t, wr)
			if strings.Contains(string(spec), `"error": "rate_limited"`) != c.members {
				t.Errorf("OpenAPI examples carry the legacy members: %v, want %v", !c.members, c.members)
			}
			// The Problem schema announces the members while they are
			// sent, with the window's end date when there is one.
			described := loadSpec(t, wr).Components.Schemas["Problem"].Value.Description
			if strings.Contains(described, "legacy members error (the code) and message") != c.members {
				t.Errorf("Problem schema description %q, want the legacy note: %v", described, c.members)
			}
			if c.members && c.legacy.Until.IsZero() == strings.Contains(described, " until ") {
				t.Errorf("Problem schema description %q for a window ending %v", described, c.legacy.Until)
			}
		})
	}
}
