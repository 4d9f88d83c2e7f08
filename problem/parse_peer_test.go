package problem

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestParseRetryAfterEveryJSONNumber proves issue 23 item 8 for numbers:
// retry_after_ms is read in every spelling JSON allows, and one too large
// for a Duration saturates instead of vanishing.
func TestParseRetryAfterEveryJSONNumber(t *testing.T) {
	const most = time.Duration(math.MaxInt64)
	for raw, want := range map[string]time.Duration{
		"1000":                  time.Second,
		"1000.0":                time.Second, // Python's json.dumps of a float
		"1e3":                   time.Second,
		"1E+3":                  time.Second,
		"1.5e3":                 1500 * time.Millisecond,
		"2400.000":              2400 * time.Millisecond,
		"0.5":                   500 * time.Microsecond,
		"250e-3":                250 * time.Microsecond,
		"9223372036854":         9223372036854 * time.Millisecond, // the largest whole millisecond count
		"9223372036855":         most,
		"9.3e12":                most,
		"100000000000000000000": most,
		"1e309":                 most, // beyond float64: +Inf
		"0":                     0,
		"-0":                    0,
		"-0.0":                  0,
		"-5":                    0,
		"-1e309":                0,
		"1e-400":                0, // underflows to zero
	} {
		p, err := Parse([]byte(`{"status":429,"retryable":true,"retry_after_ms":` + raw + `}`))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if p.retryAfter != want {
			t.Errorf("retry_after_ms %s read as %v, want %v", raw, p.retryAfter, want)
		}
		out := p.AppendJSON(nil)
		var back map[string]any
		if err := json.Unmarshal(out, &back); err != nil {
			t.Errorf("%s: re-rendered invalid JSON %s", raw, out)
		}
	}
	// A status is a number too: 404.0 and 4.04e2 are 404; 404.5 is no status.
	for raw, want := range map[string]int{"404": 404, "404.0": 404, "4.04e2": 404, "4.04E+2": 404, "404.5": 0, "1e400": 0} {
		p, err := Parse([]byte(`{"title":"t","status":` + raw + `}`))
		if err != nil || p.status != want {
			t.Errorf("status %s: %v, %v; want %d", raw, p, err, want)
		}
	}
}

// TestParseIgnoresPerMemberNeverPerDocument proves issue 23 item 8 for
// documents: a member of the wrong type is ignored and the message of a
// peer's document is kept as its detail, so the document is not lost.
func TestParseIgnoresPerMemberNeverPerDocument(t *testing.T) {
	for body, want := range map[string]string{
		`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`: "Bad credentials",
		`{"message":"Bad credentials","status":"401"}`:                                                    "Bad credentials",
		`{"status":404,"error":"Not Found","message":"No message available","path":"/x"}`:                 "No message available",
		`{"detail":7,"message":"rate limit exceeded"}`:                                                    "rate limit exceeded",
		`{"title":"Quota","message":"Quota"}`:                                                             "",
		`{"title":"Quota","detail":"kept","message":"other"}`:                                             "kept",
	} {
		p, err := Parse([]byte(body))
		if err != nil {
			t.Errorf("Parse(%s): %v", body, err)
			continue
		}
		if p.detail != want {
			t.Errorf("Parse(%s).Detail = %q, want %q", body, p.detail, want)
		}
		if p.status != 0 && strings.Contains(body, `"status":"`) {
			t.Errorf("Parse(%s): a string status was read as %d", body, p.status)
		}
	}
	// Nothing left to read is still no problem.
	for _, body := range []string{`{"status":"401"}`, `{"message":7}`, `{"message":""}`, `{"status":null,"title":false}`} {
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("Parse(%s) accepted a document with nothing to read", body)
		}
	}
	// A peer's message is peer text: it passes the public tier when
	// rendered again, like a peer's detail.
	p, err := Parse([]byte(`{"message":"token ghp_0123456789abcdefghijABCDEFGHIJ012345 rejected\u202e","status":"401"}`))
	if err != nil {
		t.Fatal(err)
	}
	if out := string(p.AppendJSON(nil)); strings.Contains(out, "ghp_0123") || strings.Contains(out, "\u202e") {
		t.Errorf("a peer's message rendered unsanitized: %s", out)
	}
}

// TestParseKeepsUnknownGuidance proves issue 23 item 8 for action and
// outcome: a value outside the closed set is kept, so a client can tell it
// from an absent member, and never rendered again.
func TestParseKeepsUnknownGuidance(t *testing.T) {
	for _, tc := range []struct {
		body    string
		action  Action
		outcome Outcome
	}{
		{`{"status":503,"action":"retry_later","retryable":true}`, "retry_later", ""},
		{`{"status":503,"action":"Retry"}`, "Retry", ""},
		{`{"status":500,"outcome":"partially_committed"}`, "", "partially_committed"},
		{`{"status":503,"action":"verify","outcome":"unknown"}`, ActionVerify, OutcomeUnknown},
		{`{"status":503,"action":"","outcome":""}`, "", ""},
		{`{"status":503,"action":7,"outcome":true}`, "", ""},
	} {
		p, err := Parse([]byte(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		if p.action != tc.action || p.outcome != tc.outcome {
			t.Errorf("%s: action %q outcome %q, want %q %q", tc.body, p.action, p.outcome, tc.action, tc.outcome)
		}
		out := string(p.AppendJSON(nil))
		for _, unknown := range []string{"retry_later", `"Retry"`, "partially_committed"} {
			if strings.Contains(out, unknown) {
				t.Errorf("%s rendered again with %s: %s", tc.body, unknown, out)
			}
		}
	}
}
