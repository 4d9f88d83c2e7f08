package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func runFormat(t *testing.T, base string, args ...string) (int, []byte) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(append([]string{"probe"}, args...), base), &stdout, &stderr)
	if code != exitPass && code != exitFail {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	return code, stdout.Bytes()
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	return slices.Sorted(maps.Keys(m))
}

// The JSON report has exactly the documented fields, with their types.
func TestJSONReportSchema(t *testing.T) {
	_, out := runFormat(t, bareMuxApp(t), append(slices.Clone(appArgs), "-format", "json")...)
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(doc), []string{"checks", "contract", "duration_ms", "started", "summary", "target", "tool", "version"}; !slices.Equal(got, want) {
		t.Errorf("top-level fields %q, want %q", got, want)
	}
	if doc["tool"] != "faultline probe" || doc["version"] != json.Number("1") || doc["contract"] != "rfc9457" {
		t.Errorf("tool %v version %v contract %v", doc["tool"], doc["version"], doc["contract"])
	}
	if got, want := keys(doc["summary"]), []string{"failed", "passed", "skipped"}; !slices.Equal(got, want) {
		t.Errorf("summary fields %q", got)
	}
	checksList, _ := doc["checks"].([]any)
	if len(checksList) != len(checks) {
		t.Fatalf("%d checks, want %d", len(checksList), len(checks))
	}
	sawFailure := false
	for i, c := range checksList {
		if got, want := keys(c), []string{"check", "requests", "verdict", "why"}; !slices.Equal(got, want) {
			t.Errorf("check fields %q, want %q", got, want)
		}
		cm := c.(map[string]any)
		if cm["check"] != checks[i].name {
			t.Errorf("check %d is %v, want %s", i, cm["check"], checks[i].name)
		}
		if v := cm["verdict"]; v != verdictPass && v != verdictFail && v != verdictSkip {
			t.Errorf("verdict %v", v)
		}
		for _, r := range cm["requests"].([]any) {
			if got, want := keys(r), []string{"content_type", "elapsed_ms", "failures", "id", "method", "status", "target"}; !slices.Equal(got, want) {
				t.Errorf("request fields %q, want %q", got, want)
			}
			rm := r.(map[string]any)
			if id, _ := rm["id"].(string); !strings.HasPrefix(id, "fp-") {
				t.Errorf("request id %v", rm["id"])
			}
			if _, err := rm["status"].(json.Number).Int64(); err != nil {
				t.Errorf("status %v", rm["status"])
			}
			for _, f := range rm["failures"].([]any) {
				sawFailure = true
				if got, want := keys(f), []string{"judgement", "why"}; !slices.Equal(got, want) {
					t.Errorf("failure fields %q", got)
				}
			}
		}
	}
	if !sawFailure {
		t.Error("a bare ServeMux app gave no failure to check the schema of")
	}
}

// The JUnit report parses into JUnit's structure, with every attribute
// and element the Ant JUnit XSD requires of testsuite and testcase.
func TestJUnitReport(t *testing.T) {
	code, out := runFormat(t, bareChiApp(t), append(slices.Clone(appArgs), "-format", "junit")...)
	if code != exitFail {
		t.Errorf("exit %d", code)
	}
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Tests    string `xml:"tests,attr"`
			Failures string `xml:"failures,attr"`
			Skipped  string `xml:"skipped,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type    string `xml:"type,attr"`
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out, &suites); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(suites.Suites) != 1 {
		t.Fatalf("%d testsuites", len(suites.Suites))
	}
	s := suites.Suites[0]
	failures, skipped := 0, 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			failures++
			if c.Failure.Type == "" || !strings.Contains(c.Failure.Text, "[fp-") {
				t.Errorf("%s: failure %+v names no request", c.Name, c.Failure)
			}
		}
		if c.Skipped != nil {
			skipped++
		}
	}
	if s.Tests != strconv.Itoa(len(checks)) || s.Failures != strconv.Itoa(failures) || s.Skipped != strconv.Itoa(skipped) || failures == 0 {
		t.Errorf("tests %s failures %s (%d) skipped %s (%d)", s.Tests, s.Failures, failures, s.Skipped, skipped)
	}

	required := map[string][]string{
		"testsuite": {"name", "tests", "failures", "errors", "time", "timestamp", "hostname", "id", "package"},
		"testcase":  {"name", "classname", "time"},
		"failure":   {"type"},
		"property":  {"name", "value"},
	}
	seen := map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		seen[el.Name.Local]++
		for _, attr := range required[el.Name.Local] {
			if !slices.ContainsFunc(el.Attr, func(a xml.Attr) bool { return a.Name.Local == attr }) {
				t.Errorf("<%s> lacks the %s attribute", el.Name.Local, attr)
			}
		}
	}
	for _, el := range []string{"properties", "system-out", "system-err"} {
		if seen[el] != 1 {
			t.Errorf("%d <%s> elements, want 1", seen[el], el)
		}
	}
}

// Colours only on a terminal (or when asked for).
func TestTableColours(t *testing.T) {
	base := bareMuxApp(t)
	_, plain := runFormat(t, base, "-rate", "500", "-checks", "unknown-route")
	if bytes.Contains(plain, []byte("\x1b[")) || !bytes.Contains(plain, []byte("FAIL")) {
		t.Errorf("a buffer got escapes or no verdict:\n%s", plain)
	}
	if !bytes.Contains(plain, []byte("unknown-route")) || !bytes.Contains(plain, []byte("media-type: Content-Type")) || !bytes.Contains(plain, []byte("[fp-")) {
		t.Errorf("the table names no check, judgement or request:\n%s", plain)
	}
	_, colour := runFormat(t, base, "-rate", "500", "-checks", "unknown-route", "-color", "always")
	if !bytes.Contains(colour, []byte("\x1b[31mFAIL\x1b[0m")) {
		t.Errorf("-color always gave no red FAIL:\n%s", colour)
	}
}

// A why quotes what the target sent (a member's name, a status member's
// value), so a hostile server wrote escape sequences, CR and bidi
// overrides straight into the table a terminal or CI log shows: it could
// clear the screen or print a forged PASS line. They are shown escaped.
func TestTableShowsHostileTextEscaped(t *testing.T) {
	rt := newRawTarget(t, func(c net.Conn) int64 {
		n, _ := c.Write([]byte(notFound("", `{"title":"Not Found","status":"\u001b[2J\u0007","\u001b[32mPASS\u001b[0m\r\t\u202e":"/srv/app/main.go:12","x":"\u009b31m"}`)))
		return int64(n)
	})
	_, table := runFormat(t, rt.url, "-rate", "500", "-checks", "unknown-route", "-color", "never")
	for _, r := range string(table) {
		if r != '\n' && !unicode.IsPrint(r) {
			t.Fatalf("the table holds %U:\n%q", r, table)
		}
	}
	for _, want := range []string{`"status" \x1b[2J\a is not an integer`, `leak: /\x1b[32mPASS\x1b[0m\r\t\u202e "/srv/app/main.go:12"`} {
		if !bytes.Contains(table, []byte(want)) {
			t.Errorf("no %q in\n%s", want, table)
		}
	}
}
