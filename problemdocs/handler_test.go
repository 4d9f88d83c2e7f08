package problemdocs_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/problemdocs"
)

func serve(t *testing.T, wr *problem.Writer) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/problems/", problemdocs.Handler(problemdocs.WithWriter(wr)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url, accept string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestEveryCodeHasAPageAndJSON(t *testing.T) {
	srv := serve(t, problem.NewWriter(problem.WithBaseURI("https://api.example.com/problems/")))
	for _, c := range problem.DefaultRegistry().Definitions() {
		resp, body := get(t, srv.URL+"/problems/"+string(c.Code), "text/html,application/xhtml+xml,*/*;q=0.8")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", string(c.Code), resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		for _, want := range []string{`<code id="code">` + string(c.Code) + `</code>`, `<code id="action">` + string(c.Action) + `</code>`, "https://api.example.com/problems/" + string(c.Code)} {
			if !strings.Contains(body, want) {
				t.Errorf("%s page lacks %q", string(c.Code), want)
			}
		}

		resp, body = get(t, srv.URL+"/problems/"+string(c.Code), "application/json")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s json: %d %s", string(c.Code), resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var doc struct {
			Code, Type, Action, Cause, Title string
			Status                           int
			Retryable                        bool
			Reaction                         string `json:"client_reaction"`
			Example                          map[string]any
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Code != string(c.Code) || doc.Status != c.Status || doc.Action != string(c.Action) || doc.Retryable != c.Retryable ||
			doc.Type != "https://api.example.com/problems/"+string(c.Code) || doc.Reaction == "" {
			t.Errorf("%s json: %+v", string(c.Code), doc)
		}
		if doc.Example["code"] != string(c.Code) || doc.Example["type"] != doc.Type || doc.Example["status"] != float64(c.Status) {
			t.Errorf("%s example: %v", string(c.Code), doc.Example)
		}
	}
}

func TestIndexLinksResolve(t *testing.T) {
	srv := serve(t, problem.NewWriter())
	resp, body := get(t, srv.URL+"/problems/", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("index: %d", resp.StatusCode)
	}
	links := 0
	for rest := body; ; {
		i := strings.Index(rest, `<a href="`)
		if i < 0 {
			break
		}
		rest = rest[i+len(`<a href="`):]
		href := rest[:strings.IndexByte(rest, '"')]
		if r, _ := get(t, srv.URL+"/problems/"+href, ""); r.StatusCode != 200 {
			t.Errorf("link %q: %d", href, r.StatusCode)
		}
		links++
	}
	if links != len(problem.DefaultRegistry().Definitions()) {
		t.Fatalf("index links %d codes, registry has %d", links, len(problem.DefaultRegistry().Definitions()))
	}
	_, body = get(t, srv.URL+"/problems/", "application/json")
	var idx struct{ Codes []struct{ Code string } }
	if err := json.Unmarshal([]byte(body), &idx); err != nil || len(idx.Codes) != links {
		t.Fatalf("json index: %v %d", err, len(idx.Codes))
	}
}

func TestUnknownCodeAndWrongMethodAreProblems(t *testing.T) {
	srv := serve(t, problem.NewWriter())
	resp, body := get(t, srv.URL+"/problems/no_such_code%3Cscript%3E", "")
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, `"code":"not_found"`) {
		t.Fatalf("unknown code: %d %s", resp.StatusCode, body)
	}
	if strings.Contains(body, "<script>") {
		t.Fatalf("echoes markup: %s", body)
	}
	resp, err := http.Post(srv.URL+"/problems/internal", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("POST: %d Allow=%q", resp.StatusCode, resp.Header.Get("Allow"))
	}
	resp, err = http.Head(srv.URL + "/problems/internal")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength > 0 {
		t.Fatalf("HEAD: %d length %d", resp.StatusCode, resp.ContentLength)
	}
}

func TestPagesEscapeRegisteredText(t *testing.T) {
	reg := problem.NewRegistry()
	if err := reg.Register(problem.Definition{Code: "odd_code", Status: 409, Title: `Odd <b>title</b>`, Action: problem.ActionFixRequest,
		Cause: problem.CauseRequest, Meaning: `<script>alert(1)</script>`}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, problem.NewWriter(problem.WithRegistry(reg)))
	_, body := get(t, srv.URL+"/problems/odd_code", "text/html")
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<b>title") {
		t.Fatalf("unescaped markup in page:\n%s", body)
	}
	if !strings.Contains(body, "&lt;script&gt;") {
		t.Fatalf("meaning missing:\n%s", body)
	}
}

func TestDeprecatedCodesSayWhatReplacesThem(t *testing.T) {
	reg := problem.NewRegistry()
	if err := reg.Register(problem.Definition{Code: "old_thing", Status: 409, Title: "Old thing", Action: problem.ActionFixRequest,
		Cause: problem.CauseRequest, Deprecated: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), Successor: "conflict"}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, problem.NewWriter(problem.WithRegistry(reg)))
	_, page := get(t, srv.URL+"/problems/old_thing", "text/html")
	if !strings.Contains(page, `id="deprecated"`) || !strings.Contains(page, `<a href="conflict">`) || !strings.Contains(page, "2026-06-01") {
		t.Fatalf("page does not announce the deprecation:\n%s", page)
	}
	_, index := get(t, srv.URL+"/problems/", "text/html")
	if !strings.Contains(index, "deprecated since 2026-06-01") {
		t.Fatalf("index does not show the deprecation")
	}
	_, js := get(t, srv.URL+"/problems/old_thing", "application/json")
	if !strings.Contains(js, `"deprecated": {`) || !strings.Contains(js, `"successor": "conflict"`) {
		t.Fatalf("json: %s", js)
	}
}

// TestDeprecationDateIsTheDayTheDefinitionNames: a deprecation is a
// date, and the pages show the day the team wrote in its Definition,
// whatever zone the time.Time carries, as the registry's code table does.
func TestDeprecationDateIsTheDayTheDefinitionNames(t *testing.T) {
	reg := problem.NewRegistry()
	days := map[string]time.Time{
		"2026-03-01": time.Date(2026, 3, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600)),
		"2026-06-30": time.Date(2026, 6, 30, 22, 0, 0, 0, time.FixedZone("EST", -5*3600)),
		"2027-01-15": time.Date(2027, 1, 15, 0, 30, 0, 0, time.FixedZone("IST", 5*3600+1800)),
	}
	codes := map[string]string{}
	for day, at := range days {
		code := "old_" + strings.ReplaceAll(day, "-", "_")
		codes[code] = day
		if err := reg.Register(problem.Definition{Code: problem.Kind(code), Status: 409, Title: "Old", Action: problem.ActionFixRequest,
			Cause: problem.CauseRequest, Deprecated: at}); err != nil {
			t.Fatal(err)
		}
	}
	srv := serve(t, problem.NewWriter(problem.WithRegistry(reg)))
	_, index := get(t, srv.URL+"/problems/", "text/html")
	for code, day := range codes {
		if _, page := get(t, srv.URL+"/problems/"+code, "text/html"); !strings.Contains(page, "since "+day+".") {
			t.Errorf("%s page does not say %s:\n%s", code, day, page)
		}
		if _, js := get(t, srv.URL+"/problems/"+code, "application/json"); !strings.Contains(js, `"since": "`+day+`"`) {
			t.Errorf("%s json does not say %s:\n%s", code, day, js)
		}
		if !strings.Contains(index, "deprecated since "+day) {
			t.Errorf("index does not say %s", day)
		}
	}
}

// TestPagesStateTheOutcomeACodeGuarantees: a code whose every occurrence
// starts with an outcome (audit_unavailable: not_started, nothing was
// done) says so on its page and in its JSON, as the README's code table
// does, so a client knows before the first failure that a write it sent
// may be sent again; a code without one states none.
func TestPagesStateTheOutcomeACodeGuarantees(t *testing.T) {
	reg := problem.NewRegistry()
	if err := reg.Register(problem.Definition{Code: "ledger_closed", Status: 409, Title: "Ledger closed", Action: problem.ActionNone,
		Cause: problem.CausePolicy, Outcome: problem.OutcomeNotCommitted}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, problem.NewWriter(problem.WithRegistry(reg)))
	withOutcome := 0
	for _, c := range reg.Definitions() {
		_, page := get(t, srv.URL+"/problems/"+string(c.Code), "text/html")
		_, js := get(t, srv.URL+"/problems/"+string(c.Code), "application/json")
		var doc struct {
			Outcome *string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		onPage := strings.Contains(page, `<code id="outcome">`)
		if c.Outcome == "" {
			if doc.Outcome != nil || onPage {
				t.Errorf("%s states an outcome it does not have", c.Code)
			}
			continue
		}
		withOutcome++
		if doc.Outcome == nil || *doc.Outcome != string(c.Outcome) {
			t.Errorf("%s json outcome = %v, want %s", c.Code, doc.Outcome, c.Outcome)
		}
		if !strings.Contains(page, `<code id="outcome">`+string(c.Outcome)+`</code>`) {
			t.Errorf("%s page does not state outcome %s", c.Code, c.Outcome)
		}
	}
	if withOutcome < 3 {
		t.Fatalf("only %d codes with an outcome checked", withOutcome)
	}
}

// TestSuccessorLinksResolve: a deprecated code's page links its successor
// only when the registry documents it. Register accepts a successor that
// is not registered (yet, or ever: a typo) and Retire may retire one later,
// and a link to either answered 404 or 410 from the page that sends
// clients there.
func TestSuccessorLinksResolve(t *testing.T) {
	reg := problem.NewRegistry()
	for code, successor := range map[string]string{"old_seat": "seat_taken", "old_quota": "quota_exceded", "old_lock": "locked", "old_wait": "upstream_timeout"} {
		if err := reg.Register(problem.Definition{Code: problem.Kind(code), Status: 409, Title: "Old", Action: problem.ActionFixRequest,
			Cause: problem.CauseRequest, Deprecated: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), Successor: problem.Kind(successor)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := reg.Register(problem.Definition{Code: "seat_taken", Status: 409, Title: "Seat taken", Action: problem.ActionFixRequest,
		Cause: problem.CauseRequest}); err != nil {
		t.Fatal(err)
	}
	reg.Retire("upstream_timeout")
	srv := serve(t, problem.NewWriter(problem.WithRegistry(reg)))
	linked := 0
	for _, code := range []string{"old_seat", "old_quota", "old_lock", "old_wait"} {
		_, page := get(t, srv.URL+"/problems/"+code, "text/html")
		for rest := page; ; {
			i := strings.Index(rest, `<a href="`)
			if i < 0 {
				break
			}
			rest = rest[i+len(`<a href="`):]
			href := rest[:strings.IndexByte(rest, '"')]
			if resp, _ := get(t, srv.URL+"/problems/"+href, ""); resp.StatusCode != http.StatusOK {
				t.Errorf("%s links %q, which answers %d", code, href, resp.StatusCode)
			}
			linked++
		}
		if !strings.Contains(page, `id="deprecated"`) {
			t.Errorf("%s page does not announce the deprecation", code)
		}
	}
	if linked != 4+2 {
		t.Errorf("%d links on the pages, want the index link on each and two successors", linked)
	}
}
