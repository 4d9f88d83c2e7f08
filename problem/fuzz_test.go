package problem

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzAppendJSON checks that any text in any member renders as valid JSON
// that parses back to the same document.
func FuzzAppendJSON(f *testing.F) {
	f.Add("plain detail", "/v1/orders", "x", "/name", int64(2400))
	f.Add("quote \" \\ \n \x00 \u2028 <>&", "/a b", "\xff\xfe", "/~0~1", int64(0))
	f.Fuzz(func(t *testing.T, detail, instance, ext, pointer string, ms int64) {
		p := New(ValidationFailed).WithDetail(detail).WithRetryAfter(time.Duration(ms)*time.Millisecond).
			WithErrors(FieldError{Detail: detail, Pointer: pointer, Code: "min"}).
			WithExtension("note", ext).
			WithExtension("list", []any{ext, 1.5, nil, true})
		p.instance = instance
		out := p.appendJSON(nil, true)
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
		parsed, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, out)
		}
		if again := parsed.appendJSON(nil, true); !bytes.Equal(again, out) {
			t.Fatalf("round trip differs:\n%s\n%s", out, again)
		}
	})
}

// FuzzParse checks that arbitrary bodies never panic the parser and that
// whatever it accepts renders as valid JSON.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"status":404,"code":"not_found","errors":[{"detail":"x"}],"ext":{"a":[1]}}`))
	f.Add([]byte(`{"status":1e400}`))
	f.Add([]byte(`{"status":400,"a\"b":3,"x":1,"x":2,"<y>":{"10.0.0.1":1,"10.0.0.2":2}}`))
	f.Add([]byte(`{"title":"t","n":{"v":1e999999,"w":-0.0e-5}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Parse(body)
		if err != nil {
			return
		}
		if out := p.appendJSON(nil, true); !json.Valid(out) {
			t.Fatalf("accepted %q, rendered invalid %q", body, out)
		}
	})
}

// FuzzPlainWord checks the word-at-a-time scan against the byte table.
func FuzzPlainWord(f *testing.F) {
	f.Add(uint64(0x6162636465666768))
	f.Add(uint64(0x2261626364656667))
	f.Add(uint64(0x1f7f807e3c3e265c))
	f.Fuzz(func(t *testing.T, x uint64) {
		want := true
		for i := 0; i < 8; i++ {
			want = want && plainJSON[byte(x>>(8*i))]
		}
		if got := plainWord(x); got != want {
			t.Fatalf("plainWord(%#x) = %v, want %v", x, got, want)
		}
	})
}

// FuzzNegotiate checks that no Accept header panics the negotiation or
// yields a representation that does not exist, and that a header naming
// none of our types gets problem+json, never nothing.
func FuzzNegotiate(f *testing.F) {
	f.Add("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	f.Add("application/json;q=0, text/plain;q=0.1")
	f.Add(";;;q=,,,*/*;q=1.0000000")
	f.Fuzz(func(t *testing.T, accept string) {
		m := negotiate(accept)
		if m > mediaText {
			t.Fatalf("negotiate(%q) = %d", accept, m)
		}
		lower := strings.ToLower(accept)
		if !strings.ContainsAny(lower, "*") && !strings.Contains(lower, "xml") && !strings.Contains(lower, "text/plain") && m != mediaJSON {
			t.Fatalf("negotiate(%q) = %d, want problem+json", accept, m)
		}
	})
}
