package bind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

type Base struct {
	ID string `json:"id" validate:"omitempty,uuid"`
}

type Item struct {
	SKU   string  `json:"sku" validate:"required,min=3"`
	Qty   int     `json:"qty" validate:"min=1"`
	Price float64 `json:"price" validate:"gt=0"`
	Size  uint8   `json:"size,omitempty"`
}

type Customer struct {
	Email string `json:"email" validate:"required,email"`
	Phone string `json:"phone,omitempty" validate:"omitempty,e164"`
}

type Order struct {
	Base
	Customer *Customer         `json:"customer" validate:"required"`
	Items    []Item            `json:"items" validate:"required,min=1,dive"`
	Labels   map[string]string `json:"labels,omitempty" validate:"omitempty,dive,keys,min=2,endkeys,max=5"`
	Currency string            `json:"currency" validate:"oneof=EUR USD GBP"`
	Note     string            `validate:"max=10"`
	Secret   string            `json:"-"`
	Due      time.Time         `json:"due,omitzero"`
}

const validOrder = `{"id":"0193b1c2-7d3e-7c4a-9f00-1234567890ab","customer":{"email":"a@example.com"},
"items":[{"sku":"abc","qty":1,"price":2.5}],"currency":"EUR","Note":"hi"}`

// goNames are the Go identifiers of the test types; none may reach a
// client.
var goNames = []string{"Order", "Item", "Customer", "Base", "SKU", "Qty", "float64", "uint8", "int64", "bind.", "Go ", "of type"}

func TestMain(m *testing.M) {
	problem.SetDefault(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler))))
	os.Exit(m.Run())
}

func server(t *testing.T, opts ...Option) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := Decode[Order](r, opts...); err != nil {
			problem.Write(w, r, problem.From(r, err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, ct string, body io.Reader) (int, *problem.Problem, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusNoContent {
		return resp.StatusCode, nil, ""
	}
	p, err := problem.Parse(raw)
	if err != nil {
		t.Fatalf("status %d: not a problem: %v: %s", resp.StatusCode, err, raw)
	}
	return resp.StatusCode, p, string(raw)
}

// chunked hides the length from the transport so the body is sent with
// chunked transfer encoding.
type chunked struct{ r io.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

type want struct {
	status   int
	code     string
	detail   string
	errors   []problem.FieldError
	noErrors bool
}

func TestDecodeOverHTTP(t *testing.T) {
	const limit = 256
	srv := server(t, WithMaxBytes(limit))
	tests := []struct {
		name string
		ct   string
		body io.Reader
		want want
	}{
		{"valid", "application/json", strings.NewReader(validOrder), want{status: 204}},
		{"valid with charset and odd case", "Application/JSON; charset=UTF-8", strings.NewReader(validOrder), want{status: 204}},
		{"valid vendor +json", "application/vnd.order+json", strings.NewReader(validOrder), want{status: 204}},
		{"missing content type", "", strings.NewReader(validOrder), want{status: 415, code: "unsupported_media_type", noErrors: true}},
		{"text/plain", "text/plain", strings.NewReader(validOrder), want{status: 415, code: "unsupported_media_type"}},
		{"json lookalike", "application/jsonx", strings.NewReader(validOrder), want{status: 415, code: "unsupported_media_type"}},
		{"bare +json", "application/+json", strings.NewReader(validOrder), want{status: 415, code: "unsupported_media_type"}},
		{"utf-16", "application/json; charset=utf-16", strings.NewReader(validOrder), want{status: 415, code: "unsupported_media_type"}},
		{"empty body", "application/json", strings.NewReader(""), want{status: 400, code: "invalid_json", detail: "empty", noErrors: true}},
		{"whitespace body", "application/json", strings.NewReader(" \n\t "), want{status: 400, code: "invalid_json", detail: "empty"}},
		{"truncated", "application/json", strings.NewReader(`{"items":[{"sku":"abc"`), want{status: 400, code: "invalid_json", detail: "ended before"}},
		{"syntax error", "application/json", strings.NewReader(`{"items":[}`), want{status: 400, code: "invalid_json", detail: "syntax error at byte 11"}},
		{"trailing data", "application/json", strings.NewReader(validOrder + ` {}`), want{status: 400, code: "invalid_json", detail: "after the JSON value"}},
		{"null body", "application/json", strings.NewReader(" null "), want{status: 400, code: "invalid_json", detail: "must be a JSON object, not null"}},
		{"array body", "application/json", strings.NewReader(`[]`), want{status: 400, code: "invalid_json",
			errors: []problem.FieldError{{Detail: "must be an object", Code: "wrong_type"}}}},
		{"wrong type nested in array", "application/json",
			strings.NewReader(`{"items":[{"sku":"abc","qty":1},{"sku":"abd","qty":2},{"sku":"abe","qty":"3"}]}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "must be an integer", Pointer: "/items/2/qty", Code: "wrong_type"},
				{Detail: "is required", Pointer: "/customer", Code: "required"},
				{Detail: "must be greater than 0", Pointer: "/items/0/price", Code: "gt"},
				{Detail: "must be greater than 0", Pointer: "/items/1/price", Code: "gt"},
				{Detail: "must be greater than 0", Pointer: "/items/2/price", Code: "gt"},
				{Detail: "must be one of: EUR USD GBP", Pointer: "/currency", Code: "oneof"},
			}}},
		{"fraction for integer", "application/json", strings.NewReader(`{"items":[{"qty":1.5}]}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "must be an integer", Pointer: "/items/0/qty", Code: "wrong_type"},
				{Detail: "is required", Pointer: "/customer", Code: "required"},
				{Detail: "is required", Pointer: "/items/0/sku", Code: "required"},
				{Detail: "must be greater than 0", Pointer: "/items/0/price", Code: "gt"},
				{Detail: "must be one of: EUR USD GBP", Pointer: "/currency", Code: "oneof"},
			}}},
		{"out of range", "application/json", strings.NewReader(`{"items":[{},{"size":256}]}`),
			want{status: 422, code: "validation_failed", detail: "One or more fields are invalid.", errors: []problem.FieldError{
				{Detail: "must be an integer between 0 and 255", Pointer: "/items/1/size", Code: "out_of_range"},
				{Detail: "is required", Pointer: "/customer", Code: "required"},
				{Detail: "is required", Pointer: "/items/0/sku", Code: "required"},
				{Detail: "must be at least 1", Pointer: "/items/0/qty", Code: "min"},
				{Detail: "must be greater than 0", Pointer: "/items/0/price", Code: "gt"},
				{Detail: "is required", Pointer: "/items/1/sku", Code: "required"},
				{Detail: "must be at least 1", Pointer: "/items/1/qty", Code: "min"},
				{Detail: "must be greater than 0", Pointer: "/items/1/price", Code: "gt"},
				{Detail: "must be one of: EUR USD GBP", Pointer: "/currency", Code: "oneof"},
			}}},
		{"string for object", "application/json", strings.NewReader(`{"customer":"bob"}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "must be an object", Pointer: "/customer", Code: "wrong_type"},
				{Detail: "is required", Pointer: "/items", Code: "required"},
				{Detail: "must be one of: EUR USD GBP", Pointer: "/currency", Code: "oneof"},
			}}},
		{"number for string in map", "application/json", strings.NewReader(`{"labels":{"a/b":1}}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "must be a string", Pointer: "/labels/a~1b", Code: "wrong_type"},
				{Detail: "is required", Pointer: "/customer", Code: "required"},
				{Detail: "is required", Pointer: "/items", Code: "required"},
				{Detail: "must be one of: EUR USD GBP", Pointer: "/currency", Code: "oneof"},
			}}},
		{"bad time", "application/json", strings.NewReader(`{"due":"tomorrow"}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "is not valid", Pointer: "/due", Code: "invalid_value"},
				{Detail: "is required", Pointer: "/customer", Code: "required"},
				{Detail: "is required", Pointer: "/items", Code: "required"},
				{Detail: "must be one of: EUR USD GBP", Pointer: "/currency", Code: "oneof"},
			}}},
		{"every wrong type and every broken rule at once", "application/json",
			strings.NewReader(`{"customer":"bob","items":[{"sku":1,"qty":"1"},{"price":true}],"currency":7}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "must be an object", Pointer: "/customer", Code: "wrong_type"},
				{Detail: "must be a string", Pointer: "/items/0/sku", Code: "wrong_type"},
				{Detail: "must be an integer", Pointer: "/items/0/qty", Code: "wrong_type"},
				{Detail: "must be a number", Pointer: "/items/1/price", Code: "wrong_type"},
				{Detail: "must be a string", Pointer: "/currency", Code: "wrong_type"},
				{Detail: "must be greater than 0", Pointer: "/items/0/price", Code: "gt"},
				{Detail: "is required", Pointer: "/items/1/sku", Code: "required"},
				{Detail: "must be at least 1", Pointer: "/items/1/qty", Code: "min"},
			}}},
		{"duplicate member", "application/json", strings.NewReader(`{"currency":"EUR","items":[{"sku":"abc","qty":1,"sku":"abd"}],"currency":"USD"}`),
			want{status: 400, code: "invalid_json", detail: "more than once", errors: []problem.FieldError{
				{Detail: "appears more than once", Pointer: "/items/0/sku", Code: "duplicate_field"},
				{Detail: "appears more than once", Pointer: "/currency", Code: "duplicate_field"},
			}}},
		{"duplicate map key", "application/json", strings.NewReader(`{"labels":{"ab":"x","ab":"y"}}`),
			want{status: 400, code: "invalid_json", errors: []problem.FieldError{{Detail: "appears more than once", Pointer: "/labels/ab", Code: "duplicate_field"}}}},
		{"duplicate inside a value of the wrong type", "application/json", strings.NewReader(`{"currency":{"a":1,"a":2},"items":[[{"":1,"":2}]]}`),
			want{status: 400, code: "invalid_json", errors: []problem.FieldError{
				{Detail: "appears more than once", Pointer: "/currency/a", Code: "duplicate_field"},
				{Detail: "must be a string", Pointer: "/currency", Code: "wrong_type"},
				{Detail: "appears more than once", Pointer: "/items/0/0/", Code: "duplicate_field"},
				{Detail: "must be an object", Pointer: "/items/0", Code: "wrong_type"},
			}}},
		{"unknown member before a syntax error", "application/json", strings.NewReader(`{"id":"","":{"": 0"":000000`),
			want{status: 400, code: "invalid_json", detail: "is not valid JSON (syntax error at byte 19)"}},
		{"wrong type before data after the value", "application/json", strings.NewReader(`{"currency":1} {}`),
			want{status: 400, code: "invalid_json", detail: "has data after the JSON value (at byte 16)"}},
		{"wrong type before a cut-short body", "application/json", strings.NewReader(`{"currency":1,"items":[`),
			want{status: 400, code: "invalid_json", detail: "ended before"}},
		{"member name in the wrong case", "application/json", strings.NewReader(`{"items":[{"SKU":"abc","qty":1,"price":1}],"Currency":"EUR"}`),
			want{status: 400, code: "invalid_json", errors: []problem.FieldError{
				{Detail: `is not a known field; names are case-sensitive: did you mean "sku"?`, Pointer: "/items/0/SKU", Code: "unknown_field"},
				{Detail: `is not a known field; names are case-sensitive: did you mean "currency"?`, Pointer: "/Currency", Code: "unknown_field"},
			}}},
		{"unknown field", "application/json", strings.NewReader(`{"items":[{"sku":"abc","colour":"red"}]}`),
			want{status: 400, code: "invalid_json", errors: []problem.FieldError{{Detail: "is not a known field", Pointer: "/items/0/colour", Code: "unknown_field"}}}},
		{"json:\"-\" field is unknown", "application/json", strings.NewReader(`{"Secret":"x"}`),
			want{status: 400, code: "invalid_json", errors: []problem.FieldError{{Detail: "is not a known field", Pointer: "/Secret", Code: "unknown_field"}}}},
		{"over the limit with length", "application/json", strings.NewReader(`{"Note":"` + strings.Repeat("x", 2*limit) + `"}`),
			want{status: 413, code: "request_too_large", detail: fmt.Sprintf("limit of %d bytes", limit)}},
		{"over the limit chunked", "application/json", chunked{strings.NewReader(`{"Note":"` + strings.Repeat("x", 64*limit) + `"}`)},
			want{status: 413, code: "request_too_large", detail: fmt.Sprintf("limit of %d bytes", limit)}},
		{"validation", "application/json",
			strings.NewReader(`{"id":"nope","customer":{"email":"bob","phone":"12"},"items":[{"sku":"ab","qty":0,"price":0}],"labels":{"x":"toolong","ok":"fine"},"currency":"JPY","Note":"far too long a note"}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "must be a valid UUID", Pointer: "/id", Code: "uuid"},
				{Detail: "must be a valid email address", Pointer: "/customer/email", Code: "email"},
				{Detail: "must be a phone number in E.164 format, such as +14155552671", Pointer: "/customer/phone", Code: "e164"},
				{Detail: "must be at least 3 characters", Pointer: "/items/0/sku", Code: "min"},
				{Detail: "must be at least 1", Pointer: "/items/0/qty", Code: "min"},
				{Detail: "must be greater than 0", Pointer: "/items/0/price", Code: "gt"},
				{Detail: "must be at least 2 characters", Pointer: "/labels/x", Code: "min"},
				{Detail: "must be at most 5 characters", Pointer: "/labels/x", Code: "max"},
				{Detail: "must be one of: EUR USD GBP", Pointer: "/currency", Code: "oneof"},
				{Detail: "must be at most 10 characters", Pointer: "/Note", Code: "max"},
			}}},
		{"required", "application/json", strings.NewReader(`{"items":[],"currency":"EUR"}`),
			want{status: 422, code: "validation_failed", errors: []problem.FieldError{
				{Detail: "is required", Pointer: "/customer", Code: "required"},
				{Detail: "must contain at least 1 item", Pointer: "/items", Code: "min"},
			}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, p, raw := post(t, srv.URL, tc.ct, tc.body)
			if status != tc.want.status {
				t.Fatalf("status %d, want %d: %s", status, tc.want.status, raw)
			}
			if p == nil {
				return
			}
			if string(p.Code()) != tc.want.code || p.Status() != status {
				t.Errorf("code %q status %d, want %q: %s", p.Code(), p.Status(), tc.want.code, raw)
			}
			if _, ok := problem.DefaultRegistry().Lookup(problem.Kind(p.Code())); !ok {
				t.Errorf("code %q is not registered", p.Code())
			}
			if !strings.Contains(p.Detail(), tc.want.detail) {
				t.Errorf("detail %q, want it to contain %q", p.Detail(), tc.want.detail)
			}
			if tc.want.errors != nil || tc.want.noErrors {
				if fmt.Sprint(p.Errors()) != fmt.Sprint(tc.want.errors) {
					t.Errorf("errors\n got %v\nwant %v", p.Errors(), tc.want.errors)
				}
			}
			if tc.want.errors != nil && !strings.Contains(raw, `"pointer":`+strconv.Quote(tc.want.errors[0].Pointer)) {
				t.Errorf("first pointer %q not on the wire: %s", tc.want.errors[0].Pointer, raw)
			}
			assertNoGoNames(t, raw)
		})
	}
}

func assertNoGoNames(t *testing.T, raw string) {
	t.Helper()
	var doc struct {
		Detail string               `json:"detail"`
		Errors []problem.FieldError `json:"errors"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	texts := []string{doc.Detail}
	for _, fe := range doc.Errors {
		texts = append(texts, fe.Detail)
	}
	for _, text := range texts {
		for _, name := range goNames {
			if strings.Contains(text, name) {
				t.Errorf("public text %q names Go identifier %q", text, name)
			}
		}
		if strings.Contains(text, "json:") || strings.Contains(text, "Key: ") {
			t.Errorf("public text %q carries a raw error", text)
		}
	}
}

// An upstream http.MaxBytesReader (faultline's BodyLimit) is the limit the
// client hit, so it is the one named.
func TestUpstreamMaxBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 100)
		if _, err := Decode[Order](r); err != nil {
			problem.Write(w, r, problem.From(r, err))
		}
	}))
	defer srv.Close()
	body := chunked{bytes.NewReader([]byte(`{"Note":"` + strings.Repeat("y", 1000) + `"}`))}
	status, p, raw := post(t, srv.URL, "application/json", body)
	if status != 413 || p.Code() != "request_too_large" || !strings.Contains(p.Detail(), "limit of 100 bytes") {
		t.Fatalf("status %d: %s", status, raw)
	}
}
