package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline-go/faultline/internal/textclass"
)

// TestEscapeLeads holds escapeLeads to textclass.IsEscaped over every rune:
// a rune it reports whose first byte the table lacks would be logged as it
// is.
func TestEscapeLeads(t *testing.T) {
	var b [utf8.UTFMax]byte
	for r := rune(utf8.RuneSelf); r <= utf8.MaxRune; r++ {
		if textclass.IsEscaped(r) && utf8.ValidRune(r) {
			if n := utf8.EncodeRune(b[:], r); !escapeLeads[b[0]] {
				t.Fatalf("%U (% x) is escaped, its first byte is not in escapeLeads", r, b[:n])
			}
		}
	}
}

// splitRunes are valid texts with a rune cut in half by a redaction, as a
// rule that cut at a byte inside a rune would leave them.
var splitRunes = []string{
	"é\xc3", "a\xe4\xb8 b", "\xb8\xad password", "日\xe6\x9c", "\x9c\xac語\n", "\xf0\x9f\x98 x \xa0",
	"[redacted]\x80\x80\x80", "\u202e\xe2\x80", "\xe2\x80\xae\xe2\x80",
}

// TestEscapeRepairsSplitRunes proves what settleValid relies on for the log
// tier: the escaper finds an invalid byte left by a redaction that cut a
// rune, and writes the text as clip would have made it valid, so the log
// pass returns valid UTF-8 whatever its rules do and needs no check.
func TestEscapeRepairsSplitRunes(t *testing.T) {
	for _, s := range splitRunes {
		if escapeAt(s) < 0 {
			t.Errorf("escapeAt(%q) found nothing", s)
		}
		got, want := escapeControls(s, MaxLogLen), escapeControls(strings.ToValidUTF8(s, replacement), MaxLogLen)
		if got != want || !utf8.ValidString(got) {
			t.Errorf("escapeControls(%q) = %q, want %q as the valid text gives", s, got, want)
		}
	}
}

// FuzzLogPassValid fuzzes the claim settleValid takes from the log tier:
// from valid UTF-8, with every flag a scan can raise, the pass returns valid
// UTF-8, and so it does from text with a rune cut, which the escaper
// writes as it writes the text clip made valid. It also asks the rules
// alone for valid UTF-8 from valid text: their spans begin and end at
// bytes an ASCII test found, and a rule that cut a rune would leave the
// log tier to the escaper's repair and show U+FFFD in the public tier's
// text.
func FuzzLogPassValid(f *testing.F) {
	for _, s := range splitRunes {
		f.Add(s)
	}
	f.Add("password=日本語 token ghp_16C7e42F292c6912E7710c838347Ae178B4a\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > MaxLogLen {
			return
		}
		valid := strings.ToValidUTF8(s, replacement)
		if got, want := escapeControls(s, MaxLogLen), escapeControls(valid, MaxLogLen); got != want {
			t.Fatalf("escapeControls(%q) = %q, the valid text gives %q", s, got, want)
		}
		var r passRun
		if out := redactSecrets(valid, publicScanner.want, &r); !utf8.ValidString(out) {
			t.Fatalf("redactSecrets(%q) = %q cuts a rune", valid, out)
		}
		for _, in := range []string{valid, s} {
			for _, fl := range []flags{logScanner.scan(in) | fNonASCII, logScanner.want} {
				if out, _ := logPass(in, fl); !utf8.ValidString(out) {
					t.Fatalf("logPass(%q, %x) = %q, not valid UTF-8", in, fl, out)
				}
			}
		}
	})
}
