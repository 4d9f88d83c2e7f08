package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// probeRun runs the command in process, as main would, with -format json.
func probeRun(t *testing.T, base string, args ...string) (int, *report, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	full := append([]string{"probe", "-format", "json"}, args...)
	code := run(context.Background(), append(full, base), &stdout, &stderr)
	var rep report
	if code == exitPass || code == exitFail {
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("report is not JSON: %v\n%s", err, stdout.String())
		}
	}
	return code, &rep, stderr.String()
}

// verdicts is each check's verdict and the judgements that failed in it,
// e.g. "fail: cache-control media-type", for exact comparison.
func verdicts(rep *report) map[string]string {
	out := map[string]string{}
	for _, c := range rep.Checks {
		var names []string
		for _, r := range c.Requests {
			for _, f := range r.Failures {
				if !slices.Contains(names, f.Judgement) {
					names = append(names, f.Judgement)
				}
			}
		}
		sort.Strings(names)
		out[c.Check] = strings.TrimSpace(c.Verdict + ": " + strings.Join(names, " "))
		if len(names) == 0 {
			out[c.Check] = c.Verdict
		}
	}
	return out
}

func dump(rep *report) string {
	var b strings.Builder
	for _, c := range rep.Checks {
		for _, r := range c.Requests {
			for _, f := range r.Failures {
				fmt.Fprintf(&b, "  %s %s %s [%s] %d: %s: %s\n", c.Check, r.Method, r.Target, r.ID, r.Status, f.Judgement, f.Why)
			}
		}
		if c.Verdict == verdictSkip {
			fmt.Fprintf(&b, "  %s skipped: %s\n", c.Check, c.Why)
		}
	}
	return b.String()
}

func assertVerdicts(t *testing.T, rep *report, want map[string]string) {
	t.Helper()
	got := verdicts(rep)
	for _, name := range checkNames() {
		if got[name] != want[name] {
			t.Errorf("%s: got %q, want %q", name, got[name], want[name])
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", dump(rep))
	}
}

func allPass() map[string]string {
	want := map[string]string{}
	for _, name := range checkNames() {
		want[name] = verdictPass
	}
	return want
}

func TestKitChiAppPassesEveryCheck(t *testing.T) {
	base := kitChiApp(t)
	args := append(slices.Clone(appArgs), "-route", "/v1/limited", "-burst", "4", "-burst-route", "/v1/limited", "-slow", "200ms")
	for _, contract := range []string{"rfc9457", "faultline"} {
		code, rep, stderr := probeRun(t, base, append(args, "-contract", contract)...)
		if code != exitPass {
			t.Errorf("-contract %s: exit %d, stderr %s\n%s", contract, code, stderr, dump(rep))
		}
		assertVerdicts(t, rep, allPass())
	}
}

// The kit echoes the correlation ID under the header WithCorrelationHeader
// names, and accepts it there: the probe sends and judges its IDs under
// -correlation-header. It only knew X-Request-Id, so such a correct
// server failed correlation on every answer of -contract faultline, and
// its logs held none of the report's IDs.
func TestCorrelationHeaderFollowsTheKit(t *testing.T) {
	for _, name := range []string{"X-Correlation-Id", "x-trace-ref"} {
		base := kitChiApp(t, problem.WithCorrelationHeader(name))
		args := append(slices.Clone(appArgs), "-contract", "faultline", "-correlation-header", name)
		code, rep, stderr := probeRun(t, base, args...)
		if code != exitPass {
			t.Errorf("%s: exit %d, stderr %s\n%s", name, code, stderr, dump(rep))
		}
		want := allPass()
		want["slow-body"], want["burst"] = verdictSkip, verdictSkip
		assertVerdicts(t, rep, want)
	}
	// A server that echoes the ID under another header than the one named
	// still fails.
	base := kitChiApp(t, problem.WithCorrelationHeader("X-Correlation-Id"))
	code, rep, _ := probeRun(t, base, "-rate", "500", "-checks", "unknown-route", "-contract", "faultline")
	if whys := failuresOf(rep, jCorrelation); code != exitFail || len(whys) == 0 {
		t.Errorf("default header: exit %d, correlation failures %q", code, whys)
	}
	for _, bad := range []string{"", "X Request", "X-Id\r\nX-Evil: 1", "Host", "Content-Length"} {
		if code, _, _ := probeRun(t, base, "-correlation-header", bad); code != exitUsage {
			t.Errorf("-correlation-header %q: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// bareWant is what every bare app gets wrong: its errors are text/plain
// (or empty) and cacheable.
func bareWant(overrides map[string]string) map[string]string {
	want := map[string]string{"slow-body": verdictSkip, "burst": verdictSkip, "head": verdictPass}
	for _, name := range checkNames() {
		if _, ok := want[name]; !ok {
			want[name] = "fail: cache-control media-type"
		}
	}
	// No body limit: one byte over -max-body is decoded and refused for a
	// missing member; and no Content-Type check.
	want["body-too-large"] = "fail: cache-control media-type status"
	want["wrong-content-type"] = "fail: cache-control media-type status"
	for k, v := range overrides {
		want[k] = v
	}
	return want
}

// failureWhy finds the why of a check's judgement on a request by method.
func failureWhy(rep *report, check, method, judgement string) []string {
	var out []string
	for _, c := range rep.Checks {
		for _, r := range c.Requests {
			for _, f := range r.Failures {
				if c.Check == check && r.Method == method && f.Judgement == judgement {
					out = append(out, f.Why)
				}
			}
		}
	}
	return out
}

func TestBareChiVerdicts(t *testing.T) {
	code, rep, _ := probeRun(t, bareChiApp(t), appArgs...)
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	// chi answers 405 with an empty body and Allow: GET, and HEAD on a GET
	// route with that 405 too.
	assertVerdicts(t, rep, bareWant(map[string]string{
		"method-not-allowed": "fail: allow cache-control media-type",
		"head":               "fail: allow cache-control head media-type",
	}))
	if why := failureWhy(rep, "head", "HEAD", jHead); !slices.Contains(why, "HEAD answered 405 where GET answered 200") {
		t.Errorf("head: %q", why)
	}
	if why := failureWhy(rep, "wrong-content-type", "POST", jStatus); !slices.Equal(why, []string{"400, want 415 for this input"}) {
		t.Errorf("wrong-content-type: %q", why)
	}
	if why := failureWhy(rep, "body-too-large", "POST", jStatus); !slices.Equal(why, []string{"422, want 413 for this input", "422, want 413 for this input"}) {
		t.Errorf("body-too-large: %q", why)
	}
}

func TestBareServeMuxVerdicts(t *testing.T) {
	code, rep, _ := probeRun(t, bareMuxApp(t), appArgs...)
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	// ServeMux answers HEAD like GET and lists HEAD in Allow; the rest is
	// text/plain.
	assertVerdicts(t, rep, bareWant(nil))
	if why := failureWhy(rep, "unknown-route", "GET", jMediaType); !slices.Equal(why, []string{`Content-Type "text/plain; charset=utf-8" is not application/problem+json`}) {
		t.Errorf("unknown-route: %q", why)
	}
}
