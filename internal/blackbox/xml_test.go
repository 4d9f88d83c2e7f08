package blackbox

import (
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

const rfc9457RNG = "/work/shared/problem-details-schemas/rfc9457-appendix-b.rng"

// xmlProblem is what a client reads of problem+xml.
type xmlProblem struct {
	XMLName       xml.Name
	Type          string `xml:"type"`
	Status        string `xml:"status"`
	Instance      string `xml:"instance"`
	Code          string `xml:"code"`
	Action        string `xml:"action"`
	Retryable     string `xml:"retryable"`
	RetryAfterMS  string `xml:"retry_after_ms"`
	CorrelationID string `xml:"correlation_id"`
}

// Every failure class, asked for in problem+xml, is well-formed XML in
// RFC 9457 Appendix B's namespace that says what the JSON would, and it
// validates against the Appendix's RELAX NG schema with jing.
func TestEveryFailureClassInProblemXML(t *testing.T) {
	hostilePaths := []failure{
		{"escaped markup in the path", "GET", "/nowhere/%3C%2Fproblem%3E%3C!--", "", nil, 404, "not_found"},
		{"ampersands and quotes in the path", "GET", "/nowhere/a&b'c%22d", "", nil, 404, "not_found"},
		{"bidi controls in the path", "GET", "/nowhere/%E2%80%AE%E2%80%8F%00", "", nil, 404, "not_found"},
	}
	dir := t.TempDir()
	var (
		mu    sync.Mutex
		files []string
	)
	t.Run("apps", func(t *testing.T) {
		for name, newApp := range apps(t, true) {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				a := newApp(t)
				// Each case on its own: the timeouts then overlap.
				t.Run("cases", func(t *testing.T) {
					for i, f := range append(append([]failure(nil), failures...), hostilePaths...) {
						if f.name == "not acceptable" {
							continue
						}
						t.Run(f.name, func(t *testing.T) {
							t.Parallel()
							a := *a
							a.t = t
							header := append([]string{"Accept", "application/problem+xml"}, f.header...)
							ans := a.request(f.method, f.path, f.body, header...)
							what := f.name + " in XML"
							if ans.status != f.status || ans.header.Get("Content-Type") != "application/problem+xml; charset=utf-8" {
								t.Errorf("%s: %d %q\n%s", what, ans.status, ans.header.Get("Content-Type"), ans.body)
								return
							}
							var doc xmlProblem
							if err := xml.Unmarshal(ans.body, &doc); err != nil {
								t.Errorf("%s: not well-formed: %v\n%s", what, err, ans.body)
								return
							}
							if doc.XMLName.Space != "urn:ietf:rfc:7807" || doc.XMLName.Local != "problem" {
								t.Errorf("%s: root %v", what, doc.XMLName)
							}
							if doc.Status != strconv.Itoa(ans.status) || doc.Code != f.code || doc.Code != ans.header.Get("X-Error-Code") {
								t.Errorf("%s: status %q code %q, sent %d %q", what, doc.Status, doc.Code, ans.status, ans.header.Get("X-Error-Code"))
							}
							if doc.CorrelationID == "" || doc.CorrelationID != ans.header.Get("X-Request-Id") {
								t.Errorf("%s: correlation_id %q, header %q", what, doc.CorrelationID, ans.header.Get("X-Request-Id"))
							}
							if doc.Action == "retry" && doc.Retryable != "true" {
								t.Errorf("%s: action retry with retryable %q", what, doc.Retryable)
							}
							// The JSON of the same failure carries the same
							// instance (asked again only where that is quick).
							if f.code != "timeout" {
								js := a.request(f.method, f.path, f.body, f.header...)
								if inst, _ := js.doc["instance"].(string); inst != doc.Instance {
									t.Errorf("%s: instance %q in XML, %q in JSON", what, doc.Instance, inst)
								}
							}
							a.checkNoLeak(what, ans)
							file := filepath.Join(dir, fmt.Sprintf("%s-%02d.xml", name, i))
							if err := os.WriteFile(file, ans.body, 0o600); err != nil {
								t.Fatal(err)
							}
							mu.Lock()
							files = append(files, file)
							mu.Unlock()
						})
					}
				})
			})
		}
	})
	// One JVM for every document.
	validateRNG(t, files)
}

// validateRNG runs jing (Debian's jing package) over files, once for all
// of them. Without jing the check is skipped locally and fails in CI.
func validateRNG(t *testing.T, files []string) {
	t.Helper()
	if _, err := os.Stat(rfc9457RNG); errors.Is(err, os.ErrNotExist) {
		t.Log("RFC 9457 Appendix B schema not present; RELAX NG check skipped")
		return
	}
	jing, err := exec.LookPath("jing")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("jing is not installed (apt-get install jing)")
		}
		t.Log("jing not installed; RELAX NG check skipped")
		return
	}
	out, err := exec.Command(jing, append([]string{rfc9457RNG}, files...)...).Output()
	if err != nil {
		t.Errorf("problem+xml does not validate against RFC 9457 Appendix B: %v\n%s", err, out)
	}
}
