package ratelimit

import "time"

// WithProbeInterval shortens how often, while Redis is down, one request
// tries it again (1s outside tests), so outage tests take milliseconds.
func WithProbeInterval(d time.Duration) Option { return func(c *config) { c.probeInterval = d } }

// ErrEmptyKey is the error a key function of this package returns when the
// request carries nothing to key by.
var ErrEmptyKey = errEmptyKey
