package sanitize

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// Two 200-byte detail strings, typical of validation and driver messages.
var (
	benchClean  = pad("The request body failed validation: field quantity must be between 1 and 250, and field currency must be one of the supported ISO codes. Review the errors array and send the corrected request.")
	benchSecret = pad("The upstream request was rejected because the configured credential is invalid; the client sent password=Tr0ub4dor3xyz with the login call. Review the configuration of this service and retry.")
	// benchCleanMore are other clean prose of the same size, so that the
	// clean rows measure prose, not one sentence: an upstream's HTTP error,
	// a log line of identifiers and a region, a validation message of
	// numbers and capitals, and clauses in commas, colons and parentheses.
	benchCleanMore = []struct{ name, s string }{
		{"clean_upstream_200B", pad("Upstream payment gateway returned HTTP 503 Service Unavailable after 3 attempts over 12 seconds; the charge was not created and no funds were captured. Wait a minute, then retry the same call.")},
		{"clean_order_log_200B", pad("order 8812 for customer 4410 not found in region eu-west-1; the lookup ran against replica 2 and matched no rows in 27 ms, so the cart of session 90417 was left as it was and the user was told to retry")},
		{"clean_validation_200B", pad("Field Quantity must be between 1 and 999, field Currency must be one of USD, EUR or GBP, field Country must be a 2-letter ISO 3166 code, and at most 50 Items may be sent in one Order of Version 7.")},
		{"clean_punct_200B", pad("Could not save the draft (version 14): the document was changed by another editor, the title is too long (max 120 characters), and the summary, notes, and tags are empty; reload it, merge, then save.")},
	}
	// The error chain a handler returns when its database is down, as the
	// error route logs it.
	benchDSNError = `load order: dial postgres://app:hunter2-pw@10.1.2.3:5432/orders: SELECT * FROM orders WHERE id = 'ord_9': connection refused`
)

// benchSecrets are texts that hold one credential each, in the shapes real
// errors carry them, so that the secret path is measured on more than one
// sentence: a key named in prose, a header, DSNs of other schemes, a JSON
// body, a token after its name.
var benchSecrets = []struct{ name, s string }{
	{"one_secret_200B", benchSecret},
	{"api_key_prose", "upstream said: invalid API key: Xq7fK2mLp9sR4tVw8zYb for project 4821; check the key in the dashboard and retry the request once it is rotated."},
	{"bearer_header", "billing call failed with 401: the request carried\r\nAuthorization: Bearer 7dF3kq9PzL2mW8xR5tY1vB6n\r\nand the gateway refused it; renew the session."},
	{"dsn_redis", "connect to cache: dial redis://default:S3cr3tPa55-word@cache-7.example.com:6380/0: i/o timeout after 5s; the pool will retry in 2s."},
	{"json_password", `decode login payload: {"user":"alice.w","password":"Gr33n-Fields_42","remember":true} rejected by the identity service with status 422.`},
	{"token_prose", "auth: invalid token 3fa9c2e1b7d54a60 for tenant 42: refresh failed after 3 attempts (last error: EOF)"},
	{"dsn_mysql_error", "open inventory: mysql://shop_rw:Q9v!pL2x@tcp-proxy:3306/inventory: UPDATE stock SET qty = 4 WHERE sku = 'SKU-118': deadlock found"},
	// Three more of one_secret_200B's kind, with other words, separators,
	// numbers and capitals: a capitalized key after a colon, a key in a
	// query string, an environment variable in capitals.
	{"secret_colon_200B", pad("Login to the billing portal failed for account 7731 because the stored Secret: Zq8wLm3nXp2Kd9 was rejected by the upstream identity provider. Rotate it in the vault and redeploy the worker.")},
	{"secret_query_200B", pad("GET /v2/reports?format=csv&api_key=9fK2xQ7mLw3Rt8Zp returned 403 Forbidden from the partner gateway; the key may have expired or been revoked. Contact the partner to renew access.")},
	{"secret_env_200B", pad("Deployment step 4 of 9 aborted: the environment variable DB_PASSWORD=H4ppy-Tr4il-2024 is set in plain text in the job config, which the policy forbids. Move it to the secret store and retry.")},
}

func pad(s string) string {
	if len(s) < 200 {
		s += strings.Repeat(".", 200-len(s))
	}
	return s[:200]
}

// naiveRules is the baseline the prefilter is measured against: every rule
// as a regular expression, all applied in sequence to every text.
var naiveRules = []*regexp.Regexp{
	regexp.MustCompile(`goroutine \d+ \[|\.go:\d+|panic\(|\[signal `),
	regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\z)`),
	regexp.MustCompile(`(?:AKIA|ASIA)[A-Z0-9]{16,}`),
	regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`eyJ[A-Za-z0-9_-]{2,}\.eyJ[A-Za-z0-9_-]{2,}(?:\.[A-Za-z0-9_-]+)?`),
	regexp.MustCompile(`xox[abeoprs]-[A-Za-z0-9-]{8,}|(?:https?://)?hooks\.slack\.com/[A-Za-z0-9_/-]+`),
	regexp.MustCompile(`(?i)\b(?:bearer|basic)[ \t]+[A-Za-z0-9\-._~+/]+=*|(?i)\bdigest[ \t]+\w+=[^\r\n]*`),
	regexp.MustCompile(`(?i)(?:proxy-)?(?:authorization|cookie)\\?["']?[ \t]*[:=][ \t]*(?:"[^"\r\n]*"?|[^\r\n]+)`),
	regexp.MustCompile(`(?i)(?:password|passwd|passphrase|pass|pwd|secret|token|` +
		`(?:api|access|secret|private|signing|encryption|master|client)[_-]?key|apikey|` +
		`credentials?|session[_-]?id|signature)\\?["']?[ \t]*(?::=|[:=])[ \t]*` +
		`(?:\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\\r\n]|\\.)*"?|'[^'\r\n]*'?|[^\s&,;"'<>)}]+)`),
	regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s/?#]+@`),
	regexp.MustCompile(`[^\s"'(]+@(?:tcp6?|udp|unix)\(`),
	regexp.MustCompile(`Key \([^)]*\)=\([^\r\n]*?\)|Failing row contains \([^\r\n]*\)|Duplicate entry '[^\r\n]*' for key|near '[^\r\n]*' at line \d+`),
	regexp.MustCompile(`\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?::\d+)?\b`),
	regexp.MustCompile(`(?i)\[?\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f:.]*(?:%[\w-]+)?\]?(?::\d+)?|::(?:[0-9a-f]{1,4})?\b`),
	regexp.MustCompile(`(?i)\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:internal|local|localdomain|svc|consul|corp|lan|intranet)\b`),
	regexp.MustCompile(`(?:^|[\s"'=(])/(?:home|root|etc|var|usr|opt|tmp|srv|proc|sys|dev|app|go|Users|private|mnt|run|lib|bin)/[^\s"'<>|:;,()\[\]{}]*`),
	regexp.MustCompile(`\b[A-Za-z]:[\\/][^\s"'<>|:;,]*|\\\\\w[^\s"'<>|:;,]*`),
}

func naive(s string) string {
	for _, re := range naiveRules {
		s = re.ReplaceAllString(s, Redacted)
	}
	return s
}

var sink string

func BenchmarkPublic(b *testing.B) {
	b.Run("clean_200B", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = Public(benchClean)
		}
	})
	for _, in := range append(benchCleanMore, benchSecrets...) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Public(in.s)
			}
		})
	}
}

func BenchmarkNaive(b *testing.B) {
	b.Run("clean_200B", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = naive(benchClean)
		}
	})
	b.Run("one_secret_200B", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = naive(benchSecret)
		}
	})
}

func BenchmarkLog(b *testing.B) {
	b.Run("clean_200B", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = Log(benchClean)
		}
	})
	for _, in := range append(benchCleanMore, benchSecrets...) {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Log(in.s)
			}
		})
	}
	b.Run("dsn_error_130B", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = Log(benchDSNError)
		}
	})
	// A fresh correlation ID on every call, as on every request's record:
	// random digits, which a branch per digit would mispredict.
	b.Run("fresh_uuid", func(b *testing.B) {
		ids := make([]string, 4096)
		for i := range ids {
			var u [16]byte
			_, _ = rand.Read(u[:])
			ids[i] = fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			sink = Log(ids[i%len(ids)])
			i++
		}
	})
}

// worstUnits are the repetitions that cost the most per byte, in either
// tier, among hostileUnits (see TestLinearWork).
var worstUnits = []string{"token=", "Cookie: ", "passwd:", "password='", `\"password\":\"`, "sk-", "test_", "eyJ-", "a.ey", "Key (", "::", "://a@", "<token>a"}

// BenchmarkWorst runs each tier over 64 KiB of one hostile repetition (the
// public tier reads its first MaxPublicLen bytes).
func BenchmarkWorst(b *testing.B) {
	for _, u := range worstUnits {
		s := fill(u)
		b.Run("Public/"+u, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				sink = Public(s)
			}
		})
		b.Run("Log/"+u, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				sink = Log(s)
			}
		})
	}
}

// TestBenchInputs keeps the benchmark honest: the clean input must be clean
// and the secret input must lose its secret, in both implementations.
func TestBenchInputs(t *testing.T) {
	if len(benchClean) != 200 || len(benchSecret) != 200 {
		t.Fatal("benchmark inputs must be 200 bytes")
	}
	if Public(benchClean) != benchClean || naive(benchClean) != benchClean {
		t.Fatal("clean input changed")
	}
	for _, in := range benchCleanMore {
		if len(in.s) != 200 || Public(in.s) != in.s || Log(in.s) != in.s {
			t.Fatalf("%s: clean input of %d bytes changed: %q, %q", in.name, len(in.s), Public(in.s), Log(in.s))
		}
	}
	for _, got := range []string{Public(benchSecret), naive(benchSecret)} {
		if strings.Contains(got, "Tr0ub4dor3xyz") {
			t.Fatalf("secret survived: %q", got)
		}
	}
	for _, in := range benchSecrets {
		for _, got := range []string{Public(in.s), Log(in.s)} {
			if got == in.s {
				t.Fatalf("%s: nothing redacted: %q", in.name, got)
			}
		}
	}
	if got := Log(benchDSNError); strings.Contains(got, "hunter2") || !strings.Contains(got, "10.1.2.3") {
		t.Fatalf("log tier: %q", got)
	}
}

// hostile64K are 64 KiB texts that no rule was written for, or that
// trigger one rule on every few bytes: random bytes (controls, invalid
// UTF-8, every punctuation byte), random printable ASCII, repeated token
// prefixes and key names, one long number, one long base64 run, escapes
// nested in escapes, runs of \u escapes, keys and values hidden behind
// escapes on every few bytes, one line of percent-encoded slashes, HTML
// references, base64 user:password pairs, one base64 line with '=' every
// 50 bytes, a JSON array of token objects, CJK and Cyrillic prose, and NUL
// bytes (each escaped to six).
var hostile64K = []struct{ name, s string }{
	{"random_bytes", randomText(64<<10, false)},
	{"random_ascii", randomText(64<<10, true)},
	{"sk-", fill("sk-")},
	{"key=", fill("key=")},
	{"password: ", fill("password: ")},
	{"digits", fill("4111111111111111")},
	{"base64", fill(base64Run)},
	{"json_escapes", fill(`{\"a\":\"\\u0070ass\\\"`)},
	{"nested_escapes", fill(`\\\\\\\"`)},
	{"u_runs", fill(`\u0070\u0061\u0073\u0073`)},
	{"hidden_keys", fill(`\u0070assword=\u0068unter2 `)},
	{"percent_2F", fill("%2F")},
	{"html_refs", fill("&#x67;hp_&quot;")},
	{"base64_userpass", fill(": dXNlcjpwYXNzd29yZA== ")},
	{"base64_eq50", fill(base64Run[:49] + "=")},
	{"json_tokens", "[" + fill(`{"token":"tk_4f9a2c7e1b8d3f6a0c5e9b2d7a4f1c8e"},`)},
	{"cjk_cyrillic", fill("错误：上游服务拒绝了请求。Ошибка: сервер отклонил запрос. ")},
	{"nul", fill("\x00")},
	// Bytes that start or end most rules, drawn at random; words of
	// credentials, schemes, escapes and options in random order; shapes
	// that each cost an allocation or a read to the end per occurrence
	// until 2026-12-07.
	{"trigger_bytes", randomWords(64<<10, strings.Split(`apsword:=@/ "'k\u0%-_.`, ""), 1)},
	{"credential_words", randomWords(64<<10, strings.Split(`pass|word|=|:|@|/|//|Bearer |sk-|ghp_|AKIA|0123456789|abcdef| |\u0070|%70|&#x70;|Basic |-p|mysql |\n|$PW`, "|"), 4)},
	{"mysql_escaped_breaks", fill(`mysql -p\n`)},
	{"basic_words", fill("basic 0123456789= x ")},
	{"placeholders", fill("api_key=${Api_Key}\n")},
}

// randomWords returns n bytes of words drawn from a fixed seed.
func randomWords(n int, words []string, seed uint64) string {
	pick := xorshiftPicker(seed)
	b := make([]byte, 0, n+64)
	for len(b) < n {
		b = append(b, words[pick(len(words))]...)
	}
	return string(b[:n])
}

// base64Run is a base64 alphabet run with no break.
const base64Run = "QWxhZGRpbjpvcGVuIHNlc2FtZQ+/0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// fill repeats u to 64 KiB.
func fill(u string) string { return strings.Repeat(u, (64<<10)/len(u)) }

// BenchmarkLogHostile64K runs the log tier over each of hostile64K.
func BenchmarkLogHostile64K(b *testing.B) {
	for _, in := range hostile64K {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for b.Loop() {
				sink = Log(in.s)
			}
		})
	}
}

// randomText returns n bytes from a fixed seed, printable ASCII only when
// ascii is set.
func randomText(n int, ascii bool) string {
	b := make([]byte, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
		if ascii {
			b[i] = ' ' + byte(x%95)
		}
	}
	return string(b)
}
