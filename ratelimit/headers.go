package ratelimit

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Canonical header names, assigned to the header map directly so the hot
// path skips canonicalization.
const (
	headerLimit     = "X-Ratelimit-Limit"
	headerRemaining = "X-Ratelimit-Remaining"
	headerReset     = "X-Ratelimit-Reset"
	headerDraft     = "Ratelimit"
	headerPolicy    = "Ratelimit-Policy"
)

// resetValue caches the X-RateLimit-Reset value of the current window: it
// changes once per window, not per request.
type resetValue struct {
	unix  int64
	value []string
}

func (p *policy) resetHeader(reset time.Time) []string {
	unix := reset.Unix()
	if v := p.reset.Load(); v != nil && v.unix == unix {
		return v.value
	}
	v := &resetValue{unix: unix, value: []string{strconv.FormatInt(unix, 10)}}
	p.reset.Store(v)
	return v.value
}

// setHeaders reports the policy closest to refusing (or the refusing one):
// X-RateLimit-Limit, -Remaining and -Reset with httprate's meaning (Reset is
// the Unix second the current fixed window ends), and with WithDraftHeaders
// the structured RateLimit-Policy and RateLimit fields.
func (l *Limiter) setHeaders(h http.Header, p *policy, res result) {
	h[headerLimit] = p.limitValue
	h[headerRemaining] = []string{strconv.Itoa(res.remaining)}
	h[headerReset] = p.resetHeader(res.reset)
	if !l.draftHeaders {
		return
	}
	h[headerPolicy] = l.policyField
	until := res.retryAfter
	if res.admitted {
		until = time.Until(res.reset)
	}
	b := make([]byte, 0, 32+len(p.Name))
	b = strconv.AppendQuote(b, p.Name)
	b = append(b, ";r="...)
	b = strconv.AppendInt(b, int64(res.remaining), 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, ceilSeconds(until), 10)
	h[headerDraft] = []string{string(b)}
}

// policyField lists every policy as an sf-string item with its quota (q)
// and window in seconds (w). Names are restricted to characters that need
// no escaping in a structured-field string.
func policyField(policies []*policy) string {
	var b strings.Builder
	for i, p := range policies {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(p.Name))
		b.WriteString(";q=")
		b.WriteString(strconv.Itoa(p.Limit))
		b.WriteString(";w=")
		b.WriteString(strconv.FormatInt(ceilSeconds(p.Window), 10))
	}
	return b.String()
}

// ceilSeconds rounds up, never below 1: a client told 0 would retry at once.
func ceilSeconds(d time.Duration) int64 {
	return max(int64((d+time.Second-1)/time.Second), 1)
}
