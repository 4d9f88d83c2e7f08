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

// The first line of a Java, .NET, Kotlin or Python trace names the
// exception's class by its package; an Elixir, Erlang, Swift, Dart, C or
// C++ frame gives its source file and line; a crash names its signal.
// Each is a stack trace's, which the public tier replaces whole.
func TestPublicReplacesMoreTraceShapes(t *testing.T) {
	for _, in := range []string{
		`Exception in thread "main" java.lang.IllegalStateException: boom`,
		"System.NullReferenceException: Object reference not set to an instance of an object.",
		"org.springframework.beans.factory.BeanCreationException: Error creating bean",
		"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x', port=443)",
		"kotlin.KotlinNullPointerException: null",
		"java.lang.OutOfMemoryError: Java heap space",
		"** (RuntimeError) boom\n    (app 0.1.0) lib/app.ex:5: App.run/0",
		"in handle_call at src/server.erl:42", "Fatal error: Unexpectedly found nil at App/Main.swift:17",
		"Unhandled exception at package:app/main.dart:9:3", "segfault in src/parser.c:214", "at lib/db.lua:33",
		"SIGSEGV: segmentation violation\nPC=0x4a5b6c m=0 sigcode=1", "SIGBUS: bus error",
	} {
		if out := Public(in); out != GenericDetail {
			t.Errorf("Public(%q) = %q, want the generic detail", in, out)
		}
	}
	checkBenign(t, []string{"ValidationError: name is required", "Error: the order was already shipped",
		"see RFC 9457 section 3.1: members", "the file report.c: was not found", "version 1.2.3: released",
		"a timeout error: retry later"})
}
