package bind_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/problem"
)

type LineItem struct {
	SKU      string `json:"sku" validate:"required,min=3"`
	Quantity int    `json:"quantity" validate:"required,max=100"`
}

// A handler decodes and validates in one call and writes any failure with
// problem.From: the client gets every broken rule at once, each with
// a JSON Pointer into what it sent.
func ExampleDecode() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		item, err := bind.Decode[LineItem](r)
		if err != nil {
			problem.Write(w, r, problem.From(r, err))
			return
		}
		fmt.Fprintf(w, "%d x %s", item.Quantity, item.SKU)
	})

	for _, body := range []string{
		`{"sku":"A-100","quantity":2}`,
		`{"sku":"A","quantity":0}`,
		`{"sku":"A","quantity":"two"}`,
		`{"SKU":"A-100","quantity":"2","quantity":3}`,
	} {
		r := httptest.NewRequest(http.MethodPost, "/items", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		if w.Code == http.StatusOK {
			fmt.Println(w.Code, w.Body)
			continue
		}
		var doc struct {
			Code   string               `json:"code"`
			Errors []problem.FieldError `json:"errors"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
			panic(err)
		}
		fmt.Println(w.Code, doc.Code)
		for _, fe := range doc.Errors {
			fmt.Printf("  %s (%s) %s\n", fe.Pointer, fe.Code, fe.Detail)
		}
	}
	// Output:
	// 200 2 x A-100
	// 422 validation_failed
	//   /sku (min) must be at least 3 characters
	//   /quantity (required) must not be 0
	// 422 validation_failed
	//   /quantity (wrong_type) must be an integer
	//   /sku (min) must be at least 3 characters
	// 400 invalid_json
	//   /SKU (unknown_field) is not a known field; names are case-sensitive: did you mean "sku"?
	//   /quantity (wrong_type) must be an integer
	//   /quantity (duplicate_field) appears more than once
}
