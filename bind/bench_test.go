package bind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-playground/validator/v10"
)

type benchItem struct {
	SKU      string  `json:"sku" validate:"required,min=3,max=32"`
	Name     string  `json:"name" validate:"required,max=100"`
	Qty      int     `json:"qty" validate:"min=1,max=1000"`
	Price    float64 `json:"price" validate:"gt=0"`
	Currency string  `json:"currency" validate:"oneof=EUR USD GBP"`
}

type benchOrder struct {
	ID       string      `json:"id" validate:"required,uuid"`
	Email    string      `json:"email" validate:"required,email"`
	Name     string      `json:"name" validate:"required,min=2,max=100"`
	Street   string      `json:"street" validate:"required"`
	City     string      `json:"city" validate:"required"`
	Country  string      `json:"country" validate:"required,len=2"`
	Note     string      `json:"note" validate:"max=500"`
	Items    []benchItem `json:"items" validate:"required,min=1,dive"`
	Priority int         `json:"priority" validate:"gte=0,lte=9"`
}

// The payload kinds: a valid order, one breaking validation rules, and
// one with values of the wrong type, which the decoder refuses.
const (
	valid = iota
	invalid
	wrongTypes
)

var kindNames = [...]string{valid: "valid", invalid: "invalid", wrongTypes: "wrongTypes"}

func benchPayload(kind int) []byte {
	var b strings.Builder
	email, qty := "jane.doe@example.com", "2"
	switch kind {
	case invalid:
		email, qty = "not-an-email", "0"
	case wrongTypes:
		qty = `"2"`
	}
	fmt.Fprintf(&b, `{"id":"0193b1c2-7d3e-7c4a-9f00-1234567890ab","email":%q,"name":"Jane Doe",`, email)
	b.WriteString(`"street":"221B Baker Street","city":"London","country":"GB","note":"Leave the parcel with the neighbour if nobody answers.","items":[`)
	for i := range 8 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sku":"SKU-%04d","name":"Stainless steel widget %d","qty":%s,"price":%d.99,"currency":"EUR"}`, i, i, qty, 10+i)
	}
	b.WriteString(`],"priority":3}`)
	return []byte(b.String())
}

// BenchmarkDecode compares Decode with the plain decode-then-validate a
// handler would otherwise write, on the same payloads in the same run.
func BenchmarkDecode(b *testing.B) {
	baseline := validator.New(validator.WithRequiredStructEnabled())
	for kind, name := range kindNames {
		payload := benchPayload(kind)
		req := httptest.NewRequest(http.MethodPost, "/orders", nil)
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(payload))
		body := bytes.NewReader(payload)
		reset := func() *http.Request {
			body.Reset(payload)
			req.Body = readCloser{body}
			return req
		}
		b.Run("faultline_"+name, func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				_, err := Decode[benchOrder](reset())
				if (err == nil) != (kind == valid) {
					b.Fatal(err)
				}
			}
		})
		b.Run("baseline_"+name, func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				r := reset()
				var v benchOrder
				err := json.NewDecoder(r.Body).Decode(&v)
				if err == nil {
					err = baseline.Struct(v)
				}
				if (err == nil) != (kind == valid) {
					b.Fatal(err)
				}
			}
		})
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// BenchmarkStrictDecoding is the measurement behind decoding with
// go-json-experiment/json: strictness (exact names, unique members) on the
// valid path either comes with the decoder, or costs encoding/json plus a
// walk of every document, which is what keeping encoding/json would take.
func BenchmarkStrictDecoding(b *testing.B) {
	payload := benchPayload(valid)
	t := reflect.TypeFor[benchOrder]()
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v benchOrder
			if err := json.Unmarshal(payload, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json_plus_walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v benchOrder
			if err := json.Unmarshal(payload, &v); err != nil {
				b.Fatal(err)
			}
			if found := locate(payload, t, true); len(found) != 0 {
				b.Fatal(found)
			}
		}
	})
	b.Run("json_experiment", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v benchOrder
			if err := jsonv2.Unmarshal(payload, &v, rejectUnknown); err != nil {
				b.Fatal(err)
			}
		}
	})
}
