package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/correlation"
)

func writeFor(t *testing.T, wr *Writer, r *http.Request, p *Problem) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	if err := wr.Write(rec, r, p); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if r.Method != http.MethodHead {
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("invalid JSON %q: %v", rec.Body, err)
		}
	}
	return rec, m
}

// TestDetailFieldCannotBypassShowDetail proves issue 10 item 2: the rule
// that internal never shows a detail holds at render time, even when the
// exported field is assigned directly or the problem is built by hand.
func TestDetailFieldCannotBypassShowDetail(t *testing.T) {
	const secret = "user alice not in ldap group admins"
	sink := &logSink{}
	wr := NewWriter(WithLogger(newLogger(sink)))
	assigned := New(Internal)
	assigned.detail = secret
	byHand := &Problem{code: "internal", status: 500, detail: secret}
	for name, p := range map[string]*Problem{"assigned": assigned, "by hand": byHand, "WithDetail": New(Internal).WithDetail(secret)} {
		r := httptest.NewRequest("GET", "/x", nil)
		for _, accept := range []string{"application/json", "application/xml", "text/plain"} {
			r.Header.Set("Accept", accept)
			rec := httptest.NewRecorder()
			_ = wr.Write(rec, r, p)
			if strings.Contains(rec.Body.String(), "alice") {
				t.Errorf("%s, %s: hidden detail rendered: %s", name, accept, rec.Body)
			}
		}
		for _, out := range []string{string(p.AppendJSON(nil)), string(p.appendXML(nil, false)), p.cliLine(), p.Error()} {
			if strings.Contains(out, "alice") && name != "by hand" {
				t.Errorf("%s: hidden detail rendered: %s", name, out)
			}
		}
	}
	if !strings.Contains(sink.buf.String(), `"hidden_detail":"user alice not in ldap group admins"`) {
		t.Errorf("hidden detail did not reach the log: %s", sink.buf.String())
	}
}

// TestErrorIsPublic proves issue 10 item 3: Error() passes the public tier.
func TestErrorIsPublic(t *testing.T) {
	p := New(Conflict).WithDetail("Order for alice failed: password=hunter2 from 10.1.2.3")
	got := p.Error()
	if strings.Contains(got, "hunter2") || strings.Contains(got, "10.1.2.3") || !strings.HasPrefix(got, "conflict: Order for alice failed") {
		t.Fatalf("Error() = %q", got)
	}
}

// TestExtensionSecretsRedacted proves issue 10 item 4: a struct or map
// extension keeps its keys' meaning; secrets under them are redacted in
// every representation, at any depth.
func TestExtensionSecretsRedacted(t *testing.T) {
	type account struct {
		ID       string `json:"id"`
		Password string `json:"password"`
		Nested   struct {
			APIKey string `json:"api_key"`
		} `json:"nested"`
	}
	var a account
	a.ID, a.Password, a.Nested.APIKey = "a1", "hunter2-S3cret", "k-0123456789abcdef"
	p := New(Conflict).WithExtension("account", a).
		WithExtension("headers", map[string]any{"Authorization": "Bearer abc.def.ghi", "session_token": 12345}).
		WithExtension("access_token", "tok-value-123")
	for name, out := range map[string]string{"json": string(p.AppendJSON(nil)), "xml": string(p.appendXML(nil, false))} {
		for _, secret := range []string{"hunter2", "0123456789abcdef", "abc.def.ghi", "12345", "tok-value-123"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s leaks %q: %s", name, secret, out)
			}
		}
		if !strings.Contains(out, "a1") {
			t.Errorf("%s lost a plain member: %s", name, out)
		}
	}
}

// TestUnregisteredCodeBecomesInternal proves issue 10 item 6.
func TestUnregisteredCodeBecomesInternal(t *testing.T) {
	sink := &logSink{}
	wr := NewWriter(WithLogger(newLogger(sink)))
	made := New("made_up").WithDetail("x")
	for range 2 {
		rec, m := writeFor(t, wr, httptest.NewRequest("GET", "/x", nil), made)
		if rec.Code != 500 || m["code"] != "internal" || m["action"] != "retry" || m["cause"] != "internal" {
			t.Fatalf("unregistered code rendered as %d %v", rec.Code, m)
		}
	}
	// Every record of such a problem names the misuse, at error level.
	if n := strings.Count(sink.buf.String(), `"build_error":"problem: code \"made_up\" is not registered`); n != 2 {
		t.Errorf("the developer error is in %d records, want 2: %s", n, sink.buf.String())
	}
	if !strings.Contains(sink.buf.String(), `"unregistered_code":"made_up"`) {
		t.Errorf("the problem's record does not name the code: %s", sink.buf.String())
	}
	// Action and cause outside the closed sets never reach a client.
	odd := New(Conflict)
	odd.action, odd.cause = "", "whatever"
	_, m := writeFor(t, wr, httptest.NewRequest("GET", "/x", nil), odd)
	if m["action"] != "fix_request" || m["cause"] != "request" {
		t.Errorf("open action/cause: %v", m)
	}
}

// TestRetrySignalsNeverContradict proves issue 10 item 13 (and 14 on the
// problem side): for every code of the default registry, every method,
// with and without an Idempotency-Key, every outcome and both
// retryabilities, no problem goes out with action retry and retryable
// false; an unknown outcome without a key is verify and not retryable;
// Retry-After is present exactly when retry_after_ms is, and agrees.
func TestRetrySignalsNeverContradict(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	outcomes := []Outcome{"", OutcomeNotStarted, OutcomeNotCommitted, OutcomeCommitted, OutcomeUnknown}
	for _, k := range DefaultRegistry().Definitions() {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			for _, key := range []string{"", "idem-1"} {
				for _, o := range outcomes {
					for _, retryable := range []bool{false, true} {
						p := New(k.Code).WithOutcome(o).WithRetryAfter(1500 * time.Millisecond)
						p.retryable = retryable
						for _, q := range []*Problem{p, p.ForRequest(httptest.NewRequest(method, "/x", nil))} {
							r := httptest.NewRequest(method, "/x", nil)
							if key != "" {
								r.Header.Set("Idempotency-Key", key)
							}
							rec, m := writeFor(t, wr, r, q)
							where := fmt.Sprintf("%s %s key=%q outcome=%q retryable=%v", k.Code, method, key, q.outcome, retryable)
							if m["action"] == "retry" && m["retryable"] != true {
								t.Fatalf("%s: action retry with retryable false: %s", where, rec.Body)
							}
							if m["outcome"] == "unknown" && key == "" && (m["action"] != "verify" || m["retryable"] != false) {
								t.Fatalf("%s: unknown outcome without a key: %s", where, rec.Body)
							}
							ms, hasMS := m["retry_after_ms"].(float64)
							header := rec.Header().Get("Retry-After")
							if hasMS != (header != "") || hasMS && m["retryable"] != true {
								t.Fatalf("%s: retry_after_ms %v, Retry-After %q, retryable %v", where, m["retry_after_ms"], header, m["retryable"])
							}
							if hasMS && header != strconv.FormatInt(int64((ms+999)/1000), 10) {
								t.Fatalf("%s: Retry-After %q disagrees with %v ms", where, header, ms)
							}
						}
					}
				}
			}
		}
	}
}

// TestVerifyDropsHandlersRetryAfter: a Retry-After an outer layer set is
// not sent with a problem that asks the client to verify.
func TestVerifyDropsHandlersRetryAfter(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	rec := httptest.NewRecorder()
	rec.Header().Set("Retry-After", "5")
	_ = wr.Write(rec, httptest.NewRequest("POST", "/x", nil), New(Timeout).WithOutcome(OutcomeUnknown))
	if rec.Header().Get("Retry-After") != "" {
		t.Fatalf("verify went out with Retry-After %q", rec.Header().Get("Retry-After"))
	}
	// A retryable problem without a time of its own takes the header's.
	rec = httptest.NewRecorder()
	rec.Header().Set("Retry-After", "5")
	_ = wr.Write(rec, httptest.NewRequest("GET", "/x", nil), New(Unavailable))
	if !strings.Contains(rec.Body.String(), `"retry_after_ms":5000`) || rec.Header().Get("Retry-After") != "5" {
		t.Fatalf("Retry-After 5 and %s", rec.Body)
	}
}

// TestObserverSeesEveryProblemOnce checks the hook OpenTelemetry uses:
// once per problem, written or logged as unwritable, with the final
// occurrence.
func TestObserverSeesEveryProblemOnce(t *testing.T) {
	var seen []*Problem
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)), WithObserver(func(r *http.Request, p *Problem) {
		seen = append(seen, p)
	}))
	r := httptest.NewRequest("POST", "/v1/orders", nil)
	r = r.WithContext(correlation.WithID(r.Context(), "req-observed-1"))
	_ = wr.Write(httptest.NewRecorder(), r, New(Timeout).WithOutcome(OutcomeUnknown))
	head := httptest.NewRequest("HEAD", "/v1/orders", nil)
	_ = wr.Write(httptest.NewRecorder(), head, wr.FromError(errors.New("boom")))
	_ = wr.Write(&startedWriter{ResponseWriter: httptest.NewRecorder(), started: true}, r, New(Conflict))
	// The third could not be written (the response had started): it is
	// observed all the same, so a trace shows the failure.
	if len(seen) != 3 {
		t.Fatalf("observed %d problems, want 3, each once", len(seen))
	}
	if p := seen[2]; p.code != "conflict" || p.correlationID != "req-observed-1" {
		t.Errorf("observed %+v", p)
	}
	if p := seen[0]; p.code != "timeout" || p.status != 503 || p.action != ActionVerify || p.retryable ||
		p.outcome != OutcomeUnknown || p.correlationID != "req-observed-1" || p.cause != CauseInternal {
		t.Errorf("observed %+v", p)
	}
	if p := seen[1]; p.code != "internal" || p.Unwrap() == nil {
		t.Errorf("observed %+v", p)
	}
}

// TestDevelopmentMode checks issue 13 item 6: the hidden detail and the
// error chain are added through the log tier, and a production marker
// refuses the mode.
func TestDevelopmentMode(t *testing.T) {
	err := fmt.Errorf("load order 42: %w", errors.New("dial tcp 10.0.0.7:5432: password=hunter2 refused"))
	p := New(Internal).WithDetail("ldap lookup of alice failed").Wrap(err)
	t.Setenv(ProductionEnv, "")
	dev := NewWriter(WithLogger(slog.New(slog.DiscardHandler)), WithInsecureDevelopmentMode())
	if !dev.dev {
		t.Fatal("development mode did not turn on")
	}
	_, m := writeFor(t, dev, httptest.NewRequest("GET", "/x", nil), p)
	chain, _ := m["debug_errors"].([]any)
	if m["debug_detail"] != "ldap lookup of alice failed" || len(chain) != 2 ||
		!strings.Contains(fmt.Sprint(chain[1]), "10.0.0.7") || strings.Contains(fmt.Sprint(chain), "hunter2") {
		t.Fatalf("development members: %v", m)
	}
	if m["detail"] != def(Internal).DefaultDetail {
		t.Errorf("development mode changed the public detail: %v", m["detail"])
	}

	t.Setenv(ProductionEnv, "Production")
	sink := &logSink{}
	prod := NewWriter(WithLogger(newLogger(sink)), WithInsecureDevelopmentMode())
	if prod.dev {
		t.Fatal("development mode turned on in production")
	}
	_, m = writeFor(t, prod, httptest.NewRequest("GET", "/x", nil), p)
	if _, ok := m["debug_errors"]; ok {
		t.Fatalf("production problem carries the chain: %v", m)
	}
	if !strings.Contains(sink.buf.String(), "WithInsecureDevelopmentMode refused") {
		t.Errorf("refusal not logged: %s", sink.buf.String())
	}
}

// TestLegacyWindowSendsNoDeprecationByDefault proves issue 10 item 12:
// Deprecation and Sunset describe the resource, so the legacy window does
// not send them unless the operator opts in.
func TestLegacyWindowSendsNoDeprecationByDefault(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)),
		WithLegacy(Legacy{Until: time.Now().Add(24 * time.Hour)}))
	rec, m := writeFor(t, wr, httptest.NewRequest("GET", "/v1/orders", nil), New(NotFound))
	if m["error"] != "not_found" || rec.Header().Get("Deprecation") != "" || rec.Header().Get("Sunset") != "" {
		t.Fatalf("headers %v body %v", rec.Header(), m)
	}
}

// TestHandlerHeadersMeetTheProblem: what a handler or an outer layer left
// on the header map before a problem is written, read in one pass (one
// lookup when the map holds the correlation header alone), decides
// what goes out: Vary gains Accept once, a stale correlation ID is
// replaced, Retry-After stays only where the problem may be retried, and
// representation headers go; also when the correlation header is a name
// the problem itself writes.
func TestHandlerHeadersMeetTheProblem(t *testing.T) {
	const id = "req-headers-0001"
	for _, c := range []struct {
		name string
		opts []Option
		pre  http.Header
		p    *Problem
		want http.Header
	}{
		{"vary other token", nil, http.Header{"Vary": {"Origin"}}, New(NotFound),
			http.Header{"Vary": {"Origin", "Accept"}}},
		{"vary has accept", nil, http.Header{"Vary": {"Accept-Encoding, Accept"}}, New(NotFound),
			http.Header{"Vary": {"Accept-Encoding, Accept"}}},
		{"stale id replaced", nil, http.Header{"X-Request-Id": {"req-stale-00001"}}, New(NotFound),
			http.Header{"X-Request-Id": {id}}},
		{"empty id value", nil, http.Header{"X-Request-Id": {}}, New(NotFound),
			http.Header{"X-Request-Id": {id}}},
		// The map holds the correlation header alone, as under Stack: read
		// with one lookup, not the pass.
		{"id in place kept", nil, http.Header{"X-Request-Id": {id}}, New(NotFound),
			http.Header{"X-Request-Id": {id}, "Vary": {"Accept"}}},
		{"correlation header is a representation header", []Option{WithCorrelationHeader("Etag")},
			http.Header{"Etag": {"req-stale-00001"}}, New(NotFound), http.Header{"Etag": {id}}},
		{"correlation header is retry-after", []Option{WithCorrelationHeader("Retry-After")},
			http.Header{"Retry-After": {"7"}}, New(Unavailable), http.Header{"Retry-After": {id}}},
		{"retry-after without value dropped", nil, http.Header{"Retry-After": nil}, New(Unavailable),
			http.Header{"Retry-After": nil}},
		{"retry-after kept for retry", nil, http.Header{"Retry-After": {"7"}}, New(Unavailable),
			http.Header{"Retry-After": {"7"}}},
		{"representation dropped", nil, http.Header{"Etag": {`"a"`}, "Content-Length": {"9"}, "Allow": {"GET"}}, New(NotFound),
			http.Header{"Etag": nil, "Content-Length": nil, "Allow": {"GET"}}},
		{"correlation header is the code header", []Option{WithCodeHeader("X-Trace"), WithCorrelationHeader("X-Trace")},
			http.Header{"X-Trace": {id}}, New(NotFound), http.Header{"X-Trace": {id}}},
		{"correlation header is vary", []Option{WithCorrelationHeader("Vary")},
			http.Header{"Vary": {id}}, New(NotFound), http.Header{"Vary": {id, "Accept"}}},
		{"vary star", nil, http.Header{"Vary": {"*"}}, New(NotFound), http.Header{"Vary": {"*"}}},
		{"vary accept other case", nil, http.Header{"Vary": {"origin", " accept "}}, New(NotFound),
			http.Header{"Vary": {"origin", " accept "}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wr := NewWriter(append([]Option{WithLogger(slog.New(slog.DiscardHandler))}, c.opts...)...)
			rec := httptest.NewRecorder()
			for k, v := range c.pre {
				rec.Header()[k] = v
			}
			r := httptest.NewRequest("GET", "/x", nil)
			r = r.WithContext(correlation.WithID(r.Context(), id))
			_ = wr.Write(rec, r, c.p)
			for k, v := range c.want {
				got, ok := rec.Result().Header[k]
				if v == nil {
					if ok {
						t.Errorf("%s = %q, want absent", k, got)
					}
					continue
				}
				if !slices.Equal(got, v) {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}
