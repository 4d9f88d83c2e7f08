package bind

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
	"github.com/go-playground/validator/v10"
)

func request(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

type Audit struct {
	CreatedBy string `json:"created_by" validate:"required"`
}

type Named struct {
	Label string `json:"label" validate:"required"`
}

type Line struct {
	Tags []string `json:"tags" validate:"dive,alphanum"`
}

type Shape struct {
	Audit                      // promoted: no segment
	*Named   `json:"named"`    // tagged embedded: a member of its own
	Untagged string            `validate:"required"`
	Skipped  string            `json:"-"`
	Omitted  string            `json:",omitempty" validate:"required"`
	Tilde    string            `json:"a~b/c" validate:"required"`
	Lines    []*Line           `json:"lines" validate:"dive"`
	ByKey    map[string][]Line `json:"by_key" validate:"dive,dive"`
	Counts   map[int]int       `json:"counts" validate:"dive,min=1"`
	Grid     [2][]int          `json:"grid" validate:"dive,dive,max=9"`
	Password string            `json:"password"`
	Confirm  string            `json:"confirm" validate:"eqfield=Password"`
	Code     string            `json:"code" validate:"is_awesome"`
	Ptr      *string           `json:"ptr" validate:"required"`
}

func TestValidationPointers(t *testing.T) {
	v := validator.New()
	if err := v.RegisterValidation("is_awesome", func(fl validator.FieldLevel) bool {
		return fl.Field().String() == "awesome"
	}); err != nil {
		t.Fatal(err)
	}
	body := `{"named":{},"a~b/c":"","lines":[{"tags":["ok"]},{"tags":["ok","no way"]}],
		"by_key":{"x/y~z":[{"tags":["bad!"]}],"a]b.c[":[{"tags":["fine","bad?"]}]},
		"counts":{"7":0},"grid":[[1],[2,10]],"password":"a","confirm":"b","code":"meh"}`
	// A validator without the JSON tag name func: pointers still use the
	// JSON names, because they come from the type, not from validator.
	_, err := Decode[Shape](request(body), WithValidator(v))
	p := problemOf(t, err)
	if p == nil {
		t.Fatal("no problem")
	}
	got := map[string]string{}
	for _, fe := range p.Errors() {
		got[fe.Pointer+" "+fe.Code] = fe.Detail
	}
	want := map[string]string{
		"/created_by required":              "is required",
		"/named/label required":             "is required",
		"/Untagged required":                "is required",
		"/Omitted required":                 "is required",
		"/a~0b~1c required":                 "must not be empty",
		"/lines/1/tags/1 alphanum":          "must contain only letters and digits",
		"/by_key/x~1y~0z/0/tags/0 alphanum": "must contain only letters and digits",
		"/by_key/a]b.c[/0/tags/1 alphanum":  "must contain only letters and digits",
		"/counts/7 min":                     "must be at least 1",
		"/grid/1/1 max":                     "must be at most 9",
		"/confirm eqfield":                  "must be equal to password",
		"/code is_awesome":                  "is not valid",
		"/ptr required":                     "is required",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("field errors\n got %v\nwant %v", got, want)
	}
	if p.Status() != 422 || p.Code() != "validation_failed" {
		t.Errorf("status %d code %s", p.Status(), p.Code())
	}
}

func TestCustomMessagesSeeJSONNames(t *testing.T) {
	named := WithMessage("test_named", func(fe validator.FieldError) string { return "field " + fe.Field() + " is wrong" })
	type T struct {
		Value string   `json:"the_value" validate:"test_named"`
		Tags  []string `json:"tag~s" validate:"dive,test_named"`
	}
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterAlias("test_named", "max=1")
	in := T{Value: "long", Tags: []string{"a", "bb"}}
	p := problemOf(t, Validate(in, WithValidator(v), named))
	if p == nil || len(p.Errors()) != 2 {
		t.Fatalf("got %v", p)
	}
	if fe := p.Errors()[0]; fe.Detail != "field the_value is wrong" || fe.Pointer != "/the_value" || fe.Code != "test_named" {
		t.Errorf("got %+v", fe)
	}
	if fe := p.Errors()[1]; fe.Detail != "field tag~s[1] is wrong" || fe.Pointer != "/tag~0s/1" {
		t.Errorf("got %+v", fe)
	}
	// A message is the call's: a call without it keeps the built-in
	// sentence of the tag the alias stands for.
	p = problemOf(t, Validate(in, WithValidator(v)))
	if p == nil || len(p.Errors()) != 2 || p.Errors()[0].Detail != "must be at most 1 character" {
		t.Fatalf("without the message: %v", p.Errors())
	}
}

func TestMessages(t *testing.T) {
	type T struct {
		S      string            `json:"s" validate:"len=1"`
		N      int               `json:"n" validate:"lte=5"`
		F      float64           `json:"f" validate:"lt=1.5"`
		L      []int             `json:"l" validate:"max=1"`
		M      map[string]int    `json:"m" validate:"gt=2"`
		Email  string            `json:"email" validate:"email"`
		URL    string            `json:"url" validate:"url"`
		UUID   string            `json:"uuid" validate:"uuid"`
		Num    string            `json:"num" validate:"numeric"`
		When   string            `json:"when" validate:"datetime=2006-01-02"`
		Prefix string            `json:"prefix" validate:"startswith=ord_"`
		Uniq   []int             `json:"uniq" validate:"unique"`
		Any    map[string]string `json:"any" validate:"required"`
	}
	p := problemOf(t, Validate(&T{S: "ab", N: 6, F: 2, L: []int{1, 2}, M: map[string]int{"a": 1}, Email: "x", URL: "x", UUID: "x",
		Num: "x", When: "x", Prefix: "x", Uniq: []int{1, 1}}))
	want := []string{
		"must be exactly 1 character", "must be at most 5", "must be less than 1.5",
		"must contain at most 1 item", "must contain more than 2 items", "must be a valid email address",
		"must be a valid URL", "must be a valid UUID", "must be a numeric value",
		"must be a date/time in the format 2006-01-02", `must start with "ord_"`, "must not contain duplicates",
		"is required",
	}
	var got []string
	for _, fe := range p.Errors() {
		got = append(got, fe.Detail)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}

func TestOptions(t *testing.T) {
	t.Run("allow unknown fields", func(t *testing.T) {
		v, err := Decode[Item](request(`{"sku":"abc","qty":2,"price":1,"extra":{"deep":[1]}}`), AllowUnknownFields())
		if err != nil || v.Qty != 2 {
			t.Fatalf("%v %+v", err, v)
		}
	})
	t.Run("without validation", func(t *testing.T) {
		if _, err := Decode[Item](request(`{}`), WithoutValidation()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("decode into", func(t *testing.T) {
		var it Item
		if err := DecodeInto(request(`{"sku":"abc","qty":3,"price":1}`), &it); err != nil || it.Qty != 3 {
			t.Fatalf("%v %+v", err, it)
		}
		if p := problemOf(t, DecodeInto(request(`{}`), it)); p == nil || p.Code() != "internal" {
			t.Fatalf("non-pointer: %v", p)
		}
	})
	t.Run("pointer target", func(t *testing.T) {
		v, err := Decode[*Item](request(`{"sku":"a","qty":3,"price":1}`))
		if p := problemOf(t, err); p == nil || p.Errors()[0].Pointer != "/sku" || v != nil {
			t.Fatalf("%v %+v", p, v)
		}
		if p := problemOf(t, second(Decode[*Item](request(`null`)))); p == nil || p.Code() != "invalid_json" {
			t.Fatalf("null: %v", p)
		}
	})
	t.Run("any target takes null", func(t *testing.T) {
		if _, err := Decode[any](request(`null`)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("non-struct target", func(t *testing.T) {
		v, err := Decode[[]Item](request(`[{"sku":"abc","qty":"x"}]`))
		if p := problemOf(t, err); p == nil || p.Errors()[0].Pointer != "/0/qty" {
			t.Fatalf("%v %+v", p, v)
		}
	})
	t.Run("zero value on failure", func(t *testing.T) {
		v, err := Decode[Item](request(`{"sku":"abcd","qty":0,"price":1}`))
		if err == nil || v != (Item{}) {
			t.Fatalf("%v %+v", err, v)
		}
	})
}

func second[T any](_ T, err error) error { return err }

// problemOf reaches the problem behind an error as a caller would.
func problemOf(t *testing.T, err error) *problem.Problem {
	t.Helper()
	if err == nil {
		return nil
	}
	var p *problem.Problem
	if !errors.As(err, &p) {
		t.Fatalf("error %v is not a *problem.Problem", err)
	}
	return p
}

// A nil error is a plain nil interface, never a typed nil that would make
// err != nil true.
func TestValidateNil(t *testing.T) {
	var p *Item
	if err := Validate(p); err != nil {
		t.Fatal(err)
	}
	if err := Validate(&Item{SKU: "abc", Qty: 1, Price: 1}); err != nil {
		t.Fatal(err)
	}
	if err := DecodeInto(request(`{"sku":"abc","qty":3,"price":1}`), new(Item)); err != nil {
		t.Fatal(err)
	}
}

// A required member the client sent with its zero value is told what is
// wrong with the value, not told to send what it already sent.
func TestRequiredPresentZero(t *testing.T) {
	type Stock struct {
		Quantity int      `json:"quantity" validate:"required"`
		Name     string   `json:"name" validate:"required"`
		Active   bool     `json:"active" validate:"required"`
		Limit    *int     `json:"limit" validate:"required"`
		Where    struct{} `json:"where" validate:"required"`
	}
	tests := []struct {
		body string
		want []string
	}{
		{`{"quantity":0,"name":"","active":false,"limit":null,"where":{}}`,
			[]string{"/quantity must not be 0", "/name must not be empty", "/active must not be false", "/limit must not be null", "/where must not be empty"}},
		{`{"quantity":-0}`, []string{"/quantity must not be 0", "/name is required", "/active is required", "/limit is required", "/where is required"}},
		{`{}`, []string{"/quantity is required", "/name is required", "/active is required", "/limit is required", "/where is required"}},
	}
	for _, tc := range tests {
		_, err := Decode[Stock](request(tc.body))
		p := problemOf(t, err)
		if p == nil || p.Code() != "validation_failed" {
			t.Fatalf("%s: %v", tc.body, err)
		}
		var got []string
		for _, fe := range p.Errors() {
			got = append(got, fe.Pointer+" "+fe.Detail)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s\n got %q\nwant %q", tc.body, got, tc.want)
		}
	}
}

// A body of a million mistyped values gets a bounded errors array.
func TestFieldErrorsAreBounded(t *testing.T) {
	body := "[" + strings.Repeat(`{"qty":"x"},`, 5000) + `{"qty":"x"}]`
	_, err := Decode[[]Item](request(body), WithMaxBytes(int64(len(body))))
	p := problemOf(t, err)
	if p == nil || len(p.Errors()) != maxFieldErrors || p.Errors()[maxFieldErrors-1].Pointer != "/99/qty" {
		t.Fatalf("%d errors: %v", len(p.Errors()), err)
	}
}
