package middleware

import (
	"strconv"
	"testing"
	"time"
)

// FuzzRetryAfter: whatever a handler puts in Retry-After, reading it never
// panics, never yields a wait of zero or less, and reads delay-seconds
// exactly.
func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"3", "0", "120", "-1", "+5", " 5", "4294967296", "Mon, 30 Nov 2026 12:00:30 GMT", "Mon, 30 Nov 2026 11:00:00 GMT", "soon", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := retryAfter(v, now)
		if ok && d <= 0 {
			t.Fatalf("%q: wait %v", v, d)
		}
		if n, err := strconv.ParseUint(v, 10, 32); err == nil && (ok != (n > 0) || ok && d != time.Duration(n)*time.Second) {
			t.Fatalf("%q: %v %v", v, d, ok)
		}
	})
}
