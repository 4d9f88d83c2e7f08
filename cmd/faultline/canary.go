package main

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
)

// canaries are secrets planted in requests that must never come back. Each
// run draws its own, so a hit is this run's and not a cached page's.
type canaries struct {
	// token has a vendor prefix, as a leaked GitHub token would.
	token string
	// password is the secret part of dsn.
	password string
	dsn      string
	// addr is a private address (RFC 1918).
	addr string
	// injected is written after a CR LF inside a header value: a header
	// by that name, or this value, in the answer means the value was split
	// into headers of the answer.
	injected string
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func randomText(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b)
}

func newCanaries() canaries {
	var b [3]byte
	_, _ = rand.Read(b[:])
	pw := "Fl7" + randomText(16)
	return canaries{
		token:    "ghp_" + randomText(36),
		password: pw,
		dsn:      "postgres://probe:" + pw + "@db.internal:5432/app",
		addr:     fmt.Sprintf("10.%d.%d.%d", b[0], b[1], b[2]|1),
		injected: "fpinj" + randomText(12),
	}
}

// injectedHeader is the header name a CR LF in X-Request-Id tries to add.
const injectedHeader = "X-Faultline-Injected"

// found names the canaries an answer carries, in its headers or its body.
func (c canaries) found(header http.Header, body []byte) []string {
	var text strings.Builder
	for name, values := range header {
		text.WriteString(name + ": " + strings.Join(values, ", ") + "\n")
	}
	text.Write(body)
	s := text.String()
	var hits []string
	for _, k := range []struct{ what, value string }{
		{"the vendor token", c.token},
		{"the DSN's password", c.password},
		{"the private address " + c.addr, c.addr},
	} {
		if strings.Contains(s, k.value) {
			hits = append(hits, k.what)
		}
	}
	return hits
}
