package ratelimit

import (
	"testing"
	"time"
)

// The refusal's detail is read by people: a window reads as a person would
// say it, in the largest unit that tells it exactly.
func TestDetailTellsTheWindowInWords(t *testing.T) {
	for _, tc := range []struct {
		limit  int
		window time.Duration
		want   string
	}{
		{100, time.Minute, "The limit of 100 requests per minute was reached."},
		{1, time.Second, "The limit of 1 request per second was reached."},
		{5, 30 * time.Second, "The limit of 5 requests per 30 seconds was reached."},
		{5, 1500 * time.Millisecond, "The limit of 5 requests per 1.5 seconds was reached."},
		{7, 90 * time.Second, "The limit of 7 requests per 1.5 minutes was reached."},
		{2, 2 * time.Hour, "The limit of 2 requests per 2 hours was reached."},
		{2, time.Hour, "The limit of 2 requests per hour was reached."},
		{9, 24 * time.Hour, "The limit of 9 requests per day was reached."},
		{9, 7 * 24 * time.Hour, "The limit of 9 requests per 7 days was reached."},
		{3, 250 * time.Millisecond, "The limit of 3 requests per 250 milliseconds was reached."},
		{3, time.Millisecond, "The limit of 3 requests per millisecond was reached."},
		{3, 1001 * time.Millisecond, "The limit of 3 requests per 1.001 seconds was reached."},
		{3, time.Minute + 2*time.Second, "The limit of 3 requests per 62 seconds was reached."},
		{3, time.Minute + 500*time.Microsecond, "The limit of 3 requests per 60000.5 milliseconds was reached."},
		{3, 2*time.Millisecond + 3*time.Nanosecond, "The limit of 3 requests per 2000.003 microseconds was reached."},
	} {
		if got := detail(tc.limit, tc.window); got != tc.want {
			t.Errorf("detail(%d, %v) = %q, want %q", tc.limit, tc.window, got, tc.want)
		}
	}
}
