package problem

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/correlation"
)

var update = flag.Bool("update", false, "rewrite golden files and README's code table")

// samples are the problems the golden files pin down, one per shape.
func samples() map[string]*Problem {
	rate := New(RateLimited).WithDetail("The limit of 100 requests per minute was reached.").WithRetryAfter(2400 * time.Millisecond)
	rate.typ = DefaultBaseURI + "rate_limited"
	rate.instance = "/v1/orders"
	rate.correlationID = "0193b1c2-7d1e-7a3b-9c4d-5e6f70819203"

	invalid := New(ValidationFailed).WithErrors(
		FieldError{Detail: "must be at least 3 characters", Pointer: "/name", Code: "min"},
		FieldError{Detail: "must be a valid email address", Pointer: "/customer/email", Code: "email"},
		FieldError{Detail: "is required", Pointer: "/items/0/sku", Code: "required"},
	)
	invalid.instance = "/v1/orders"
	invalid.correlationID = "req-12345678"

	timeout := New(Timeout).ForRequest(httptest.NewRequest("POST", "/v1/orders", nil)).
		WithExtension("deadline_ms", 5000).
		WithExtension("hints", []string{"retry with an Idempotency-Key", "<script>"})
	timeout.instance = "/v1/orders"

	escaping := New(BadRequest).WithDetail("quote \" backslash \\ tab \t newline \n bell \a html <b>&</b> ls \u2028 bad \xff end")
	return map[string]*Problem{"rate_limited": rate, "validation_failed": invalid, "timeout": timeout, "escaping": escaping}
}

func TestGoldenJSON(t *testing.T) {
	for name, p := range samples() {
		for _, legacy := range []bool{false, true} {
			file := name
			if legacy {
				file += "_legacy"
			}
			got := p.appendJSON(nil, legacy)
			if !json.Valid(got) {
				t.Fatalf("%s: invalid JSON: %s", file, got)
			}
			var indented bytes.Buffer
			if err := json.Indent(&indented, got, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "golden", file+".json"), indented.Bytes())
		}
	}
}

func TestGoldenXML(t *testing.T) {
	for name, p := range samples() {
		got := p.appendXML(nil, true)
		dec := xml.NewDecoder(bytes.NewReader(got))
		for {
			if _, err := dec.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%s: not well-formed XML: %v\n%s", name, err, got)
				}
				break
			}
		}
		golden(t, filepath.Join("testdata", "golden", name+".xml"), got)
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./problem -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s drifted:\n got: %s\nwant: %s", path, got, want)
	}
}

func TestJSONMemberOrderAndValues(t *testing.T) {
	p := samples()["rate_limited"]
	got := string(p.appendJSON(nil, true))
	want := `{"type":"https://faultline.dev/problems/rate_limited","title":"Too many requests","status":429,` +
		`"detail":"The limit of 100 requests per minute was reached.","instance":"/v1/orders","code":"rate_limited",` +
		`"action":"retry","cause":"request","retryable":true,"retry_after_ms":2400,` +
		`"correlation_id":"0193b1c2-7d1e-7a3b-9c4d-5e6f70819203","error":"rate_limited",` +
		`"message":"The limit of 100 requests per minute was reached."}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	p := New(BadRequest).WithDetail("a\xffb\xc3")
	var decoded struct{ Detail string }
	if err := json.Unmarshal(p.appendJSON(nil, false), &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded.Detail != "a\uFFFDb\uFFFD" {
		t.Fatalf("detail = %q", decoded.Detail)
	}
}

func TestParseRoundTrip(t *testing.T) {
	for name, p := range samples() {
		body := p.appendJSON(nil, true)
		parsed, err := Parse(body)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if again := parsed.appendJSON(nil, true); !bytes.Equal(again, body) {
			t.Errorf("%s: round trip changed the document:\n%s\n%s", name, body, again)
		}
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{}`, `{"status":"x"}`, `{"status":500} {}`, `{"status":500`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted a non-problem", bad)
		}
	}
}

func TestExtensionNames(t *testing.T) {
	p := New(Conflict)
	for _, name := range []string{"type", "code", "retry_after_ms", "errors", "message", "error"} {
		if q := p.WithExtension(name, 1); !errors.Is(q.buildErr, errReservedExtension) || len(q.ext) != 0 {
			t.Errorf("reserved %q accepted", name)
		}
	}
	for _, name := range []string{"ab", "1abc", "_abc", "a-bc", "a bc", "ünï", "a.bc", strings.Repeat("a", 65)} {
		if q := p.WithExtension(name, 1); !errors.Is(q.buildErr, errExtensionName) || len(q.ext) != 0 {
			t.Errorf("invalid name %q accepted", name)
		}
	}
	for _, name := range []string{"balance", "Accounts", "order_id2"} {
		p = p.WithExtension(name, 1)
		if p.buildErr != nil {
			t.Errorf("%q refused: %v", name, p.buildErr)
		}
	}
	q := p.WithExtension("balance", 30)
	if v, _ := q.Extension("balance"); v != 30 {
		t.Errorf("setting a name twice should replace, got %v", v)
	}
	if v, _ := p.Extension("balance"); v != 1 {
		t.Errorf("WithExtension changed its receiver: balance = %v", v)
	}
	if n := len(q.ext); n != 3 {
		t.Errorf("%d extensions, want 3", n)
	}
}

func TestOtherSurfaces(t *testing.T) {
	p := New(ValidationFailed).WithDetail("Two fields are invalid.\nSecond line").
		WithErrors(FieldError{Detail: "is required", Pointer: "/name", Code: "required"})
	p.correlationID = "req-12345678"
	if got, want := p.cliLine(), "validation_failed: Two fields are invalid. Second line"; got != want {
		t.Errorf("cliLine = %q, want %q", got, want)
	}
	text := string(p.appendText(nil, "Acme\r\nAPI"))
	first, _, _ := strings.Cut(text, "\n")
	if first != "Acme  API: validation_failed: Two fields are invalid. Second line" {
		t.Errorf("text first line = %q", first)
	}
	if json.Valid([]byte(text)) || !strings.Contains(text, "correlation_id: req-12345678\n") {
		t.Errorf("text plane = %q", text)
	}
	if p.RPCCode() != RPCInvalidParams {
		t.Errorf("RPCCode = %d", p.RPCCode())
	}
	for code, want := range map[Kind]int{InvalidJSON: RPCInvalidRequest, BadRequest: RPCInvalidParams, Internal: RPCInternalError, NotFound: RPCInvalidParams, RateLimited: RPCInternalError, RequestTooLarge: RPCInvalidRequest} {
		if got := New(code).RPCCode(); got != want {
			t.Errorf("%s: RPCCode = %d, want %d", code, got, want)
		}
	}
}

func TestBidiControlsNeverRendered(t *testing.T) {
	p := New(BadRequest).WithDetail("file \u202Egnp.exe and \u2066x\u2069")
	p.instance = "/v1/\u202Efiles"
	surfaces := map[string]string{
		"json": string(p.appendJSON(nil, true)),
		"xml":  string(p.appendXML(nil, true)),
		"text": string(p.appendText(nil, "Acme")),
		"cli":  p.cliLine(),
	}
	for name, out := range surfaces {
		if strings.ContainsAny(out, "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069") {
			t.Errorf("%s carries a bidi control: %q", name, out)
		}
	}
}

// TestValidIDBytesArePlainJSON is why an accepted correlation ID is copied
// into the body as it is (correlationPlain): every byte correlation.Valid
// allows is one appendString leaves alone, so the copy is the rendering.
func TestValidIDBytesArePlainJSON(t *testing.T) {
	allowed := 0
	for c := range 256 {
		id := strings.Repeat(string(rune(c)), 8)
		if c >= 0x80 || !correlation.Valid(id) {
			continue
		}
		allowed++
		if got := string(appendString(nil, id)); got != `"`+id+`"` {
			t.Errorf("byte %q: appendString gives %s", rune(c), got)
		}
	}
	if allowed != 26+26+10+7 {
		t.Fatalf("%d bytes allowed, want the alphabet of Valid's doc", allowed)
	}
}
