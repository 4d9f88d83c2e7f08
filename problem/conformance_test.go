package problem

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestParseReadsPeerDocuments proves issue 10 item 7: RFC 9457's own
// examples (no status), bodies from huma v2 and moogar0880/problems, and
// members of the wrong type are read, keeping what can be kept.
func TestParseReadsPeerDocuments(t *testing.T) {
	cases := map[string]struct {
		body  string
		check func(p *Problem) bool
	}{
		"RFC 9457 §3 out-of-credit": {`{
 "type": "https://example.com/probs/out-of-credit",
 "title": "You do not have enough credit.",
 "detail": "Your current balance is 30, but that costs 50.",
 "instance": "/account/12345/msgs/abc",
 "balance": 30,
 "accounts": ["/account/12345", "/account/67890"]
}`, func(p *Problem) bool {
			b, _ := p.Extension("balance")
			return p.typ == "https://example.com/probs/out-of-credit" && p.status == 0 &&
				p.instance == "/account/12345/msgs/abc" && b == json.Number("30") && len(p.ext) == 2
		}},
		"RFC 9457 §3 validation": {`{
"type": "https://example.net/validation-error",
"title": "Your request is not valid.",
"errors": [
            {"detail": "must be a positive integer", "pointer": "#/age"},
            {"detail": "must be 'green', 'red' or 'blue'", "pointer": "#/profile/color"}
         ]
}`, func(p *Problem) bool {
			return len(p.fieldErrors) == 2 && p.fieldErrors[1].Pointer == "#/profile/color" && p.title == "Your request is not valid."
		}},
		"huma v2 ErrorModel": {`{"$schema":"http://localhost:8888/schemas/ErrorModel.json","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"message":"expected number >= 1","location":"body.count","value":0}]}`,
			func(p *Problem) bool {
				s, _ := p.Extension("$schema")
				return p.status == 422 && len(p.fieldErrors) == 1 && p.fieldErrors[0].Detail == "expected number >= 1" && s != nil
			}},
		"moogar0880/problems default": {`{"type":"about:blank","title":"Not Found","status":404,"detail":"no such widget"}`,
			func(p *Problem) bool {
				return p.typ == "about:blank" && p.status == 404 && p.detail == "no such widget"
			}},
		"wrong types ignored": {`{"status":"404","title":7,"errors":["x"],"detail":"kept","retryable":"yes","retry_after_ms":-5,"action":"dance"}`,
			func(p *Problem) bool {
				return p.status == 0 && p.title == "" && p.fieldErrors == nil && p.detail == "kept" && !p.retryable && p.retryAfter == 0 && p.action == "dance"
			}},
	}
	for name, c := range cases {
		p, err := Parse([]byte(c.body))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !c.check(p) {
			t.Errorf("%s: parsed %+v", name, p)
		}
		if out := p.AppendJSON(nil); !json.Valid(out) {
			t.Errorf("%s: re-rendered invalid JSON %s", name, out)
		}
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{}`, `{"status":"x"}`, `{"foo":1}`, `{"status":500} {}`, `{"status":500} x`, `{"status":500`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted a non-problem", bad)
		}
	}
}

// TestInstanceIsAURIReference proves issue 10 item 8: instance is the
// escaped path, identical in JSON and XML, and redacted like any public
// text.
func TestInstanceIsAURIReference(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	cases := map[string]string{
		"/no%20where%22%3E":     "/no%20where%22%3E",
		"/a%00b":                "/a%00b",
		"/v1/orders/%2F..%2Fx":  "/v1/orders/%2F..%2Fx",
		"/v1/orders/%E2%80%AEx": "/v1/orders/%E2%80%AEx",
		"/v1/keys/ghp_0123456789abcdefghijABCDEFGHIJ012345": "/v1/keys/%5Bredacted%5D",
	}
	for target, want := range cases {
		got := map[string]string{}
		for _, accept := range []string{"application/problem+json", "application/problem+xml"} {
			r := httptest.NewRequest("GET", target, nil)
			r.Header.Set("Accept", accept)
			rec := httptest.NewRecorder()
			_ = wr.Write(rec, r, New(NotFound))
			if strings.Contains(accept, "json") {
				var m map[string]any
				_ = json.Unmarshal(rec.Body.Bytes(), &m)
				got["json"], _ = m["instance"].(string)
			} else {
				var x struct {
					Instance string `xml:"instance"`
				}
				if err := xml.Unmarshal(rec.Body.Bytes(), &x); err != nil {
					t.Fatal(err)
				}
				got["xml"] = x.Instance
			}
		}
		if got["json"] != want || got["xml"] != want {
			t.Errorf("%s: instance json %q xml %q, want %q", target, got["json"], got["xml"], want)
		}
	}
	// An instance set by hand is made a URI reference too.
	p := New(NotFound)
	p.instance = "/a b\x00<c>"
	if got := string(p.AppendJSON(nil)); !strings.Contains(got, `"instance":"/a%20b%00%3Cc%3E"`) {
		t.Errorf("hand-set instance: %s", got)
	}
}

// TestXMLCarriesNestedKeys proves issue 10 item 9: every member JSON
// carries is in XML too, nested keys included, and names XML cannot take
// as element names survive as <member name="...">.
func TestXMLCarriesNestedKeys(t *testing.T) {
	p := New(Conflict).WithExtension("links", map[string]any{"id": "a1", "url": "/account/1", "1st": 1, "a b": true, "xmlns": "z"})
	out := string(p.appendXML(nil, false))
	for _, want := range []string{"<id>a1</id>", "<url>/account/1</url>", `<member name="1st">1</member>`, `<member name="a b">true</member>`, `<member name="xmlns">z</member>`} {
		if !strings.Contains(out, want) {
			t.Errorf("XML lacks %s: %s", want, out)
		}
	}
	wellFormed(t, []byte(out))
}

func wellFormed(t *testing.T, doc []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		if _, err := dec.Token(); err != nil {
			if err != io.EOF {
				t.Fatalf("not well-formed XML: %v\n%q", err, doc)
			}
			return
		}
	}
}

// TestParsedNamesRenderSafely proves issue 10 item 15: whatever names a
// peer's document holds, re-rendering it gives valid JSON with unique
// names and well-formed XML.
func TestParsedNamesRenderSafely(t *testing.T) {
	for _, body := range []string{
		`{"status":400,"a\"b":3}`,
		`{"status":400,"x":1,"x":2}`,
		`{"status":400,"<a>":{"k\"":1},"xml":2,"":3,"10.0.0.1":1,"10.0.0.2":2}`,
		`{"status":400,"error":"legacy","message":"legacy","errors":[{"detail":1}]}`,
	} {
		p, err := Parse([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		for _, legacy := range []bool{false, true} {
			out := p.appendJSON(nil, legacy)
			if err := uniqueJSON(out); err != nil {
				t.Errorf("%s: %v\n%s", body, err, out)
			}
			wellFormed(t, p.appendXML(nil, legacy))
		}
	}
}

// TestNumbersAndKeysStayValid proves issue 10 item 16 for the cases the
// issue names.
func TestNumbersAndKeysStayValid(t *testing.T) {
	for _, n := range []string{"NaN", "-Inf", "+1", ".5", "0x1p4", "01", "1_0", "", "1.", "1e", "-", "1e5", "-0.5E-3"} {
		p := New(Conflict).WithExtension("amount", json.Number(n))
		out := p.AppendJSON(nil)
		if err := uniqueJSON(out); err != nil {
			t.Errorf("json.Number(%q): %v: %s", n, err, out)
		}
		wellFormed(t, p.appendXML(nil, false))
	}
	p := New(Conflict).WithExtension("hosts", map[string]any{"10.0.0.1": 1, "10.0.0.2": 2, "[redacted]": 3})
	out := p.AppendJSON(nil)
	if err := uniqueJSON(out); err != nil || strings.Contains(string(out), "10.0.0") {
		t.Errorf("%v: %s", err, out)
	}
	var m map[string]map[string]any
	_ = json.Unmarshal(out, &m)
	if len(m["hosts"]) != 3 {
		t.Errorf("members merged: %s", out)
	}
}

// uniqueJSON reports whether doc is valid JSON with no member name
// repeated in any object.
func uniqueJSON(doc []byte) error {
	if !json.Valid(doc) {
		return errInvalidJSON
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	return walkUnique(dec)
}

var (
	errInvalidJSON = jsonErr("invalid JSON")
	errDuplicate   = jsonErr("duplicate member name")
)

type jsonErr string

func (e jsonErr) Error() string { return string(e) }

func walkUnique(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			if seen[k.(string)] {
				return errDuplicate
			}
			seen[k.(string)] = true
			if err := walkUnique(dec); err != nil {
				return err
			}
		}
	case '[':
		for dec.More() {
			if err := walkUnique(dec); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token()
	return err
}

// TestPeerTextPassesPublicTier: a relayed peer document may hold anything
// in any member; what the kit renders of it passes the public tier.
func TestPeerTextPassesPublicTier(t *testing.T) {
	p, err := Parse([]byte(`{"type":"https://a.example/p?token=abc123","title":"db at 10.0.0.5 failed","status":500,` +
		`"code":"password=hunter2","correlation_id":"token=xyz789","errors":[{"detail":"d","pointer":"/hosts/10.0.0.6","code":"secret=s3"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{string(p.appendJSON(nil, true)), string(p.appendXML(nil, true)), p.cliLine(), p.Error()} {
		for _, leak := range []string{"abc123", "10.0.0.5", "hunter2", "xyz789", "10.0.0.6", "s3<", `s3"`} {
			if strings.Contains(out, leak) {
				t.Errorf("peer text %q rendered: %s", leak, out)
			}
		}
	}
}

// RFC 8259 §8.1 lets a reader ignore a byte order mark; peers on Windows
// stacks send one.
func TestParseSkipsByteOrderMark(t *testing.T) {
	p, err := Parse([]byte("\ufeff" + `{"type":"about:blank","status":404,"title":"Not Found"}`))
	if err != nil || p.status != 404 || p.title != "Not Found" {
		t.Fatalf("Parse with BOM: %+v, %v", p, err)
	}
}
