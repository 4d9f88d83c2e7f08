package sanitize

import (
	"strings"
	"testing"
)

// A Windows path goes on over the spaces of its directory names, and an
// IPv4 literal may write a part in octal: the public tier redacts the
// whole locator, not its first word or nothing.
func TestPublicRedactsSpacedWindowsPathsAndOctalIPs(t *testing.T) {
	for in, gone := range map[string]string{
		`open C:\Program Files\App\config.ini: denied`:            `Files\App`,
		`C:/Program Files (x86)/Vendor Tool/bin/tool.exe missing`: `Vendor Tool/bin`,
		`read \\fileserver\Team Share\payroll\2026.xlsx failed`:   `payroll`,
		`D:\Users\Jane Doe\Documents\keys.txt`:                    `Documents`,
		"host 0177.0.0.1 down":                                    "0177",
		"dial tcp 0300.0250.0.01:5432: refused":                   "0250",
	} {
		if out := Public(in); strings.Contains(out, gone) || !strings.Contains(out, Redacted) {
			t.Errorf("Public(%q) = %q keeps %q", in, out, gone)
		}
	}
	for in, want := range map[string]string{
		`open C:\tmp\x.txt failed twice`: "open [redacted] failed twice",
		"version 0178.1.2.3":             "version 0178.1.2.3",
		"build 1234.5.6.7 released":      "build 1234.5.6.7 released",
	} {
		if out := Public(in); out != want {
			t.Errorf("Public(%q) = %q, want %q", in, out, want)
		}
	}
}
