package sanitize

import (
	"slices"
	"strings"
	"testing"
)

// closedRules are the rules a pass may prove itself settled by (passRun):
// each must return its own output unchanged. The IP, userinfo and
// key-value rules are not (their passes note them with noteOpen; the
// key-value rule only when it cannot call its result settled, which
// TestKeyValuesSettled checks).
var closedRules = []struct {
	name string
	run  func(string) string
}{
	{"pem", pemRule.redact},
	{"dsn", redactDSNUserinfo},
	{"token", redactTokens},
	{"scheme", schemeRule.redact},
	{"user-option", userOptionRule.redact},
	{"path", redactPaths},
	{"host", redactHosts},
}

// checkRulesClosed fails if a rule changes its own output of s, or of s
// as the log tier escapes it.
func checkRulesClosed(t *testing.T, s string) {
	t.Helper()
	for _, in := range []string{s, escapeControls(s, MaxLogLen)} {
		for _, r := range closedRules {
			once := r.run(in)
			if twice := r.run(once); twice != once {
				t.Fatalf("%s rule not closed on %q:\n once %q\ntwice %q", r.name, in, once, twice)
			}
		}
	}
}

// corpusTexts is every text the package's tests keep: the rescan and
// hostile units, the public corpus and the log corpus.
func corpusTexts(t *testing.T) []string {
	t.Helper()
	texts := slices.Concat(rescanTexts, hostileUnits)
	for _, tc := range publicCorpus {
		texts = append(texts, tc.in)
	}
	for _, c := range loadCorpus(t) {
		texts = append(texts, c.In)
	}
	return texts
}

func TestRulesClosed(t *testing.T) {
	texts := corpusTexts(t)
	for _, sd := range publicSeeds {
		texts = append(texts, "a "+sd.secret+" b", sd.secret+sd.secret)
	}
	for _, s := range texts {
		checkRulesClosed(t, s)
		checkRulesClosed(t, strings.Repeat(s, 3))
	}
}
