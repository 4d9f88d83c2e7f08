// Package bind decodes a JSON request body strictly and validates it with
// validator/v10. Every failure comes back as a ready problem: invalid_json,
// unsupported_media_type, request_too_large or validation_failed, with
// JSON Pointers into the document the client sent and no Go type names.
package bind

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/go-playground/validator/v10"
)

// DefaultMaxBytes is the body limit when no WithMaxBytes option is given.
const DefaultMaxBytes int64 = 1 << 20

// Option configures one Decode call.
//
// It is a plain value rather than a function so that applying options does
// not force the configuration onto the heap on every request.
type Option struct {
	maxBytes     int64
	validate     *validator.Validate
	allowUnknown bool
	noValidate   bool
}

// WithMaxBytes limits the body to n bytes (default DefaultMaxBytes); a
// larger body fails as request_too_large naming n.
func WithMaxBytes(n int64) Option { return Option{maxBytes: n} }

// WithValidator validates with v instead of the package's default
// validator, for services that registered their own validations on it.
func WithValidator(v *validator.Validate) Option { return Option{validate: v} }

// AllowUnknownFields accepts members the target type has no field for;
// by default they fail as invalid_json so a misspelt field never goes
// silently unused.
func AllowUnknownFields() Option { return Option{allowUnknown: true} }

// WithoutValidation skips struct validation, for targets validated
// elsewhere.
func WithoutValidation() Option { return Option{noValidate: true} }

type config struct {
	maxBytes     int64
	validate     *validator.Validate
	allowUnknown bool
	noValidate   bool
}

func newConfig(opts []Option) config {
	c := config{maxBytes: DefaultMaxBytes}
	for _, o := range opts {
		if o.maxBytes > 0 {
			c.maxBytes = o.maxBytes
		}
		if o.validate != nil {
			c.validate = o.validate
		}
		c.allowUnknown = c.allowUnknown || o.allowUnknown
		c.noValidate = c.noValidate || o.noValidate
	}
	if c.validate == nil {
		c.validate = Validator()
	}
	return c
}

// Decode reads r's JSON body into a new T and validates it. On failure it
// returns a problem ready for problem.Write; the decoding error, if any, is
// wrapped for the log only.
func Decode[T any](r *http.Request, opts ...Option) (T, *problem.Problem) {
	var v T
	cfg := newConfig(opts)
	p := decode(r, &v, reflect.TypeFor[T](), &cfg)
	return v, p
}

// DecodeInto is Decode into an existing value; dst must be a non-nil
// pointer.
func DecodeInto(r *http.Request, dst any, opts ...Option) *problem.Problem {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return problem.New(problem.Internal).WithDetail("bind: DecodeInto needs a non-nil pointer")
	}
	cfg := newConfig(opts)
	return decode(r, dst, rv.Type().Elem(), &cfg)
}

func decode(r *http.Request, dst any, t reflect.Type, cfg *config) *problem.Problem {
	if p := checkContentType(r.Header.Get("Content-Type")); p != nil {
		return p
	}
	if r.ContentLength > cfg.maxBytes {
		return problem.New(problem.RequestTooLarge).WithDetail(problemhook.TooLargeDetail(cfg.maxBytes))
	}
	s := getScratch()
	defer putScratch(s)
	body, p := readBody(r, cfg.maxBytes, s)
	if p != nil {
		return p
	}
	s.body.Reset(body)
	if p := unmarshal(&s.body, body, dst, t, cfg.allowUnknown); p != nil {
		return p
	}
	if cfg.noValidate || indirect(t).Kind() != reflect.Struct {
		return nil
	}
	return validateValue(cfg.validate, dst)
}

// checkContentType accepts application/json and any application/*+json,
// case-insensitively and with parameters, as long as a charset, if named,
// is UTF-8: JSON has no other encoding (RFC 8259 §8.1).
func checkContentType(ct string) *problem.Problem {
	mt, params, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(mt)
	if !isJSONMediaType(mt) {
		return problem.New(problem.UnsupportedMediaType).
			WithDetail("The request body must be JSON, sent with Content-Type: application/json.")
	}
	for params != "" {
		var param string
		param, params, _ = strings.Cut(params, ";")
		name, value, _ := strings.Cut(param, "=")
		if !strings.EqualFold(strings.TrimSpace(name), "charset") {
			continue
		}
		value = strings.Trim(strings.TrimSpace(value), `"`)
		if !strings.EqualFold(value, "utf-8") && !strings.EqualFold(value, "utf8") {
			return problem.New(problem.UnsupportedMediaType).
				WithDetail("The request body must be JSON encoded as UTF-8.")
		}
	}
	return nil
}

func isJSONMediaType(mt string) bool {
	const app = "application/"
	if len(mt) < len(app) || !strings.EqualFold(mt[:len(app)], app) {
		return false
	}
	sub := mt[len(app):]
	if strings.EqualFold(sub, "json") {
		return true
	}
	const suffix = "+json"
	if len(sub) <= len(suffix) || !strings.EqualFold(sub[len(sub)-len(suffix):], suffix) {
		return false
	}
	for i := 0; i < len(sub)-len(suffix); i++ {
		if !tokenChar(sub[i]) {
			return false
		}
	}
	return true
}

// tokenChar reports whether c may appear in an RFC 9110 token.
func tokenChar(c byte) bool {
	return c > ' ' && c < 0x7f && !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, rune(c))
}

// A scratch keeps the whole body so a failed decode can be walked again for
// an exact pointer, with the readers around it. Scratches are pooled so the
// success path costs no more than the decoder's own buffering; oversized
// ones are dropped rather than held.
type scratch struct {
	buf   bytes.Buffer
	limit io.LimitedReader
	body  bytes.Reader
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

const maxPooledBuffer = 64 << 10

func getScratch() *scratch { return scratches.Get().(*scratch) }

func putScratch(s *scratch) {
	if s.buf.Cap() > maxPooledBuffer {
		return
	}
	s.buf.Reset()
	s.limit = io.LimitedReader{}
	s.body.Reset(nil)
	scratches.Put(s)
}

// readBody reads at most limit bytes; one byte more proves the body too
// large without reading the rest of it.
func readBody(r *http.Request, limit int64, s *scratch) ([]byte, *problem.Problem) {
	if r.Body == nil {
		return nil, nil
	}
	if r.ContentLength > 0 {
		s.buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	s.limit = io.LimitedReader{R: r.Body, N: limit + 1}
	n, err := s.buf.ReadFrom(&s.limit)
	if err != nil {
		return nil, readProblem(err)
	}
	if n > limit {
		return nil, problem.New(problem.RequestTooLarge).WithDetail(problemhook.TooLargeDetail(limit))
	}
	return s.buf.Bytes(), nil
}

func readProblem(err error) *problem.Problem {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		// A limit set upstream, by faultline's BodyLimit middleware or
		// http.MaxBytesReader, is the one the client ran into.
		return problem.New(problem.RequestTooLarge).WithDetail(problemhook.TooLargeDetail(tooLarge.Limit)).Wrap(err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(problem.InvalidJSON).WithDetail(truncatedDetail).Wrap(err)
	}
	return problem.New(problem.BadRequest).WithDetail("The request body could not be read.").Wrap(err)
}

const truncatedDetail = "The request body ended before the JSON value was complete."

func unmarshal(rd io.Reader, body []byte, dst any, t reflect.Type, allowUnknown bool) *problem.Problem {
	dec := json.NewDecoder(rd)
	if !allowUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		return decodeProblem(err, body, t, !allowUnknown)
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(body[end:], " \t\r\n"); len(rest) > 0 {
		at := len(body) - len(rest) + 1
		return problem.New(problem.InvalidJSON).
			WithDetail("The request body has data after the JSON value (at byte " + strconv.Itoa(at) + ").")
	}
	if first := bytes.TrimLeft(body, " \t\r\n"); first[0] == 'n' && indirect(t).Kind() != reflect.Interface {
		return problem.New(problem.InvalidJSON).WithDetail("The request body must be " + article(t) + ", not null.")
	}
	return nil
}

func decodeProblem(err error, body []byte, t reflect.Type, strict bool) *problem.Problem {
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return problem.New(problem.InvalidJSON).WithDetail("The request body is empty; a JSON value is required.").Wrap(err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(problem.InvalidJSON).WithDetail(truncatedDetail).Wrap(err)
	case errors.As(err, &syntax):
		return problem.New(problem.InvalidJSON).
			WithDetail("The request body is not valid JSON (syntax error at byte " + strconv.FormatInt(syntax.Offset, 10) + ").").
			Wrap(err)
	}
	found := locate(body, t, strict)
	if found == nil {
		return problem.New(problem.InvalidJSON).WithDetail("A value in the request body is not valid.").Wrap(err)
	}
	return problem.New(problem.InvalidJSON).
		WithDetail(issueDetails[found.code]).
		WithErrors(problem.FieldError{Detail: found.detail, Pointer: pointer(found.path), Code: found.code}).
		Wrap(err)
}

var issueDetails = map[string]string{
	codeWrongType:    "A value in the request body has the wrong type.",
	codeOutOfRange:   "A number in the request body is out of range.",
	codeUnknownField: "The request body has a field that is not accepted.",
	codeInvalidValue: "A value in the request body is not valid.",
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// article names what the body must be, for the whole-body null.
func article(t reflect.Type) string {
	switch indirect(t).Kind() {
	case reflect.Struct, reflect.Map:
		return "a JSON object"
	case reflect.Slice, reflect.Array:
		return "a JSON array"
	}
	return "a JSON value"
}
