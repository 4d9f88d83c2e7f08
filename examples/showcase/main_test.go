package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/problemdocs"
)

type instance struct {
	base   string
	stdout *testlog.Buffer
	stderr *testlog.Buffer
}

var listeningRE = regexp.MustCompile(`listening on (http://\S+)`)

// start runs the showcase as main would, on a free loopback port, and stops
// it when the test ends.
func start(t *testing.T, args ...string) *instance {
	t.Helper()
	return startEnv(t, nil, args...)
}

func startEnv(t *testing.T, env map[string]string, args ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inst := &instance{stdout: &testlog.Buffer{}, stderr: &testlog.Buffer{}}
	done := make(chan error, 1)
	args = append([]string{"-addr", "127.0.0.1:0", "-timeout", "300ms", "-limit", "3", "-limit-window", "1m"}, args...)
	go func() { done <- run(ctx, args, inst.stdout, inst.stderr, func(k string) string { return env[k] }) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("run did not return after cancel")
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := listeningRE.FindStringSubmatch(inst.stdout.String()); m != nil {
			inst.base = m[1]
			return inst
		}
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\nstderr: %s", err, inst.stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no listening line; stdout: %s", inst.stdout)
	return nil
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (inst *instance) do(t *testing.T, method, path, contentType, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, inst.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// logRecords returns the JSON log lines carrying the correlation ID, waiting
// briefly because a record can be written just after the response.
func (inst *instance) logRecords(t *testing.T, id string) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		var recs []map[string]any
		sc := bufio.NewScanner(strings.NewReader(inst.stderr.String()))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("log line is not JSON: %q", sc.Text())
			}
			if rec["correlation_id"] == id {
				recs = append(recs, rec)
			}
		}
		if len(recs) > 0 || time.Now().After(deadline) {
			return recs
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type want struct {
	status    int
	code      string
	action    string
	retryable bool
}

// checkProblem asserts the wire contract every problem response shares and
// returns the parsed problem and the raw members.
func checkProblem(t *testing.T, inst *instance, res response, w want) (*problem.Problem, map[string]any) {
	t.Helper()
	if res.status != w.status {
		t.Fatalf("status = %d, want %d; body %s", res.status, w.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if got := res.header.Get("X-Error-Code"); got != w.code {
		t.Errorf("X-Error-Code = %q, want %q", got, w.code)
	}
	var raw map[string]any
	if err := json.Unmarshal(res.body, &raw); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, res.body)
	}
	p, err := problem.Parse(res.body)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if p.Status() != w.status || string(p.Code()) != w.code || string(p.Action()) != w.action || p.Retryable() != w.retryable {
		t.Errorf("got status=%d code=%s action=%s retryable=%v, want %+v", p.Status(), p.Code(), p.Action(), p.Retryable(), w)
	}
	id := res.header.Get("X-Request-Id")
	if id == "" || p.CorrelationID() != id {
		t.Errorf("correlation_id %q, X-Request-Id %q: want equal and set", p.CorrelationID(), id)
	}
	if time.Now().Before(legacyUntil) {
		if raw["error"] != w.code || raw["message"] != p.Message() {
			t.Errorf("legacy members: error=%v message=%v", raw["error"], raw["message"])
		}
		// The window is announced in the docs: Deprecation and Sunset
		// would say the resource itself is going away.
		if res.header.Get("Deprecation") != "" || res.header.Get("Sunset") != "" {
			t.Errorf("Deprecation %q, Sunset %q on an error response", res.header.Get("Deprecation"), res.header.Get("Sunset"))
		}
	}
	checkAgainstCatalog(t, inst, res.body, p)
	recs := inst.logRecords(t, id)
	found := false
	for _, rec := range recs {
		if rec["code"] == w.code {
			found = true
		}
	}
	if !found {
		t.Errorf("no log record with code %s for correlation ID %s; records: %v", w.code, id, recs)
	}
	return p, raw
}

func TestHealthz(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodGet, "/healthz", "", "")
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"ok"`) {
		t.Fatalf("healthz: %d %s", res.status, res.body)
	}
	if res.header.Get("X-Request-Id") == "" {
		t.Error("a success carries the correlation ID too")
	}
	if !strings.Contains(inst.stdout.String(), "curl -i "+inst.base+"/v1/upstream") {
		t.Errorf("stdout lacks the curl lines:\n%s", inst.stdout)
	}
}

func TestOrders(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodGet, "/v1/orders/ord_1", "", "")
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"id":"ord_1"`) {
		t.Fatalf("known order: %d %s", res.status, res.body)
	}
	res = inst.do(t, http.MethodGet, "/v1/orders/ord_404", "", "")
	p, _ := checkProblem(t, inst, res, want{404, "not_found", "fix_request", false})
	if p.Instance() != "/v1/orders/ord_404" {
		t.Errorf("instance = %q", p.Instance())
	}
}

func TestCreateOrder(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodPost, "/v1/orders", "application/json", `{"sku":"KB101","quantity":2,"email":"grace@example.com"}`)
	if res.status != http.StatusCreated {
		t.Fatalf("valid order: %d %s", res.status, res.body)
	}
	var o order
	if err := json.Unmarshal(res.body, &o); err != nil {
		t.Fatal(err)
	}
	if res.header.Get("Location") != "/v1/orders/"+o.ID {
		t.Errorf("Location = %q for %q", res.header.Get("Location"), o.ID)
	}
	if got := inst.do(t, http.MethodGet, "/v1/orders/"+o.ID, "", ""); got.status != http.StatusOK {
		t.Errorf("created order not readable: %d", got.status)
	}

	res = inst.do(t, http.MethodPost, "/v1/orders", "application/json", `{"sku":"","quantity":0,"email":"nope"}`)
	p, _ := checkProblem(t, inst, res, want{422, "validation_failed", "fix_request", false})
	pointers := map[string]bool{}
	for _, fe := range p.Errors() {
		pointers[fe.Pointer] = true
	}
	for _, ptr := range []string{"/sku", "/quantity", "/email"} {
		if !pointers[ptr] {
			t.Errorf("errors lack %s: %+v", ptr, p.Errors())
		}
	}

	res = inst.do(t, http.MethodPost, "/v1/orders", "application/json", `{"sku":`)
	checkProblem(t, inst, res, want{400, "invalid_json", "fix_request", false})

	res = inst.do(t, http.MethodPost, "/v1/orders", "text/plain", `sku=KB101`)
	checkProblem(t, inst, res, want{415, "unsupported_media_type", "fix_request", false})
}

func TestRouterProblems(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodGet, "/nowhere", "", "")
	checkProblem(t, inst, res, want{404, "not_found", "fix_request", false})

	res = inst.do(t, http.MethodPut, "/healthz", "", "")
	checkProblem(t, inst, res, want{405, "method_not_allowed", "fix_request", false})
	if allow := res.header.Get("Allow"); allow != "GET, HEAD" {
		t.Errorf("Allow = %q, want GET, HEAD", allow)
	}

	big := `{"sku":"` + strings.Repeat("A", 5000) + `"}`
	res = inst.do(t, http.MethodPost, "/v1/orders", "application/json", big)
	p, _ := checkProblem(t, inst, res, want{413, "request_too_large", "fix_request", false})
	if !strings.Contains(p.Detail(), "4096 bytes") {
		t.Errorf("detail should name the limit: %q", p.Detail())
	}

	res = inst.do(t, http.MethodDelete, "/v1/orders/ord_1", "", "")
	checkProblem(t, inst, res, want{403, "policy_denied", "none", false})
}

func TestOtherRepresentations(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodGet, "/nowhere", "", "", "Accept", "application/problem+xml")
	if res.status != 404 || !strings.HasPrefix(res.header.Get("Content-Type"), "application/problem+xml") ||
		!strings.Contains(string(res.body), "<code>not_found</code>") {
		t.Errorf("XML: %d %q %s", res.status, res.header.Get("Content-Type"), res.body)
	}
	res = inst.do(t, http.MethodGet, "/nowhere", "", "", "Accept", "text/plain")
	if res.status != 404 || !strings.HasPrefix(string(res.body), "faultline: not_found: ") {
		t.Errorf("text plane: %d %s", res.status, res.body)
	}
}

func TestPanic(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodGet, "/v1/panic", "", "")
	p, _ := checkProblem(t, inst, res, want{500, "internal", "retry", true})
	if p.Outcome() != problem.OutcomeNotCommitted {
		t.Errorf("outcome = %q: a GET changed nothing", p.Outcome())
	}
	if strings.Contains(string(res.body), "pricing table") || strings.Contains(string(res.body), "goroutine") {
		t.Errorf("the panic reached the client: %s", res.body)
	}
	recs := inst.logRecords(t, p.CorrelationID())
	if len(recs) == 0 || !strings.Contains(recs[0]["panic"].(string), "pricing table") || recs[0]["stack"] == nil {
		t.Errorf("the panic value and stack belong in the log: %v", recs)
	}
}

func TestSlowTimesOut(t *testing.T) {
	inst := start(t)
	for _, tc := range []struct {
		method, key string
		outcome     problem.Outcome
		action      string
		retryable   bool
	}{
		{http.MethodGet, "", problem.OutcomeNotCommitted, "retry", true},
		{http.MethodPost, "", problem.OutcomeUnknown, "verify", false},
		{http.MethodPost, "a1b2c3d4-idem", problem.OutcomeUnknown, "retry", true},
	} {
		var hdr []string
		if tc.key != "" {
			hdr = []string{"Idempotency-Key", tc.key}
		}
		began := time.Now()
		res := inst.do(t, tc.method, "/v1/slow", "", "", hdr...)
		if took := time.Since(began); took > 5*time.Second {
			t.Errorf("%s /v1/slow took %s: the deadline did not answer", tc.method, took)
		}
		p, _ := checkProblem(t, inst, res, want{503, "timeout", tc.action, tc.retryable})
		if p.Outcome() != tc.outcome {
			t.Errorf("%s key=%q: outcome = %q, want %q", tc.method, tc.key, p.Outcome(), tc.outcome)
		}
	}
}

func TestLimited(t *testing.T) {
	testLimited(t, start(t))
}

// TestLimitedInRedis runs the same limit with REDIS_URL set, against a real
// redis-server, and checks that the count lives there.
func TestLimitedInRedis(t *testing.T) {
	rdb := redistest.Start(t)
	inst := startEnv(t, map[string]string{"REDIS_URL": "redis://" + rdb.Addr() + "/0"})
	testLimited(t, inst)
	client := redis.NewClient(&redis.Options{Addr: rdb.Addr()})
	defer client.Close()
	keys, err := client.Keys(context.Background(), "*showcase-limited*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) == 0 {
		t.Error("no counter in Redis: the limit was not shared")
	}
}

func testLimited(t *testing.T, inst *instance) {
	t.Helper()
	for i := range 3 {
		if res := inst.do(t, http.MethodGet, "/v1/limited", "", ""); res.status != http.StatusOK {
			t.Fatalf("request %d within the limit: %d %s", i+1, res.status, res.body)
		}
	}
	res := inst.do(t, http.MethodGet, "/v1/limited", "", "")
	p, _ := checkProblem(t, inst, res, want{429, "rate_limited", "retry", true})
	// A sliding window may ask for more than one window: the weighted count
	// of the previous window must drop far enough to admit one more.
	if p.RetryAfter() <= 0 || p.RetryAfter() > 2*time.Minute {
		t.Errorf("retry_after_ms = %s, want between 0 and two 1m windows", p.RetryAfter())
	}
	if ra := res.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After = %q", ra)
	}
}

func TestInboundCorrelationIDIsEchoed(t *testing.T) {
	inst := start(t)
	const id = "client-chosen-id-0001"
	res := inst.do(t, http.MethodGet, "/v1/orders/ord_404", "", "", "X-Request-Id", id)
	p, _ := checkProblem(t, inst, res, want{404, "not_found", "fix_request", false})
	if p.CorrelationID() != id {
		t.Errorf("correlation_id = %q, want the client's %q", p.CorrelationID(), id)
	}
}

func TestUpstreamLeaksNothing(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodGet, "/v1/upstream", "", "")
	_, raw := checkProblem(t, inst, res, want{502, "upstream_error", "retry", true})
	if raw["cause"] != "upstream" {
		t.Errorf("cause = %v", raw["cause"])
	}
	wire := string(res.body) + headerText(res.header)
	for _, secret := range []string{"Tr0ub4dor", "orders_app", "postgres", "10.42.7.19", "5432", "SELECT", "SKU-LEAK-42", "55P03", "stock"} {
		if strings.Contains(wire, secret) {
			t.Errorf("response leaks %q:\n%s", secret, wire)
		}
	}
	recs := inst.logRecords(t, res.header.Get("X-Request-Id"))
	var logged string
	for _, rec := range recs {
		if e, ok := rec["error"].(string); ok {
			logged += e
		}
	}
	for _, kept := range []string{"10.42.7.19:5432", "55P03", "SELECT qty FROM stock", "SKU-LEAK-42"} {
		if !strings.Contains(logged, kept) {
			t.Errorf("log lacks %q, which the operator needs; logged error: %q", kept, logged)
		}
	}
	if strings.Contains(inst.stderr.String(), "Tr0ub4dor") {
		t.Errorf("the DSN password reached the log: %q", logged)
	}
}

func headerText(h http.Header) string {
	var b strings.Builder
	_ = h.Write(&b)
	return b.String()
}

var problemSchema = sync.OnceValues(func() (*openapi3.Schema, error) {
	raw, err := json.Marshal(map[string]any{
		"openapi":    "3.1.0",
		"info":       map[string]any{"title": "showcase", "version": "1"},
		"paths":      map[string]any{},
		"components": problemdocs.Components(),
	})
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	return doc.Components.Schemas["Problem"].Value, nil
})

// checkAgainstCatalog holds every problem the showcase sends to the
// generated OpenAPI schema, and follows its type URI to the catalog page
// the showcase serves for it.
func checkAgainstCatalog(t *testing.T, inst *instance, body []byte, p *problem.Problem) {
	t.Helper()
	schema, err := problemSchema()
	if err != nil {
		t.Fatalf("generated OpenAPI: %v", err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("body does not fit the generated schema: %v\n%s", err, body)
	}
	if !strings.HasPrefix(p.Type(), inst.base+"/problems/") {
		t.Errorf("type %q does not point at the showcase's catalog", p.Type())
		return
	}
	page := inst.do(t, http.MethodGet, strings.TrimPrefix(p.Type(), inst.base), "", "", "Accept", "text/html")
	if page.status != http.StatusOK || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(page.body), `<code id="code">`+string(p.Code())+`</code>`) {
		t.Errorf("type %s does not resolve to its page: %d %s", p.Type(), page.status, page.header.Get("Content-Type"))
	}
}

func TestCatalogIsServed(t *testing.T) {
	inst := start(t)
	res := inst.do(t, http.MethodGet, "/problems/", "", "", "Accept", "application/json")
	var idx struct {
		Codes []struct{ Code, Type string }
	}
	if err := json.Unmarshal(res.body, &idx); err != nil || res.status != 200 {
		t.Fatalf("index: %d %v %s", res.status, err, res.body)
	}
	if len(idx.Codes) != len(problem.DefaultRegistry().Definitions()) {
		t.Fatalf("index lists %d codes, the registry %d", len(idx.Codes), len(problem.DefaultRegistry().Definitions()))
	}
	for _, c := range idx.Codes {
		if c.Type != inst.base+"/problems/"+c.Code {
			t.Errorf("%s: type %q", c.Code, c.Type)
		}
		if page := inst.do(t, http.MethodGet, "/problems/"+c.Code, "", ""); page.status != 200 {
			t.Errorf("%s: %d", c.Code, page.status)
		}
	}
}

// TestInsecureDevFlag: with -insecure-dev the panic's text reaches the
// developer's response (through the log tier); without it, it never does
// (TestPanic).
func TestInsecureDevFlag(t *testing.T) {
	t.Setenv(problem.ProductionEnv, "")
	inst := start(t, "-insecure-dev")
	res := inst.do(t, http.MethodGet, "/v1/panic", "", "")
	_, raw := checkProblem(t, inst, res, want{500, "internal", "retry", true})
	chain, _ := raw["debug_errors"].([]any)
	if len(chain) == 0 || !strings.Contains(fmt.Sprint(chain), "pricing table") {
		t.Errorf("development mode did not show the error chain: %s", res.body)
	}
	if internal, _ := problem.DefaultRegistry().Lookup(problem.Internal); raw["detail"] != internal.DefaultDetail {
		t.Errorf("development mode changed the public detail: %v", raw["detail"])
	}
}
