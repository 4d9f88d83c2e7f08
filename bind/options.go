package bind

import "github.com/go-playground/validator/v10"

// DefaultMaxBytes is the body limit when no WithMaxBytes option is given.
const DefaultMaxBytes int64 = 1 << 20

// Option configures one Decode, DecodeInto or Validate call. A service
// passes the same options to every call, kept in one slice:
//
//	var bodyOpts = []bind.Option{bind.WithValidator(v), bind.WithMessage("sku", skuMessage)}
//	order, err := bind.Decode[Order](r, bodyOpts...)
type Option func(*config)

type config struct {
	maxBytes     int64
	validate     *validator.Validate
	allowUnknown bool
	noValidate   bool
	messages     map[string]func(validator.FieldError) string
}

// WithMaxBytes limits the body to n bytes (default DefaultMaxBytes); a
// larger body fails as request_too_large naming n. n <= 0 keeps the
// default.
func WithMaxBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// WithValidator validates with v, on which the service registered its own
// validations, instead of the package's default validator (a
// validator.New with WithRequiredStructEnabled, created once).
func WithValidator(v *validator.Validate) Option {
	return func(c *config) {
		if v != nil {
			c.validate = v
		}
	}
}

// WithMessage sets the detail of field errors with the given tag (or
// alias), overriding the built-in sentence; a tag of the service's own,
// registered on its WithValidator, otherwise reads "is not valid". The
// text goes to clients: build it from the tag and its parameter
// (fe.Param()), never from the field's value or validator's own error
// string. fe.Field() is the member's name as the client sent it.
func WithMessage(tag string, fn func(fe validator.FieldError) string) Option {
	return func(c *config) {
		if fn == nil {
			return
		}
		// The map is the call's own: c is a copy of the shared defaults.
		if c.messages == nil {
			c.messages = map[string]func(validator.FieldError) string{}
		}
		c.messages[tag] = fn
	}
}

// AllowUnknownFields accepts members the target type has no field for;
// by default they fail as invalid_json so a misspelt field never goes
// silently unused. Names still match case-sensitively, so with this
// option "SKU" is ignored rather than read into a field named "sku".
func AllowUnknownFields() Option { return func(c *config) { c.allowUnknown = true } }

// WithoutValidation skips struct validation, for targets validated
// elsewhere.
func WithoutValidation() Option { return func(c *config) { c.noValidate = true } }

// defaults is shared by every call without options, so the common call
// builds no configuration at all; a call with options copies it, and only
// that copy can reach the heap.
var defaults = config{maxBytes: DefaultMaxBytes}

func configure(opts []Option) *config {
	if len(opts) == 0 {
		return &defaults
	}
	c := defaults
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return &c
}

func (c *config) validator() *validator.Validate {
	if c.validate != nil {
		return c.validate
	}
	return defaultValidator()
}
