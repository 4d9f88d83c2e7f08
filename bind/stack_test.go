package bind_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/go-chi/chi/v5"
	"github.com/go-json-experiment/json/jsontext"
)

// stackServer serves handle behind middleware.Stack on a chi router, as a
// service following the README does.
func stackServer(t *testing.T, handle func(r *http.Request) error) *httptest.Server {
	t.Helper()
	r := chi.NewRouter()
	r.Use(middleware.Stack(middleware.WithBodyLimit(1 << 16)))
	r.Post("/", func(w http.ResponseWriter, r *http.Request) {
		if err := handle(r); err != nil {
			_ = problem.Write(w, r, problem.From(r, err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

// postJSON sends body as application/json asking for accept, with the
// header pairs in hdr, and returns the status and the response body.
func postJSON(t *testing.T, url, accept, body string, hdr ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

type street struct {
	Street string `json:"street" validate:"required"`
	ID     int    `json:"id" validate:"min=1"`
}

type household struct {
	Home   street            `json:"home"`
	Root   *street           `json:"root"`
	Opt    []street          `json:"opt" validate:"dive"`
	Var    map[string]street `json:"var" validate:"dive"`
	Labels map[string]string `json:"labels" validate:"dive,min=2"`
}

// Pointers address members a client named; to the public tier some read
// like file paths (/home/..., /root/..., /opt/..., /var/...), and a
// pointer sent as "[redacted]" addresses nothing. A secret sent as a
// member name is still hidden.
func TestPointersThatReadLikePathsReachTheClient(t *testing.T) {
	srv := stackServer(t, func(r *http.Request) error {
		_, err := bind.Decode[household](r)
		return err
	})
	token := "ghp_" + strings.Repeat("aB3", 12)
	body := `{"home":{"id":1},"root":{"street":"x"},"opt":[{"street":"y","id":0}],"var":{"etc":{"id":2}},"labels":{"` + token + `":"y"}}`
	want := []string{"/home/street", "/root/id", "/opt/0/id", "/var/etc/street", "/labels/[redacted]"}
	for _, accept := range []string{"application/problem+json", "application/problem+xml", "text/plain"} {
		status, raw := postJSON(t, srv.URL, accept, body)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: status %d: %s", accept, status, raw)
		}
		if strings.Contains(string(raw), token) {
			t.Errorf("%s: the token sent as a member name reached the client: %s", accept, raw)
		}
		var got []string
		switch accept {
		case "application/problem+json", "application/problem+xml":
			var doc struct {
				Errors []struct {
					Pointer string `json:"pointer" xml:"pointer"`
				} `json:"errors" xml:"errors>i"`
			}
			if accept == "application/problem+json" {
				err := json.Unmarshal(raw, &doc)
				if err != nil {
					t.Fatal(err)
				}
			} else if err := xml.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			for _, fe := range doc.Errors {
				got = append(got, fe.Pointer)
			}
		default:
			for _, line := range strings.Split(string(raw), "\n") {
				if v, ok := strings.CutPrefix(line, "error: "); ok {
					got = append(got, strings.Fields(v)[0])
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: pointers %q, want %q", accept, got, want)
		}
	}
}

type inventory struct {
	Name  string                       `json:"name" validate:"required"`
	Bins  map[string]street            `json:"bins" validate:"dive"`
	Tags  map[string]map[string]string `json:"tags" validate:"dive,dive,min=2"`
	Owner string                       `json:"owner" validate:"required"`
}

// validator visits a map's entries in Go's random map order; the same
// request must get the same errors array every time, a map's entries in
// key order, the rest in the struct's order.
func TestMapEntriesAreListedInKeyOrder(t *testing.T) {
	srv := stackServer(t, func(r *http.Request) error {
		_, err := bind.Decode[inventory](r)
		return err
	})
	body := `{"bins":{"b":{"id":1},"10":{"street":"s"},"a/b":{},"9":{"id":2},"a":{"id":3}},
		"tags":{"y":{"q":"1","p":"2"},"x":{"k":"3"}}}`
	want := []string{"/name",
		"/bins/10/id", "/bins/9/street", "/bins/a/street", "/bins/a~1b/street", "/bins/a~1b/id", "/bins/b/street",
		"/tags/x/k", "/tags/y/p", "/tags/y/q", "/owner"}
	for range 20 {
		status, raw := postJSON(t, srv.URL, "application/problem+json", body)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d: %s", status, raw)
		}
		var doc struct {
			Errors []struct {
				Pointer string `json:"pointer"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, fe := range doc.Errors {
			got = append(got, fe.Pointer)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("pointers\n%q\nwant\n%q", got, want)
		}
	}
}

// The targets a service gets wrong, on purpose: tags the decoder refuses,
// and a struct with no field it can set.
type repeatedOption struct {
	//lint:ignore SA5008 the tag is broken on purpose: the decoder must refuse it
	Name string `json:"name,omitempty,omitempty"`
}

type trailingComma struct {
	//lint:ignore SA5008 the tag is broken on purpose: the decoder must refuse it
	Name string `json:"name,"`
}

type unknownCase struct {
	//lint:ignore SA5008 the tag is broken on purpose: the decoder must refuse it
	Name string `json:"name,case:loose"`
}

type onlyUnexported struct {
	//lint:ignore U1000 the field is unexported on purpose: the decoder must find none
	name string
}

type outerOfBroken struct {
	ID    int            `json:"id"`
	Inner repeatedOption `json:"inner"`
}

// A struct the decoder cannot use (json tags it cannot read, no field it
// can fill) refuses every body; that is the service's mistake, not the
// client's, so it must not be answered as invalid_json or
// validation_failed, which tell the client to fix a body it cannot fix.
func TestUnusableTargetIsTheServicesFault(t *testing.T) {
	decoders := map[string]func(*http.Request) error{
		"repeated":   func(r *http.Request) error { _, err := bind.Decode[repeatedOption](r); return err },
		"trailing":   func(r *http.Request) error { _, err := bind.Decode[trailingComma](r); return err },
		"case":       func(r *http.Request) error { _, err := bind.Decode[unknownCase](r); return err },
		"unexported": func(r *http.Request) error { _, err := bind.Decode[onlyUnexported](r); return err },
		"nested":     func(r *http.Request) error { _, err := bind.Decode[outerOfBroken](r); return err },
	}
	srv := stackServer(t, func(r *http.Request) error { return decoders[r.URL.Query().Get("t")](r) })
	for _, c := range []struct{ target, body string }{
		{"repeated", `{}`}, {"repeated", `{"name":"x"}`}, {"trailing", `{"name":"x"}`}, {"case", `{}`},
		{"unexported", `{}`}, {"unexported", `{"name":"x"}`}, {"nested", `{"id":1,"inner":{}}`},
	} {
		status, raw := postJSON(t, srv.URL+"/?t="+c.target, "application/problem+json", c.body)
		var doc struct{ Code string }
		_ = json.Unmarshal(raw, &doc)
		if status != http.StatusInternalServerError || doc.Code != "internal" {
			t.Errorf("%s %s: %d %s", c.target, c.body, status, raw)
		}
	}
	// A usable struct still blames the body.
	status, raw := postJSON(t, srv.URL+"/?t=nested", "application/problem+json", `{"id":"1"}`)
	if status != http.StatusUnprocessableEntity {
		t.Errorf("mistyped body: %d %s", status, raw)
	}
}

// A compressed body is refused as RFC 9110 §15.5.16 says (415), not as
// JSON with a syntax error at byte 1; a body already decoded by a
// middleware that left the header is read as it is.
func TestCompressedBodyIsAnUnsupportedEncoding(t *testing.T) {
	srv := stackServer(t, func(r *http.Request) error {
		_, err := bind.Decode[street](r)
		return err
	})
	const doc = `{"street":"Main","id":7}`
	var gz, zl bytes.Buffer
	gw := gzip.NewWriter(&gz)
	_, _ = gw.Write([]byte(doc))
	_ = gw.Close()
	zw := zlib.NewWriter(&zl)
	_, _ = zw.Write([]byte(doc))
	_ = zw.Close()
	for _, c := range []struct {
		encoding, body string
		status         int
		code           string
	}{
		{"gzip", gz.String(), http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"deflate", zl.String(), http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"br", "\x0b\x0b\x80" + doc[:5], http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"GZIP ", gz.String(), http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"gzip", doc, http.StatusNoContent, ""},
		{"identity", `{"street":`, http.StatusBadRequest, "invalid_json"},
		{"", gz.String(), http.StatusBadRequest, "invalid_json"},
	} {
		status, raw := postJSON(t, srv.URL, "application/problem+json", c.body, "Content-Encoding", c.encoding)
		var doc struct{ Code string }
		_ = json.Unmarshal(raw, &doc)
		if status != c.status || doc.Code != c.code {
			t.Errorf("Content-Encoding %q: %d %s, want %d %s", c.encoding, status, raw, c.status, c.code)
		}
	}
}

type batch []street

// A body that is a collection of structs (a batch of items, a map of
// them) is validated item by item, as a struct body is; it was accepted
// with every rule of every item broken.
func TestCollectionBodiesAreValidated(t *testing.T) {
	decoders := map[string]func(*http.Request) error{
		"slice":  func(r *http.Request) error { _, err := bind.Decode[[]street](r); return err },
		"named":  func(r *http.Request) error { _, err := bind.Decode[batch](r); return err },
		"nested": func(r *http.Request) error { _, err := bind.Decode[*[][]*street](r); return err },
		"array":  func(r *http.Request) error { _, err := bind.Decode[[2]street](r); return err },
		"map":    func(r *http.Request) error { _, err := bind.Decode[map[string]street](r); return err },
		"times":  func(r *http.Request) error { _, err := bind.Decode[[]time.Time](r); return err },
		"into":   func(r *http.Request) error { var b batch; return bind.DecodeInto(r, &b) },
	}
	srv := stackServer(t, func(r *http.Request) error { return decoders[r.URL.Query().Get("t")](r) })
	for _, c := range []struct {
		target, body string
		pointers     []string
	}{
		{"slice", `[{"street":"a","id":1},{"id":0}]`, []string{"/1/street", "/1/id"}},
		{"slice", `[{"street":"a","id":1}]`, nil},
		{"named", `[{"street":"a"},{"street":"b","id":"2"}]`, []string{"/1/id", "/0/id"}},
		{"nested", `[[{"street":"a","id":1}],[null,{"id":3}]]`, []string{"/1/1/street"}},
		{"array", `[{"street":"a","id":1},{"street":"","id":1}]`, []string{"/1/street"}},
		{"map", `{"x/y":{"street":"a"},"z":{"id":1}}`, []string{"/x~1y/id", "/z/street"}},
		{"times", `["2026-01-02T03:04:05Z"]`, nil},
		{"into", `[{"id":4}]`, []string{"/0/street"}},
	} {
		status, raw := postJSON(t, srv.URL+"/?t="+c.target, "application/problem+json", c.body)
		var doc struct {
			Errors []struct{ Pointer string } `json:"errors"`
		}
		_ = json.Unmarshal(raw, &doc)
		var got []string
		for _, fe := range doc.Errors {
			got = append(got, fe.Pointer)
		}
		want := http.StatusUnprocessableEntity
		if c.pointers == nil {
			want = http.StatusNoContent
		}
		if status != want || strings.Join(got, " ") != strings.Join(c.pointers, " ") {
			t.Errorf("%s %s: %d %s, want %d with %q", c.target, c.body, status, raw, want, c.pointers)
		}
	}
}

// A whole-body null is refused by naming what the target takes as the
// decoder reads it, and a target that holds null as a value of its own
// (json.RawMessage, jsontext.Value) takes it: a raw body was refused as
// "must be a JSON array", a time or a byte slice as an object or array.
func TestWholeBodyNullNamesWhatTheTargetTakes(t *testing.T) {
	decoders := map[string]func(*http.Request) error{
		"raw":    func(r *http.Request) error { _, err := bind.Decode[json.RawMessage](r); return err },
		"value":  func(r *http.Request) error { _, err := bind.Decode[jsontext.Value](r); return err },
		"time":   func(r *http.Request) error { _, err := bind.Decode[time.Time](r); return err },
		"bytes":  func(r *http.Request) error { _, err := bind.Decode[[]byte](r); return err },
		"number": func(r *http.Request) error { _, err := bind.Decode[*uint16](r); return err },
		"flag":   func(r *http.Request) error { _, err := bind.Decode[bool](r); return err },
		"struct": func(r *http.Request) error { _, err := bind.Decode[*street](r); return err },
		"list":   func(r *http.Request) error { _, err := bind.Decode[[]int](r); return err },
	}
	srv := stackServer(t, func(r *http.Request) error { return decoders[r.URL.Query().Get("t")](r) })
	for target, want := range map[string]string{
		"raw": "", "value": "", "time": "a JSON string", "bytes": "a JSON string", "number": "a JSON number",
		"flag": "a JSON boolean", "struct": "a JSON object", "list": "a JSON array",
	} {
		status, raw := postJSON(t, srv.URL+"/?t="+target, "application/problem+json", " null ")
		var doc struct{ Code, Detail string }
		_ = json.Unmarshal(raw, &doc)
		switch {
		case want == "" && status != http.StatusNoContent:
			t.Errorf("%s: %d %s, want the null taken", target, status, raw)
		case want != "" && (doc.Code != "invalid_json" || doc.Detail != "The request body must be "+want+", not null."):
			t.Errorf("%s: %d %s, want %s", target, status, raw, want)
		}
	}
}
