package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
)

// The JSON report. Its field names are stable: add fields, never rename
// or remove one (the schema is in the package documentation).
type report struct {
	Tool       string        `json:"tool"`
	Version    int           `json:"version"`
	Target     string        `json:"target"`
	Contract   string        `json:"contract"`
	Started    time.Time     `json:"started"`
	DurationMS int64         `json:"duration_ms"`
	Summary    summary       `json:"summary"`
	Checks     []checkResult `json:"checks"`
}

type summary struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

type checkResult struct {
	Check string `json:"check"`
	// Verdict is pass, fail or skip.
	Verdict  string          `json:"verdict"`
	Why      string          `json:"why"`
	Requests []requestResult `json:"requests"`
}

type requestResult struct {
	ID          string          `json:"id"`
	Method      string          `json:"method"`
	Target      string          `json:"target"`
	Status      int             `json:"status"`
	ContentType string          `json:"content_type"`
	ElapsedMS   int64           `json:"elapsed_ms"`
	Failures    []failureResult `json:"failures"`
}

type failureResult struct {
	Judgement string `json:"judgement"`
	Why       string `json:"why"`
}

const (
	verdictPass = "pass"
	verdictFail = "fail"
	verdictSkip = "skip"
)

func newCheckResult(name string, exs []*exchange, skip string) checkResult {
	res := checkResult{Check: name, Verdict: verdictPass, Requests: []requestResult{}}
	if skip != "" {
		res.Verdict, res.Why = verdictSkip, skip
		return res
	}
	failed := 0
	for _, ex := range exs {
		rr := requestResult{ID: ex.id, Method: ex.req.method, Target: ex.req.target, Status: ex.status,
			ElapsedMS: ex.elapsed.Milliseconds(), Failures: []failureResult{}}
		if ex.header != nil {
			rr.ContentType = ex.header.Get("Content-Type")
		}
		for _, f := range ex.failures {
			rr.Failures = append(rr.Failures, failureResult{f.judgement, f.why})
			failed++
		}
		res.Requests = append(res.Requests, rr)
	}
	if failed > 0 {
		res.Verdict = verdictFail
		res.Why = fmt.Sprintf("%d failed judgements over %s", failed, requests(len(exs)))
	} else {
		res.Why = requests(len(exs)) + ", every judgement passed"
	}
	return res
}

func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

func (r *report) tally() {
	r.Summary = summary{}
	for _, c := range r.Checks {
		switch c.Verdict {
		case verdictPass:
			r.Summary.Passed++
		case verdictFail:
			r.Summary.Failed++
		default:
			r.Summary.Skipped++
		}
	}
}

func writeJSON(w io.Writer, r *report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// isTerminal reports whether w is a character device, so colours and the
// rewritten progress line go only to a person.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func writeTable(w io.Writer, r *report, color bool) error {
	paint := func(verdict string) string {
		label := strings.ToUpper(verdict)
		if !color {
			return label
		}
		code := map[string]string{verdictPass: "32", verdictFail: "31", verdictSkip: "33"}[verdict]
		return "\x1b[" + code + "m" + label + "\x1b[0m"
	}
	fmt.Fprintf(w, "faultline probe %s (contract %s)\n\n", r.Target, r.Contract)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tREQUEST\tVERDICT\tWHY")
	for _, c := range r.Checks {
		if c.Verdict != verdictFail {
			fmt.Fprintf(tw, "%s\t-\t%s\t%s\n", c.Check, paint(c.Verdict), printable(c.Why))
			continue
		}
		for _, rr := range c.Requests {
			for _, f := range rr.Failures {
				fmt.Fprintf(tw, "%s\t%s %s [%s]\t%s\t%s: %s\n", c.Check, rr.Method, clipTarget(rr.Target), rr.ID, paint(c.Verdict), f.Judgement, printable(f.Why))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d checks: %d passed, %d failed, %d skipped (%d ms)\n",
		len(r.Checks), r.Summary.Passed, r.Summary.Failed, r.Summary.Skipped, r.DurationMS)
	return err
}

// printable escapes what a terminal or a CI log would act on rather than
// show (escape sequences, CR, bidi overrides): a why quotes the target's
// own text, member names and values a hostile server chose.
func printable(s string) string {
	if !strings.ContainsFunc(s, notPrintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if notPrintable(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func notPrintable(r rune) bool { return !unicode.IsPrint(r) }

func clipTarget(t string) string {
	if len(t) > 48 {
		return t[:45] + "…"
	}
	return t
}

// The JUnit XML report, with every attribute and element the Ant JUnit
// schema (JUnit.xsd) requires, which is what CI systems read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	ID         int             `xml:"id,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure"`
	Skipped   *junitSkipped `xml:"skipped"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

func writeJUnit(w io.Writer, r *report, host string) error {
	suite := junitSuite{
		Name: "faultline probe " + r.Target, Package: "faultline.probe", Timestamp: r.Started.UTC().Format("2006-01-02T15:04:05"),
		Hostname: host, Tests: len(r.Checks), Failures: r.Summary.Failed, Skipped: r.Summary.Skipped, Time: seconds(r.DurationMS),
		Properties: []junitProperty{{"target", r.Target}, {"contract", r.Contract}},
	}
	for _, c := range r.Checks {
		var ms int64
		for _, rr := range c.Requests {
			ms += rr.ElapsedMS
		}
		tc := junitCase{Name: c.Check, Classname: "faultline.probe", Time: seconds(ms)}
		switch c.Verdict {
		case verdictFail:
			var text strings.Builder
			for _, rr := range c.Requests {
				for _, f := range rr.Failures {
					fmt.Fprintf(&text, "%s %s [%s] %d: %s: %s\n", rr.Method, rr.Target, rr.ID, rr.Status, f.Judgement, f.Why)
				}
			}
			tc.Failure = &junitFailure{Message: c.Why, Type: "contract", Text: text.String()}
		case verdictSkip:
			tc.Skipped = &junitSkipped{Message: c.Why}
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suites := junitSuites{Name: "faultline probe", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(suites); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
