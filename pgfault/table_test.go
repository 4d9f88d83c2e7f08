package pgfault

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

var update = flag.Bool("update", false, "rewrite the SQLSTATE table in pgfault's README.md")

const (
	tableBegin = "<!-- pgfault:begin (generated from pgfault's rules; go test ./pgfault -update) -->\n"
	tableEnd   = "<!-- pgfault:end -->"
)

// markdown renders the SQLSTATE table and the failures without one.
func markdown() string {
	var b strings.Builder
	b.WriteString("| SQLSTATE | condition | code | status | outcome | retry_after_ms | public detail |\n|---|---|---|---|---|---|---|\n")
	row := func(state, name string, c problem.Kind, outcome, retry, detail string) {
		if detail == "" {
			detail = "(the code's default)"
		}
		d, _ := problem.DefaultRegistry().Lookup(c)
		fmt.Fprintf(&b, "| %s | %s | `%s` | %d | %s | %s | %s |\n", state, name, c, d.Status, outcome, retry, detail)
	}
	for _, r := range append(rules, otherState) {
		state := "`" + r.state + "`"
		switch {
		case r.state == "*":
			state = "any other"
		case len(r.state) == 2:
			state = "`" + r.state + "xxx`"
		case r.routine != "":
			state += " from `" + r.routine + "`"
		}
		outcome := "`" + string(r.outcome) + "`"
		if r.dropped {
			outcome = "read: `not_committed`; write: `unknown`"
		}
		retry := "-"
		if r.retrySoon {
			retry = "100-200 ms"
		}
		row(state, r.name, r.code, outcome, retry, r.detail)
	}
	return b.String()
}

// TestREADMETable fails when the SQLSTATE table in this module's README.md
// (the catalogue the repository's README links to) drifts from the rules;
// -update rewrites it.
func TestREADMETable(t *testing.T) {
	const path = "README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := bytes.Cut(readme, []byte(tableBegin))
	if !ok {
		t.Fatalf("pgfault/README.md lacks the marker %q", tableBegin)
	}
	current, after, ok := bytes.Cut(rest, []byte(tableEnd))
	if !ok {
		t.Fatalf("pgfault/README.md lacks the marker %q", tableEnd)
	}
	want := markdown()
	if string(current) == want {
		return
	}
	if !*update {
		t.Fatalf("pgfault/README.md's SQLSTATE table drifted from the rules; run go test ./pgfault -update\nwant:\n%s", want)
	}
	// A fresh slice: appending to before, a prefix of readme, would
	// overwrite after while it is still to be copied.
	out := make([]byte, 0, len(readme)-len(current)+len(want))
	out = append(append(append(append(append(out, before...), tableBegin...), want...), tableEnd...), after...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRulesReachable fails when a class rule shadows a more specific rule
// listed after it, which would silently make that rule dead.
func TestRulesReachable(t *testing.T) {
	for _, r := range rules {
		if len(r.state) != 5 {
			continue
		}
		if got := ruleFor(r.state, r.routine); got.state != r.state || got.routine != r.routine {
			t.Errorf("%s (%s) is shadowed by %s (%s)", r.state, r.name, got.state, got.name)
		}
	}
	if ruleFor("0A000", "").code != problem.NotImplemented {
		t.Error("0A000 from another routine is not not_implemented")
	}
	if ruleFor("XX000", "").code != problem.Internal || ruleFor("99999", "").code != problem.Internal {
		t.Error("an unknown SQLSTATE is not internal")
	}
}

// TestRulesKeepTheContract checks every rule against the registry and the
// public tier: a code the registry knows, a detail that survives
// sanitizing unchanged and names nothing.
func TestRulesKeepTheContract(t *testing.T) {
	reg := problem.DefaultRegistry()
	for _, r := range append(rules, otherState) {
		d, ok := reg.Lookup(r.code)
		if !ok {
			t.Errorf("%s: code %s is not registered", r.state, r.code)
		}
		if r.retrySoon && !d.Retryable {
			t.Errorf("%s: a retry time on the non-retryable %s", r.state, r.code)
		}
		if r.dropped && r.outcome != "" {
			t.Errorf("%s: a dropped session's outcome depends on the access, not on the rule", r.state)
		}
		if !r.dropped && r.outcome == "" {
			t.Errorf("%s: no outcome", r.state)
		}
		if r.detail != "" && !d.ShowDetail {
			t.Errorf("%s: detail %q on %s, which never shows one", r.state, r.detail, r.code)
		}
		for _, word := range []string{"SQL", "constraint", "table", "column", "role", "\""} {
			if strings.Contains(r.detail, word) {
				t.Errorf("%s: detail %q says %q", r.state, r.detail, word)
			}
		}
	}
}
