package bind_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/problem"
)

// post is a JSON request carrying body.
func post(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/items", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// show prints what a client learns from a bind error: the code and, for
// each field error, where and what.
func show(err error) {
	var p *problem.Problem
	if !errors.As(err, &p) {
		fmt.Println("ok")
		return
	}
	fmt.Println(p.Status(), p.Code(), p.Message())
	for _, fe := range p.Errors() {
		fmt.Printf("  %s (%s) %s\n", fe.Pointer, fe.Code, fe.Detail)
	}
}

// DecodeInto fills a value the handler already has, such as one holding
// defaults: members the client left out keep them.
func ExampleDecodeInto() {
	item := LineItem{SKU: "A-100", Quantity: 1}
	show(bind.DecodeInto(post(`{"quantity":5}`), &item))
	fmt.Println(item.SKU, item.Quantity)
	show(bind.DecodeInto(post(`{"quantity":500}`), &item))
	// Output:
	// ok
	// A-100 5
	// 422 validation_failed One or more fields are invalid.
	//   /quantity (max) must be at most 100
}

// Validate checks a value that did not come from a body, such as decoded
// query parameters, with the same field errors Decode reports.
func ExampleValidate() {
	type page struct {
		Limit int `json:"limit" validate:"min=1,max=50"`
	}
	show(bind.Validate(page{Limit: 20}))
	show(bind.Validate(page{Limit: 80}))
	// Output:
	// ok
	// 422 validation_failed One or more fields are invalid.
	//   /limit (max) must be at most 50
}

// A body over the limit fails as request_too_large, naming the limit.
func ExampleWithMaxBytes() {
	show(bind.DecodeInto(post(`{"sku":"A-100","quantity":2}`), &LineItem{}, bind.WithMaxBytes(16)))
	// Output:
	// 413 request_too_large The request body exceeds the limit of 16 bytes.
}

// By default a member the type has no field for is refused; with
// AllowUnknownFields it is ignored.
func ExampleAllowUnknownFields() {
	body := `{"sku":"A-100","quantity":2,"note":"gift"}`
	show(bind.DecodeInto(post(body), &LineItem{}))
	show(bind.DecodeInto(post(body), &LineItem{}, bind.AllowUnknownFields()))
	// Output:
	// 400 invalid_json The request body has a field that is not accepted.
	//   /note (unknown_field) is not a known field
	// ok
}

// WithoutValidation decodes strictly but leaves the rules to the caller.
func ExampleWithoutValidation() {
	item, err := bind.Decode[LineItem](post(`{"sku":"A","quantity":0}`), bind.WithoutValidation())
	show(err)
	fmt.Printf("%q %d\n", item.SKU, item.Quantity)
	// Output:
	// ok
	// "A" 0
}

// A service's own rules live on its validator (WithValidator); without a
// sentence of their own they read "is not valid".
func ExampleWithValidator() {
	v := validator.New(validator.WithRequiredStructEnabled())
	_ = v.RegisterValidation("even", func(fl validator.FieldLevel) bool { return fl.Field().Int()%2 == 0 })
	type pair struct {
		N int `json:"n" validate:"even"`
	}
	_, err := bind.Decode[pair](post(`{"n":3}`), bind.WithValidator(v))
	show(err)
	// Output:
	// 422 validation_failed One or more fields are invalid.
	//   /n (even) is not valid
}

// A service's own rule gets its own sentence through WithMessage, passed
// with its validator on every call (one slice of options); the text goes
// to clients, so it is built from the rule, never from the value.
func ExampleWithMessage() {
	v := validator.New(validator.WithRequiredStructEnabled())
	skuPattern := regexp.MustCompile(`^[A-Z]-[0-9]{3}$`)
	_ = v.RegisterValidation("sku", func(fl validator.FieldLevel) bool { return skuPattern.MatchString(fl.Field().String()) })
	opts := []bind.Option{
		bind.WithValidator(v),
		bind.WithMessage("sku", func(validator.FieldError) string { return "must look like A-100" }),
	}

	type order struct {
		SKU string `json:"sku" validate:"sku"`
	}
	_, err := bind.Decode[order](post(`{"sku":"a100"}`), opts...)
	show(err)
	// Output:
	// 422 validation_failed One or more fields are invalid.
	//   /sku (sku) must look like A-100
}
