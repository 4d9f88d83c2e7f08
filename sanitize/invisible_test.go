package sanitize

import (
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/textclass"
)

// TestLogEscapesInvisible checks the log tier against the same definition
// the problem renderer uses: no invisible rune reaches a log line.
func TestLogEscapesInvisible(t *testing.T) {
	for in, want := range map[string]string{
		"admin\u200f.txt":         `admin\u200f.txt`,
		"user\u061cname":          `user\u061cname`,
		"zero\u200bwidth":         `zero\u200bwidth`,
		"bom\ufeffhere":           `bom\ufeffhere`,
		"tag\U000E0041\U000E0042": `tag\U000e0041\U000e0042`,
	} {
		got := Log(in)
		if got != want {
			t.Errorf("Log(%q) = %q, want %q", in, got, want)
		}
		for _, r := range got {
			if textclass.IsInvisible(r) {
				t.Errorf("Log(%q) keeps %U", in, r)
			}
		}
	}
	if got := Log("caf\u00e9 \u4e2d\u6587"); !strings.Contains(got, "\u00e9") {
		t.Errorf("visible non-ASCII escaped: %q", got)
	}
}
