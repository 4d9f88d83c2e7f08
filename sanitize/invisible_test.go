package sanitize

import (
	"strings"
	"testing"
)

func TestIsInvisible(t *testing.T) {
	for _, r := range []rune{0x00ad, 0x061c, 0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2064, 0x2066, 0x2067, 0x2068, 0x2069,
		0xfeff, 0xfff9, 0xfffb, 0xe0001, 0xe0041, 0xe007f} {
		if !IsInvisible(r) {
			t.Errorf("IsInvisible(%U) = false", r)
		}
	}
	for _, r := range []rune{'a', ' ', '\n', 0x00a0, 0x00e9, 0x0627, 0x2028, 0x2029, 0x2065, 0x2070, 0x4e2d, 0xfffd, 0x1f600, 0xe0080} {
		if IsInvisible(r) {
			t.Errorf("IsInvisible(%U) = true", r)
		}
	}
}

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
			if IsInvisible(r) {
				t.Errorf("Log(%q) keeps %U", in, r)
			}
		}
	}
	if got := Log("caf\u00e9 \u4e2d\u6587"); !strings.Contains(got, "\u00e9") {
		t.Errorf("visible non-ASCII escaped: %q", got)
	}
}
