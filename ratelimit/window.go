package ratelimit

import (
	"math"
	"time"
)

// httprate admits a request when round(rate)+1 <= limit, where
//
//	rate = prev*(window-elapsed)/window + curr
//
// counts the previous window's requests in proportion to how much of it the
// sliding window still covers. The same rule is used by the in-memory path
// (httprate itself) and by the Redis script, so both agree on who is
// admitted; the functions here derive what the response reports from it.

// rate is httprate's sliding-window estimate.
func rate(curr, prev int64, window, elapsed time.Duration) float64 {
	return float64(prev)*float64(window-elapsed)/float64(window) + float64(curr)
}

// remaining is what is left of the limit after the counts, as httprate
// rounds it.
func remaining(limit int, curr, prev int64, window, elapsed time.Duration) int {
	left := limit - int(math.Round(rate(curr, prev, window, elapsed)))
	return max(left, 0)
}

// retryAfter is the real time until one more request would be admitted. A
// refused client told the static window length would either come back far
// too late or, if it guessed, too early; this is the exact moment the
// previous window's weight has decayed enough. It is never below one
// millisecond, so a refusal always carries a positive retry time, and it is
// a whole number of milliseconds, so retry_after_ms and the Retry-After
// header (its ceiling in seconds) describe the same instant.
func retryAfter(limit int, curr, prev int64, window, elapsed time.Duration) time.Duration {
	// Admission needs rate < limit - 0.5 (round half up, plus this request).
	budget := float64(limit) - 0.5
	w := float64(window)
	var at float64 // offset from the current window's start
	switch {
	case float64(curr) < budget && prev > 0:
		// Only the previous window's decaying share stands in the way.
		at = w - (budget-float64(curr))*w/float64(prev)
	case float64(curr) >= budget:
		// This window alone is full: wait until the next one, where the
		// current count becomes the decaying previous share.
		at = 2*w - budget*w/float64(curr)
	}
	d := time.Duration(math.Ceil(at)) + 1 - elapsed
	d = (d + time.Millisecond - 1).Truncate(time.Millisecond)
	return max(d, time.Millisecond)
}
