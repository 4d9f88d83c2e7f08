package ratelimit_test

import (
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"log"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	_, _ = io.WriteString(w, "ok")
})

// serve starts a real HTTP server; ErrorLog catches superfluous WriteHeader
// calls, which would mean a request got more than one response.
func serve(t *testing.T, h http.Handler) (*httptest.Server, *testlog.Buffer) {
	t.Helper()
	var errLog testlog.Buffer
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(&errLog, "", 0)
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		if s := errLog.String(); s != "" {
			t.Errorf("server error log not empty:\n%s", s)
		}
	})
	return srv, &errLog
}

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// sleepUntilPhase waits until the given fraction of the current fixed
// window has passed. The real retry time under httprate's sliding window is
// (window - elapsed) + window*(1 - (limit-0.5)/count) when the current
// window alone is full: longer than the window if the burst came early in
// it. Tests that assert retry_after_ms < window start their burst midway.
func sleepUntilPhase(window time.Duration, phase float64) {
	now := time.Now()
	target := now.Truncate(window).Add(time.Duration(phase * float64(window)))
	if now.After(target) {
		target = target.Add(window)
	}
	time.Sleep(time.Until(target))
}

func elapsedInWindow(window time.Duration) time.Duration {
	now := time.Now()
	return now.Sub(now.Truncate(window))
}

func TestRefusalIsARateLimitedProblem(t *testing.T) {
	const limit = 3
	window := 2 * time.Second
	sleepUntilPhase(window, 0.5)
	var logs testlog.Buffer
	mw := withWriter(testlog.Writer(&logs), ratelimit.LimitBy(limit, window, httprate.Key("all"), ratelimit.WithDraftHeaders()))
	srv, _ := serve(t, mw(okHandler))

	for i := range limit {
		resp, _ := get(t, srv.URL, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d, want 200", i, resp.StatusCode)
		}
		if got, want := resp.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(limit-1-i); got != want {
			t.Errorf("request %d: X-RateLimit-Remaining %q, want %q", i, got, want)
		}
	}
	resp, body := get(t, srv.URL, nil)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429; body %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	p, err := problem.Parse(body)
	if err != nil {
		t.Fatalf("parse %s: %v", body, err)
	}
	if p.Code() != "rate_limited" || p.Status() != 429 || p.Action() != problem.ActionRetry || !p.Retryable() {
		t.Errorf("members: code %q status %d action %q retryable %v", p.Code(), p.Status(), p.Action(), p.Retryable())
	}
	if want := "The limit of 3 requests per 2 seconds was reached."; p.Detail() != want {
		t.Errorf("detail %q, want %q", p.Detail(), want)
	}
	ms := p.RetryAfter().Milliseconds()
	if ms <= 0 || ms >= window.Milliseconds() {
		t.Errorf("retry_after_ms %d, want in (0, %d)", ms, window.Milliseconds())
	}
	if got, want := resp.Header.Get("Retry-After"), strconv.FormatInt(int64(math.Ceil(float64(ms)/1000)), 10); got != want {
		t.Errorf("Retry-After %q, want %q (ceil of %dms)", got, want, ms)
	}
	if got := resp.Header.Get("X-RateLimit-Limit"); got != "3" {
		t.Errorf("X-RateLimit-Limit %q", got)
	}
	if got := resp.Header.Get("X-RateLimit-Remaining"); got != "0" {
		t.Errorf("X-RateLimit-Remaining %q", got)
	}
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if wantReset := time.Now().Truncate(window).Add(window).Unix(); err != nil || reset < wantReset-1 || reset > wantReset+1 {
		t.Errorf("X-RateLimit-Reset %q, want about %d", resp.Header.Get("X-RateLimit-Reset"), wantReset)
	}
	if got, want := resp.Header.Get("RateLimit-Policy"), `"3-per-2s";q=3;w=2`; got != want {
		t.Errorf("RateLimit-Policy %q, want %q", got, want)
	}
	if got, want := resp.Header.Get("RateLimit"), `"3-per-2s";r=0;t=`+resp.Header.Get("Retry-After"); got != want {
		t.Errorf("RateLimit %q, want %q", got, want)
	}
	if !strings.Contains(logs.String(), "code=rate_limited") || !strings.Contains(logs.String(), "ratelimit_policy=3-per-2s") {
		t.Errorf("log record missing: %s", logs.String())
	}
}

func TestDraftHeadersAreOptIn(t *testing.T) {
	srv, _ := serve(t, ratelimit.LimitBy(5, time.Minute, httprate.Key("k"))(okHandler))
	resp, _ := get(t, srv.URL, nil)
	if resp.Header.Get("RateLimit") != "" || resp.Header.Get("RateLimit-Policy") != "" {
		t.Errorf("draft headers without the option: %v", resp.Header)
	}
	if resp.Header.Get("X-RateLimit-Limit") != "5" || resp.Header.Get("X-RateLimit-Remaining") != "4" {
		t.Errorf("X-RateLimit headers: %v", resp.Header)
	}
}

// TestRetryAfterIsWhenTheWindowAdmits checks the advertised retry time
// against reality: a request sent just before it is refused, one sent just
// after it is admitted.
func TestRetryAfterIsWhenTheWindowAdmits(t *testing.T) {
	const limit = 4
	window := time.Second
	// Start right after a window boundary so the first burst and the refusal
	// both fall into one window and the retry lands in the next.
	time.Sleep(time.Until(time.Now().Truncate(window).Add(window + 20*time.Millisecond)))
	srv, _ := serve(t, withWriter(testlog.Writer(io.Discard), ratelimit.LimitBy(limit, window, httprate.Key("k")))(okHandler))
	for range limit {
		if resp, _ := get(t, srv.URL, nil); resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	// The server computed the retry time between these two instants; a
	// loaded machine can make them far apart.
	sentAt := time.Now()
	resp, body := get(t, srv.URL, nil)
	refusedAt := time.Now()
	if resp.StatusCode != 429 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	p, _ := problem.Parse(body)
	// Started just after a boundary, the real wait is longer than the rest
	// of the window: 4 requests early in one window still weigh
	// 4*(1-1/8) = 3.5 one eighth into the next, which rounds to a refusal.
	wait := p.RetryAfter()
	if wait <= 0 || wait >= 2*window {
		t.Fatalf("retry after %v", wait)
	}
	if wait < window-elapsedInWindow(window) {
		t.Errorf("retry after %v, before the current window even ends", wait)
	}
	earliest := sentAt.Add(wait) // the advertised instant, at the earliest
	time.Sleep(time.Until(earliest.Add(-60 * time.Millisecond)))
	resp, _ = get(t, srv.URL, nil)
	if time.Now().After(earliest) {
		// The server may have seen this request after the retry time: on
		// a machine this loaded the test cannot tell early from on time.
		t.Skipf("a request took more than 60ms (%v late); nothing to conclude", time.Since(earliest))
	}
	if resp.StatusCode != 429 {
		t.Errorf("60ms before the advertised retry time: status %d, want 429", resp.StatusCode)
	}
	time.Sleep(time.Until(refusedAt.Add(wait + 60*time.Millisecond)))
	if resp, _ := get(t, srv.URL, nil); resp.StatusCode != 200 {
		t.Errorf("60ms after the advertised retry time: status %d, want 200", resp.StatusCode)
	}
}

func TestSeveralPolicies(t *testing.T) {
	l, err := ratelimit.New([]ratelimit.Policy{
		{Name: "burst", Limit: 2, Window: time.Second, Key: httprate.Key("k")},
		{Name: "sustained", Limit: 100, Window: time.Hour, Key: httprate.Key("k")},
	}, ratelimit.WithDraftHeaders())
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := serve(t, withWriter(testlog.Writer(io.Discard), l.Handler)(okHandler))
	resp, _ := get(t, srv.URL, nil)
	if got := resp.Header.Get("X-RateLimit-Limit"); got != "2" {
		t.Errorf("X-RateLimit-Limit %q: want the tightest policy", got)
	}
	if got, want := resp.Header.Get("RateLimit-Policy"), `"burst";q=2;w=1, "sustained";q=100;w=3600`; got != want {
		t.Errorf("RateLimit-Policy %q, want %q", got, want)
	}
	get(t, srv.URL, nil)
	resp, body := get(t, srv.URL, nil)
	if resp.StatusCode != 429 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	p, _ := problem.Parse(body)
	if p.Detail() != "The limit of 2 requests per second was reached." || p.RetryAfter() <= 0 || p.RetryAfter() >= 2*time.Second {
		t.Errorf("detail %q retry %v", p.Detail(), p.RetryAfter())
	}
	if !strings.HasPrefix(resp.Header.Get("RateLimit"), `"burst";r=0;t=`) {
		t.Errorf("RateLimit %q", resp.Header.Get("RateLimit"))
	}
}

func TestInvalidPolicies(t *testing.T) {
	key := httprate.Key("k")
	for name, ps := range map[string][]ratelimit.Policy{
		"none":       nil,
		"zero limit": {{Limit: 0, Window: time.Second, Key: key}},
		"no window":  {{Limit: 1, Key: key}},
		"no key":     {{Limit: 1, Window: time.Second}},
		"bad name":   {{Name: `a"b`, Limit: 1, Window: time.Second, Key: key}},
		"twice":      {{Limit: 1, Window: time.Second, Key: key}, {Limit: 1, Window: time.Second, Key: key}},
	} {
		if _, err := ratelimit.New(ps); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	ok := []ratelimit.Policy{{Limit: 1, Window: time.Second, Key: key}}
	for name, opt := range map[string]ratelimit.Option{
		"key cap below the shard count": ratelimit.WithMaxKeys(10),
		"no Redis timeout":              ratelimit.WithRedisTimeout(0),
		"no probe interval":             ratelimit.WithProbeInterval(-time.Second),
	} {
		if _, err := ratelimit.New(ok, opt); err == nil || !strings.HasPrefix(err.Error(), "ratelimit: ") {
			t.Errorf("%s: New returned %v", name, err)
		}
	}
}

func TestEmptyKeyFailsLoudly(t *testing.T) {
	var logs testlog.Buffer
	wr := testlog.Writer(&logs)
	r := chi.NewRouter()
	empty := func(*http.Request) (string, error) { return "", nil }
	r.With(withWriter(wr, ratelimit.LimitBy(10, time.Minute, empty))).Get("/empty", okHandler)
	r.With(withWriter(wr, ratelimit.LimitBy(10, time.Minute, ratelimit.Join(httprate.Key("x"), empty)))).Get("/joined", okHandler)
	r.With(withWriter(wr, ratelimit.LimitBy(10, time.Minute, ratelimit.ByHeader("x-api-key")))).Get("/apikey", okHandler)
	srv, _ := serve(t, r)

	for _, path := range []string{"/empty", "/joined"} {
		resp, body := get(t, srv.URL+path, nil)
		p, err := problem.Parse(body)
		// A configuration bug: retrying cannot help, so the client is not
		// told to.
		if resp.StatusCode != 500 || err != nil || p.Code() != "internal" || p.Retryable() || p.Action() != problem.ActionNone || p.Cause() != problem.CauseConfig {
			t.Errorf("%s: status %d body %s", path, resp.StatusCode, body)
		}
		if strings.Contains(string(body), "ratelimit") {
			t.Errorf("%s: internal reason leaked: %s", path, body)
		}
	}
	for _, want := range []string{"empty rate-limit key", "Join returned an empty key"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}

	resp, body := get(t, srv.URL+"/apikey", nil)
	p, _ := problem.Parse(body)
	if resp.StatusCode != 400 || p.Code() != "bad_request" || p.Detail() != "The request must carry the X-Api-Key header." {
		t.Errorf("missing API key: status %d body %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, srv.URL+"/apikey", map[string]string{"X-Api-Key": "k1"}); resp.StatusCode != 200 {
		t.Errorf("with API key: status %d", resp.StatusCode)
	}
}

func TestLimitByPanicsOnInvalidPolicy(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	ratelimit.LimitBy(0, time.Second, ratelimit.ByIP)
}

// Without WithWriter the limiter writes through the Writer the request's
// context carries (middleware.Stack's), so a service configures it once.
func TestWriterFromRequestContext(t *testing.T) {
	var logs testlog.Buffer
	wr := problem.NewWriter(problem.WithBaseURI("urn:acme:"), problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	mw := ratelimit.LimitBy(1, time.Hour, httprate.Key("all"))
	withWriter := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(problemhook.NewContext(r.Context(), wr)))
		})
	}
	srv, _ := serve(t, withWriter(mw(okHandler)))
	get(t, srv.URL, nil)
	resp, body := get(t, srv.URL, nil)
	p, err := problem.Parse(body)
	if err != nil || resp.StatusCode != 429 || p.Type() != "urn:acme:rate_limited" || !strings.Contains(logs.String(), `"code":"rate_limited"`) {
		t.Fatalf("%d %s (%v); log %s", resp.StatusCode, body, err, logs.String())
	}
}

// withWriter puts wr in the request's context in front of mw, as
// middleware.Stack(middleware.WithWriter(wr)) does, so that the limiter
// writes and logs through it.
func withWriter(wr *problem.Writer, mw func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		h := mw(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(problemhook.NewContext(r.Context(), wr)))
		})
	}
}

// With no writer in the request's context (no middleware.Stack in front)
// the limiter answers and logs through problem.Default(), as it is at the
// time of the response: the process's one configuration, never a writer of
// its own.
func TestWriterDefaultWithoutStack(t *testing.T) {
	for _, base := range []string{"urn:first:", "https://errors.example.com/v2/"} {
		var logs testlog.Buffer
		old := problem.Default()
		problem.SetDefault(problem.NewWriter(problem.WithBaseURI(base), problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil)))))
		srv, _ := serve(t, ratelimit.LimitBy(1, time.Hour, httprate.Key("all"))(okHandler))
		get(t, srv.URL, nil)
		resp, body := get(t, srv.URL, nil)
		problem.SetDefault(old)
		p, err := problem.Parse(body)
		if err != nil || resp.StatusCode != 429 || p.Type() != base+"rate_limited" || !strings.Contains(logs.String(), `"code":"rate_limited"`) {
			t.Errorf("%s: %d %s (%v); log %s", base, resp.StatusCode, body, err, logs.String())
		}
	}
}
