package sanitize

import "testing"

// plainSeeds mix text plain accepts (a record's keys and values) with
// near misses one byte away from a trigger.
var plainSeeds = []string{
	"", "problem", "code", "internal", "status", "verify", "method", "path",
	"correlation_id", "GET", "/fail", "ghp_abc", "xghp", "a%41", `a\nb`,
	"tokenpassword", "sk live", "bearer", "eyj", "near", "pq", "x.internal",
}

// FuzzPlain checks the shortcut against the tiers it stands for: whatever
// plain accepts, the full log and public tiers return unchanged.
func FuzzPlain(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plain(s) {
			return
		}
		if got := unhideEscaped(s, logText(s), logText); got != s {
			t.Fatalf("plain(%q) but the log tier gives %q", s, got)
		}
		if got := unhideEscaped(s, publicText(s), publicText); got != s {
			t.Fatalf("plain(%q) but the public tier gives %q", s, got)
		}
	})
}

func TestPlainRejectsWhatTheTiersRead(t *testing.T) {
	for _, s := range []string{"a%41", `a\nb`, "Bearer x", "password=x", "x\x00", "é", "10.1.2.3"} {
		if plain(s) {
			t.Errorf("plain(%q) = true; the tiers must read it", s)
		}
	}
	for _, s := range []string{"", "problem", "internal", "verify", "method", "path"} {
		if !plain(s) {
			t.Errorf("plain(%q) = false; want the shortcut", s)
		}
	}
}
