package bind_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/bind"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-playground/validator/v10"
)

type stringKeyed struct {
	M map[string]street `json:"m" validate:"dive"`
}

type intKeyed struct {
	M map[int16]street `json:"m" validate:"dive"`
}

// Locating the field errors of a body whose large map fails entry by
// entry must cost about what decoding and validating it costs: printing
// every key of the map for each of the (up to 100) field errors, and
// reading every member name before each one, made one 760 KB body cost
// seconds of CPU, 26 times the allocations of the decode and validation.
func TestLargeMapErrorsCostWhatValidationCosts(t *testing.T) {
	v := validator.New(validator.WithRequiredStructEnabled())
	for _, c := range []struct {
		name   string
		format string
		decode func(*http.Request) error
		plain  func([]byte) error
	}{
		{"string keys", `"key %d":{}`,
			func(r *http.Request) error { _, err := bind.Decode[stringKeyed](r); return err },
			func(b []byte) error { var x stringKeyed; _ = jsonv2.Unmarshal(b, &x); return v.Struct(x) }},
		{"integer keys", `"%d":{"street":"x"}`,
			func(r *http.Request) error { _, err := bind.Decode[intKeyed](r); return err },
			func(b []byte) error { var x intKeyed; _ = jsonv2.Unmarshal(b, &x); return v.Struct(x) }},
	} {
		var b strings.Builder
		b.WriteString(`{"m":{`)
		for i := range 4000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, c.format, i)
		}
		b.WriteString(`}}`)
		body := b.String()
		base := testing.AllocsPerRun(2, func() {
			if c.plain([]byte(body)) == nil {
				t.Fatal("no validation error")
			}
		})
		got := testing.AllocsPerRun(2, func() {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			if c.decode(r) == nil {
				t.Fatal("no validation error")
			}
		})
		if got > 2*base {
			t.Errorf("%s: %.0f allocations, decode and validation alone %.0f", c.name, got, base)
		}
	}
}
