package problem_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

// Whatever path set a problem's fields (a peer's document read by Parse,
// a builder given values outside the closed sets), no rendering pairs action retry with retryable
// false, shows a retry time on a problem that is not retryable, sends an
// action, cause or outcome outside the closed sets, or reads a missing
// status as 0.
func TestRenderingsNeverContradictRetrySignals(t *testing.T) {
	assigned := problem.New(problem.BadRequest).WithAction("reboot").WithCause("gremlins").WithOutcome("maybe")
	retryFalse := problem.New(problem.Unavailable).WithRetryAfter(3 * time.Second).WithRetryable(false)
	var problems = map[string]*problem.Problem{"built": assigned, "retry without retryable": retryFalse}
	for _, doc := range []string{
		`{"title":"Busy","status":503,"action":"retry","retryable":false,"retry_after_ms":5000}`,
		`{"title":"Busy","status":503,"action":"retry","retry_after_ms":5000}`,
		`{"title":"No status","detail":"RFC 9457 makes status optional"}`,
		`{"title":"Odd status","status":"503","action":"retry"}`,
	} {
		p, err := problem.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		problems[doc] = p
	}
	for name, p := range problems {
		var m map[string]any
		if err := json.Unmarshal(p.AppendJSON(nil), &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m["action"] == "retry" && m["retryable"] != true {
			t.Errorf("%s: JSON says retry and retryable %v", name, m["retryable"])
		}
		if _, ok := m["retry_after_ms"]; ok && m["retryable"] != true {
			t.Errorf("%s: JSON retry time on a problem that is not retryable", name)
		}
		for member, allowed := range map[string]string{
			"action":  " retry verify fix_request reauthenticate configure approve unlock none ",
			"cause":   " request auth policy config internal upstream environment ",
			"outcome": " not_started not_committed committed unknown ",
		} {
			if v, ok := m[member]; ok && !strings.Contains(allowed, " "+v.(string)+" ") {
				t.Errorf("%s: JSON %s %q outside the closed set", name, member, v)
			}
		}
		if s, ok := m["status"]; ok && s.(float64) < 100 {
			t.Errorf("%s: JSON status %v", name, s)
		}
		for surface, out := range map[string]string{
			"xml":  string(problem.AppendXML(p, nil)),
			"text": string(problem.AppendText(p, nil, "Gateway")),
		} {
			for _, bad := range []string{"reboot", "gremlins", "maybe", "<status>0<", "status: 0\n", `"status":0`} {
				if strings.Contains(out, bad) {
					t.Errorf("%s: %s carries %q: %s", name, surface, bad, out)
				}
			}
			if !m["retryable"].(bool) && (strings.Contains(out, "retry_after_ms") || strings.Contains(out, ">retry<") || strings.Contains(out, "action: retry\n")) {
				t.Errorf("%s: %s contradicts retryable false: %s", name, surface, out)
			}
		}
	}
}

// 404.0 and 4.04e2 are the JSON number 404.
func TestParseStatusAsAnyJSONNumberForm(t *testing.T) {
	for _, doc := range []string{`{"status":404.0}`, `{"status":4.04e2}`, `{"status":404}`} {
		p, err := problem.Parse([]byte(doc))
		if err != nil || p.Status() != 404 {
			t.Errorf("%s: status %v, %v", doc, p, err)
		}
	}
	for _, doc := range []string{`{"status":404.5,"title":"t"}`, `{"status":1e400,"title":"t"}`, `{"status":-404,"title":"t"}`} {
		if p, err := problem.Parse([]byte(doc)); err != nil || p.Status() != 0 {
			t.Errorf("%s: status %v, %v", doc, p, err)
		}
	}
}
