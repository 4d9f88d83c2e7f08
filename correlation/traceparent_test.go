package correlation

import (
	"strings"
	"testing"
)

const specExample = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestParseTraceparent(t *testing.T) {
	cases := []struct {
		name string
		in   string
		ok   bool
	}{
		{"spec example", specExample, true},
		{"not sampled", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true},
		{"unknown flags kept", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff", true},
		{"uppercase trace-id", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false},
		{"uppercase parent-id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01", false},
		{"uppercase flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A", false},
		{"uppercase version", "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"zero trace-id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},
		{"zero parent-id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false},
		{"version 00 with suffix", specExample + "-what-the-future-will-be-like", false},
		{"version 00 with trailing byte", specExample + "x", false},
		{"version 01 with suffix", "01" + specExample[2:] + "-what-the-future-will-be-like", true},
		{"version 01 without suffix", "01" + specExample[2:], true},
		{"version cc with bare dash", "cc" + specExample[2:] + "-", true},
		{"version 01 suffix without dash", "01" + specExample[2:] + "x-suffix", false},
		{"empty", "", false},
		{"short trace-id", "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", false},
		{"long trace-id", "00-4bf92f3577b34da6a3ce929d0e0e47361-00f067aa0ba902b7-01", false},
		{"short parent-id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01", false},
		{"long parent-id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b70-01", false},
		{"one-digit version", "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"three-digit flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-010", false},
		{"one-digit flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1", false},
		{"non-hex trace-id", "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", false},
		{"non-hex parent-id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01", false},
		{"non-hex flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x", false},
		{"non-hex version", "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"underscores", "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01", false},
		{"leading space", " " + specExample[:54], false},
		{"trailing space", specExample + " ", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tc, ok := parseTraceparent(c.in)
			if ok != c.ok {
				t.Fatalf("parseTraceparent(%q) ok = %v, want %v", c.in, ok, c.ok)
			}
			if !ok {
				if tc != (traceContext{}) {
					t.Fatalf("rejected input returned %+v", tc)
				}
				return
			}
			if got := tc.String(); got != c.in[:traceparentLen] {
				t.Fatalf("String() = %q, want %q", got, c.in[:traceparentLen])
			}
		})
	}
}

func TestParseTraceparentFields(t *testing.T) {
	tc, ok := parseTraceparent(specExample)
	want := traceContext{Version: 0, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", ParentID: "00f067aa0ba902b7", Flags: 1}
	if !ok || tc != want {
		t.Fatalf("got %+v, %v", tc, ok)
	}
	if !tc.Sampled() {
		t.Fatal("sampled flag lost")
	}
	tc, _ = parseTraceparent("fe" + specExample[2:53] + "02")
	if tc.Version != 0xfe || tc.Flags != 2 || tc.Sampled() {
		t.Fatalf("got %+v", tc)
	}
}

func TestParseTraceparentNoAlloc(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _, _ = parseTraceparent(specExample) }); n != 0 {
		t.Fatalf("parseTraceparent allocates %v times", n)
	}
}

func isLowerHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}

func FuzzParseTraceparent(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		tc, ok := parseTraceparent(s)
		if !ok {
			return
		}
		prefix := s[:traceparentLen]
		if got := tc.String(); got != prefix {
			t.Fatalf("%q re-formats as %q", s, got)
		}
		if strings.ToLower(prefix) != prefix || prefix[:2] == "ff" {
			t.Fatalf("accepted %q", s)
		}
		if !isLowerHex(tc.TraceID) || len(tc.TraceID) != 32 || tc.TraceID == strings.Repeat("0", 32) {
			t.Fatalf("accepted trace-id %q", tc.TraceID)
		}
		if !isLowerHex(tc.ParentID) || len(tc.ParentID) != 16 || tc.ParentID == strings.Repeat("0", 16) {
			t.Fatalf("accepted parent-id %q", tc.ParentID)
		}
		if len(s) > traceparentLen && (tc.Version == 0 || s[traceparentLen] != '-') {
			t.Fatalf("accepted suffix in %q", s)
		}
		again, ok := parseTraceparent(prefix)
		if !ok || again != tc {
			t.Fatalf("prefix %q of an accepted value does not parse the same", prefix)
		}
	})
}
