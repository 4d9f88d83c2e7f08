package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/problem"
)

// liarApp answers every request with a problem that contradicts itself in
// every way the judgements know, and negotiates XML without saying so.
func liarApp(t *testing.T) string {
	return serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "private, no-store")
		w.Header().Set("Retry-After", "1")
		w.Header().Set("X-Request-Id", r.Header.Get("X-Request-Id"))
		if strings.Contains(r.Header.Get("Accept"), "xml") {
			w.Header().Set("Content-Type", "application/problem+xml")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`<?xml version="1.0"?><problem xmlns="urn:ietf:rfc:7807"><type>https://example.com/gone</type><title>Another title</title><status>404</status><status>404</status></problem>`))
			return
		}
		w.Header().Set("Content-Type", "application/problem+json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"type":"https://example.com/gone","title":"Gone","status":400,"instance":"/a path",` +
			`"code":"Gone-Now","action":"retry","cause":"weather","retryable":false,"retry_after_ms":1500,` +
			`"correlation_id":"someone-else"}`))
	}))
}

func TestJudgementsOfAContradictoryProblem(t *testing.T) {
	_, rep, _ := probeRun(t, liarApp(t), "-rate", "500", "-checks", "accept", "-contract", "faultline")
	got := map[string][]string{}
	for _, c := range rep.Checks {
		for _, r := range c.Requests {
			for _, f := range r.Failures {
				got[f.Judgement] = append(got[f.Judgement], f.Why)
			}
		}
	}
	for judgement, want := range map[string]string{
		jStatusMember: "status member 400, HTTP status 404",
		jSchema:       `"instance" "/a path" is not a URI reference`,
		jRetry:        "action retry with retryable false",
		jTypeStable:   `type "https://example.com/gone" has title "Gone" and status 400 here, title "Another title" and status 404 in fp-`,
		jVary:         "the representation depends on Accept",
		jContract:     `code "Gone-Now" is not snake_case`,
		jCorrelation:  `correlation_id "someone-else" differs from X-Request-Id`,
	} {
		if !slices.ContainsFunc(got[judgement], func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("%s: no failure saying %q in %q", judgement, want, got[judgement])
		}
	}
	for _, want := range []string{"Retry-After \"1\", want 2 (retry_after_ms 1500 rounded up to seconds)", `cause "weather" is not one of faultline's causes`, "element status appears twice"} {
		found := false
		for _, whys := range got {
			found = found || slices.ContainsFunc(whys, func(w string) bool { return strings.Contains(w, want) })
		}
		if !found {
			t.Errorf("no failure saying %q in %v", want, got)
		}
	}
}

// The kit's own renderings satisfy the schema rules the probe encodes, in
// both representations; broken variants of each do not.
func TestSchemaRules(t *testing.T) {
	p := problem.New(problem.NotFound).WithDetail("No item exists with this id.")
	if _, why := parseProblemJSON(p.AppendJSON(nil)); len(why) > 0 {
		t.Errorf("the kit's JSON: %q", why)
	}
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/items/7", nil)
	r.Header.Set("Accept", "application/problem+xml")
	_ = testlog.Writer(nil).Write(rec, r, p)
	if _, why := parseProblemXML(rec.Body.Bytes()); len(why) > 0 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/problem+xml") {
		t.Errorf("the kit's XML: %q\n%s", why, rec.Body)
	}
	for _, tc := range []struct{ body, want string }{
		{`[1]`, "not an object"},
		{`{"status":"404"}`, `"status" 404 is not an integer`},
		{`{"status":404.5}`, "is not an integer"},
		{`{"status":700}`, "outside 100..599"},
		{`{"title":7}`, `"title" is a number, not a string`},
		{`{"type":"https://x.example/a b"}`, "is not a URI reference"},
		{`{"instance":"/x%zz"}`, "is not a URI reference"},
		{`{"title":"a"} {"title":"b"}`, "more than one JSON value"},
		{`{"title":`, "not JSON"},
	} {
		_, why := parseProblemJSON([]byte(tc.body))
		if !slices.ContainsFunc(why, func(w string) bool { return strings.Contains(w, tc.want) }) {
			t.Errorf("%s: %q, want %q", tc.body, why, tc.want)
		}
	}
	if _, why := parseProblemJSON([]byte(`{"status":404.0,"type":"about:blank","instance":"/x%2Fy?q=1#f"}`)); len(why) > 0 {
		t.Errorf("a valid problem: %q", why)
	}
	for _, tc := range []struct{ body, want string }{
		{`<problem><title>x</title></problem>`, "not {urn:ietf:rfc:7807}problem"},
		{`<p:problem xmlns:p="urn:ietf:rfc:7807"><x:ext xmlns:x="urn:other">1</x:ext></p:problem>`, "outside the RFC's namespace"},
		{`<problem xmlns="urn:ietf:rfc:7807"><status>0</status></problem>`, "not a positive integer"},
		{`<problem xmlns="urn:ietf:rfc:7807"><title>a</title><title>b</title></problem>`, "appears twice"},
		{`<problem xmlns="urn:ietf:rfc:7807">loose<title>a</title></problem>`, "text outside its child elements"},
		{`<problem xmlns="urn:ietf:rfc:7807"><title>a</problem>`, "not well-formed"},
		{`not xml`, "not XML with a root element"},
	} {
		_, why := parseProblemXML([]byte(tc.body))
		if !slices.ContainsFunc(why, func(w string) bool { return strings.Contains(w, tc.want) }) {
			t.Errorf("%s: %q, want %q", tc.body, why, tc.want)
		}
	}
}

// The rules the probe encodes agree with RFC 9457 Appendix A's JSON Schema
// itself (the shared copy, with formats asserted) on every body of a
// corpus: the binary carries no schema file, so this test keeps the two
// the same.
func TestSchemaRulesAgreeWithTheRFCSchema(t *testing.T) {
	const path = "/work/shared/problem-details-schemas/rfc9457-appendix-a.schema.json"
	f, err := os.Open(path)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs %s: %v", path, err)
		}
		t.Skipf("%s: %v", path, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("rfc9457.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("rfc9457.json")
	if err != nil {
		t.Fatal(err)
	}
	corpus := []string{
		`{}`, `{"type":"about:blank"}`, `{"type":"https://e.example/p?q=1#x"}`, `{"type":"/relative/ok"}`,
		`{"type":"has space"}`, `{"type":"%zz"}`, `{"type":"%41"}`, `{"type":"https://é.example/"}`, `{"type":7}`,
		`{"title":"t"}`, `{"title":null}`, `{"title":["t"]}`, `{"detail":"d"}`, `{"detail":false}`,
		`{"status":100}`, `{"status":599}`, `{"status":99}`, `{"status":600}`, `{"status":404.0}`, `{"status":404.5}`,
		`{"status":"404"}`, `{"status":-1}`, `{"status":4e2}`,
		`{"instance":"/orders/1"}`, `{"instance":"urn:uuid:0193b1c2"}`, `{"instance":"/a b"}`, `{"instance":"/a\\u0000b"}`,
		`{"instance":"/x?y=<z>"}`, `{"instance":""}`, `{"type":"","status":500,"code":"x"}`,
		`[]`, `"problem"`, `3`, `null`,
	}
	for _, body := range corpus {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		schemaOK := sch.Validate(inst) == nil
		_, why := parseProblemJSON([]byte(body))
		probeOK := len(why) == 0
		// The validator reads uri-reference with url.Parse, which lets a
		// space, "<" or a raw "é" through; RFC 3986 §2 does not, and
		// neither does the probe. That is the one difference allowed.
		stricter := schemaOK && !probeOK && len(why) == 1 && strings.Contains(why[0], "is not a URI reference") &&
			strings.ContainsFunc(body, func(r rune) bool { return r == ' ' || r == '<' || r > 0x7e })
		if probeOK != schemaOK && !stricter {
			t.Errorf("%s: the schema says valid=%v, the probe says %q", body, schemaOK, why)
		}
	}
}

// In JSON, retryable is a boolean and retry_after_ms a number; only XML
// spells them as text. A JSON "false" is truthy to a JavaScript or Python
// client, which retries a failure it was told not to, and a string delay
// breaks arithmetic: both passed, the string read as XML's text.
func TestRetrySignalsKeepTheirJSONTypes(t *testing.T) {
	for _, members := range []string{
		`"retryable":"false"`,
		`"retryable":"true","action":"retry"`,
		`"retryable":0`,
		`"retryable":true,"action":"retry","retry_after_ms":"1500"`,
		`"retryable":true,"action":"retry","retry_after_ms":true`,
	} {
		app := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Request-Id")
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("X-Request-Id", id)
			if strings.Contains(members, "retry_after_ms") {
				w.Header().Set("Retry-After", "2")
			}
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"type":"about:blank","title":"Not Found","status":404,"code":"not_found","action":"fix_request","cause":"request",` +
				members + `,"correlation_id":"` + id + `"}`))
		}))
		code, rep, _ := probeRun(t, app, "-rate", "500", "-checks", "unknown-route", "-contract", "faultline")
		whys := failuresOf(rep, jRetry)
		if code != exitFail || len(whys) != 1 || !strings.Contains(whys[0], ", not a") {
			t.Errorf("%s: exit %d, retry-signals failures %q\n%s", members, code, whys, dump(rep))
		}
	}
}

// RFC 9457 makes the status member optional: a problem without it is
// judged by its HTTP status. about:blank's title was compared with the
// phrase of status 0 (""), so a valid problem failed type-stable, and a
// type seen with and without the member looked like two statuses.
func TestProblemWithoutStatusMember(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
	}{
		{http.StatusNotFound, `{"type":"about:blank","title":"Not Found"}`},
		{http.StatusNotFound, `{"title":"Not Found","detail":"No such route."}`},
		{http.StatusGone, `{"title":"Gone"}`},
		{http.StatusNotFound, `{"type":"https://example.com/probs/no-route","title":"No such route"}`},
	} {
		var n atomic.Int64
		app := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Vary", "Accept")
			w.WriteHeader(tc.status)
			body := tc.body
			if n.Add(1)%2 == 0 {
				// The same type, now with its status member.
				body = strings.Replace(body, "{", `{"status":`+strconv.Itoa(tc.status)+`,`, 1)
			}
			_, _ = w.Write([]byte(body))
		}))
		code, rep, _ := probeRun(t, app, "-rate", "500", "-concurrency", "1", "-checks", "unknown-route,accept")
		if code != exitPass {
			t.Errorf("%d %s: exit %d\n%s", tc.status, tc.body, code, dump(rep))
		}
	}
}

// A member named twice is read one way by encoding/json (the last value)
// and another by a first-wins or strict parser: {"status":200,...,
// "status":404} on a 404 passed status-member, as the probe read 404.
func TestDuplicateMembersInAProblem(t *testing.T) {
	for _, tc := range []struct{ body, name string }{
		{`{"status":200,"title":"Not Found","status":404}`, "status"},
		{`{"title":"Not Found","code":"rate_limited","status":404,"code":"not_found"}`, "code"},
		{`{"title":"Not Found","errors":[{"pointer":"/a","detail":"x","pointer":"/b"}]}`, "pointer"},
		{`{"title":"Not Found","ext":{"a":{"b":1,"b":2}}}`, "b"},
		{`{"title":"Title","x":["title","title"],"y":{"title":1}}`, ""},
		{`{"a":{"a":{"a":[{"a":1},{"a":2}]}},"b":"a"}`, ""},
	} {
		_, why := parseProblemJSON([]byte(tc.body))
		want := []string{}
		if tc.name != "" {
			want = []string{"member " + strconv.Quote(tc.name) + " appears twice in one object"}
		}
		if !slices.Equal(append([]string{}, why...), want) {
			t.Errorf("%s: %q, want %q", tc.body, why, want)
		}
	}
}

// An answer whose X-Request-Id holds two different IDs names no one
// correlation ID; the probe read the first, the inbound one, and passed.
// The same value twice is one ID.
func TestOneCorrelationIDPerAnswer(t *testing.T) {
	for _, tc := range []struct {
		extra    func(id string) []string
		contract string
		fails    bool
	}{
		{func(string) []string { return []string{"gw-7f3a9c"} }, "faultline", true},
		{func(string) []string { return []string{"b"} }, "rfc9457", true},
		{func(id string) []string { return []string{"b", id} }, "rfc9457", true},
		{func(id string) []string { return []string{id} }, "faultline", false},
		{func(string) []string { return nil }, "faultline", false},
	} {
		app := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("X-Request-Id")
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("X-Request-Id", id)
			for _, v := range tc.extra(id) {
				w.Header().Add("X-Request-Id", v)
			}
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"type":"about:blank","title":"Not Found","status":404,"code":"not_found","action":"fix_request","cause":"request",` +
				`"retryable":false,"correlation_id":"` + id + `"}`))
		}))
		code, rep, _ := probeRun(t, app, "-rate", "500", "-checks", "unknown-route", "-contract", tc.contract)
		whys := failuresOf(rep, jCorrelation)
		if tc.fails != (code == exitFail) || tc.fails != (len(whys) == 1 && strings.Contains(whys[0], "X-Request-Id has 2 different values")) {
			t.Errorf("%q (%s): exit %d, correlation failures %q", tc.extra("ID"), tc.contract, code, whys)
		}
	}
}

// A hostile X-Request-Id echoed in an escaped spelling is still echoed: a
// JSON encoder that escapes non-ASCII (Python's json.dumps, Jackson's
// ESCAPE_NON_ASCII) or an XML one writing character references sent the
// non-ASCII ID back and passed, as the probe searched the raw bytes.
func TestHostileIDEchoedEscaped(t *testing.T) {
	escapes := map[string]func(string) string{
		"json": func(s string) string {
			var b strings.Builder
			for _, c := range s {
				if c > 0x7e {
					fmt.Fprintf(&b, `\u%04x`, c)
				} else {
					b.WriteRune(c)
				}
			}
			return `{"type":"about:blank","title":"Not Found","status":404,"meta":{"request_id":"` + b.String() + `"}}`
		},
		"xml": func(s string) string {
			var b strings.Builder
			for _, c := range s {
				if c > 0x7e {
					fmt.Fprintf(&b, "&#%d;", c)
				} else {
					b.WriteRune(c)
				}
			}
			return `<problem xmlns="urn:ietf:rfc:7807"><title>Not Found</title><status>404</status><request_id>` + b.String() + `</request_id></problem>`
		},
	}
	for name, body := range escapes {
		app := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/problem+"+name)
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(body(r.Header.Get("X-Request-Id"))))
		}))
		_, rep, _ := probeRun(t, app, "-rate", "500", "-checks", "request-id")
		if whys := failuresOf(rep, jHostileID); !slices.ContainsFunc(whys, func(w string) bool { return strings.Contains(w, "escaped, in /") }) {
			t.Errorf("%s: hostile-id failures %q\n%s", name, whys, dump(rep))
		}
	}
}

// A 405 whose Allow lists the method it refused contradicts itself (RFC
// 9110 §15.5.6): a server answering every unrouted method with one
// catch-all Allow passed method-not-allowed, and the methods it claimed
// were never probed.
func TestAllowNeverListsTheRefusedMethod(t *testing.T) {
	for _, tc := range []struct{ route, allow string }{
		{"/items", "GET, HEAD, POST, PUT, PATCH, DELETE, TRACE"},
		{"/items", "GET, HEAD, OPTIONS, trace"},
		// The route's methods given: POST is sent, refused, and listed.
		{"GET /items", "GET, HEAD, POST"},
	} {
		allow := tc.allow
		app := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Cache-Control", "no-store")
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"title":"Not Found","status":404}`))
				return
			}
			w.Header().Set("Allow", allow)
			w.WriteHeader(http.StatusMethodNotAllowed)
			_, _ = w.Write([]byte(`{"title":"Method Not Allowed","status":405}`))
		}))
		code, rep, _ := probeRun(t, app, "-rate", "500", "-route", tc.route, "-allow-writes", "-checks", "method-not-allowed")
		whys := failuresOf(rep, jAllow)
		if code != exitFail || len(whys) == 0 {
			t.Errorf("Allow %s: exit %d, allow failures %q", allow, code, whys)
		}
		for _, r := range rep.Checks[0].Requests {
			for _, f := range r.Failures {
				if want := "lists " + r.Method + ", the method refused"; f.Judgement == jAllow && !strings.Contains(f.Why, want) {
					t.Errorf("Allow %s, %s: %q", allow, r.Method, f.Why)
				}
			}
		}
	}
}
