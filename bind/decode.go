// Package bind decodes a JSON request body strictly and validates it with
// validator/v10.
//
// Strict means: the Content-Type must be JSON, the body must fit the limit,
// member names match the struct's JSON names exactly (case-sensitively), a
// name may appear only once per object, members the type has no field for
// are refused, and the body holds exactly one JSON value. Every failure is
// returned as a *problem.Problem (reach it with errors.As, or hand the error
// to problem.From as is) coded invalid_json, unsupported_media_type,
// request_too_large or validation_failed. Field errors carry JSON Pointers
// (RFC 6901) into the document the client sent, never Go type or field
// names, and all of them are listed at once: a document that is not JSON,
// or whose members do not belong (unknown, repeated, wrongly cased), is
// invalid_json with every such member; a document that fits but has values
// of the wrong type or breaking their rules is validation_failed with every
// mistyped value and every broken rule together. A target type the
// decoder cannot use (json tags it cannot read) is the service's mistake
// and fails as internal, never as the client's.
//
// Decoding uses github.com/go-json-experiment/json (the out-of-tree home
// of encoding/json/v2): it is twice as fast as encoding/json and enforces
// exact names and unique members on every request at no extra cost. When
// it refuses a document, bind walks the document once more to list every
// problem in it, since the decoder stops at the first.
package bind

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/faultline-go/faultline/internal/toolarge"
	"github.com/faultline-go/faultline/problem"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Decode reads r's JSON body into a new T and validates it. On failure it
// returns the zero T and a *problem.Problem ready for problem.Write; the
// decoder's own error, if any, is wrapped for the log only.
func Decode[T any](r *http.Request, opts ...Option) (T, error) {
	var v T
	if p := decode(r, &v, reflect.TypeFor[T](), configure(opts)); p != nil {
		var zero T
		return zero, p
	}
	return v, nil
}

// DecodeInto is Decode into an existing value; dst must be a non-nil
// pointer. Members absent from the body leave dst's fields as they were.
func DecodeInto(r *http.Request, dst any, opts ...Option) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return problem.New(problem.Internal).Wrap(errors.New("bind: DecodeInto needs a non-nil pointer"))
	}
	if p := decode(r, dst, rv.Type().Elem(), configure(opts)); p != nil {
		return p
	}
	return nil
}

func decode(r *http.Request, dst any, t reflect.Type, cfg *config) *problem.Problem {
	if p := checkContentType(r.Header.Get("Content-Type")); p != nil {
		return p
	}
	if r.ContentLength > cfg.maxBytes {
		return toolarge.Problem(cfg.maxBytes, nil)
	}
	s := getScratch()
	defer putScratch(s)
	body, p := readBody(r, cfg.maxBytes, s)
	if p != nil {
		return p
	}
	if p := checkEncoding(r.Header.Get("Content-Encoding"), body); p != nil {
		return p
	}
	mistyped, p := unmarshal(body, dst, t, cfg.allowUnknown)
	if p != nil {
		return p
	}
	if mistyped == nil {
		if cfg.noValidate || !validated(t) {
			return nil
		}
		return validateValue(cfg, dst, body)
	}
	return mistypedProblem(mistyped, body, dst, t, cfg)
}

// mistypedProblem reports values of the wrong type together with the rules
// the rest of the document breaks, so a client fixes everything in one
// round: the decoder stopped at the first misfit, so the document is
// decoded again leaving misfits at their zero value, then validated; rules
// about a misfit (its zero value is not what the client sent) are dropped.
func mistypedProblem(m *mistyped, body []byte, dst any, t reflect.Type, cfg *config) *problem.Problem {
	fes := m.issues
	err := m.err
	if !cfg.noValidate && validated(t) {
		_ = jsonv2.Unmarshal(body, dst, lenient)
		if vp := validateValue(cfg, dst, body); vp != nil {
			if vp.Code() != problem.ValidationFailed {
				return vp
			}
			for _, fe := range vp.Errors() {
				if !under(fe.Pointer, m.issues) && len(fes) < maxFieldErrors {
					fes = append(fes, fe)
				}
			}
			err = errors.Join(err, vp.Unwrap())
		}
	}
	return problem.New(problem.ValidationFailed).WithErrors(fes...).Wrap(err)
}

// under reports whether ptr is one of the issues' pointers or inside one.
func under(ptr string, issues []problem.FieldError) bool {
	for _, fe := range issues {
		if ptr == fe.Pointer || strings.HasPrefix(ptr, fe.Pointer+"/") {
			return true
		}
	}
	return false
}

// lenient decodes every value it can and leaves one of the wrong type at
// its zero value instead of stopping: each scalar (or value of a type with
// its own unmarshaling) is decoded on its own and its error ignored, and
// objects and arrays that fit go on to the decoder's own handling, which
// calls back here for their members.
var lenient = jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v any) error {
	if dec.PeekKind() == 'n' || opens(reflect.TypeOf(v).Elem(), dec.PeekKind()) {
		return errors.ErrUnsupported
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	_ = jsonv2.Unmarshal(raw, v)
	return nil
}))

// opens reports whether a JSON value of kind k is an object or array that
// t takes member by member.
func opens(t reflect.Type, k jsontext.Kind) bool {
	pt := reflect.PointerTo(t)
	if pt.Implements(unmarshalerType) || pt.Implements(unmarshalerFromType) || pt.Implements(textUnmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer:
		return opens(t.Elem(), k)
	case reflect.Struct, reflect.Map:
		return k == '{'
	case reflect.Slice, reflect.Array:
		return k == '['
	}
	return false
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

// checkEncoding refuses a compressed body as RFC 9110 §15.5.16 says, with
// 415: read as JSON, gzip's first byte made it "not valid JSON (syntax
// error at byte 1)", sending the client to look for a mistake in JSON it
// got right. A body that is JSON passes whatever the header says, since a
// middleware may have decoded it and left the header.
func checkEncoding(ce string, body []byte) *problem.Problem {
	ce = strings.TrimSpace(ce)
	if ce == "" || strings.EqualFold(ce, "identity") || checkSyntax(body) == nil {
		return nil
	}
	return problem.New(problem.UnsupportedMediaType).
		WithDetail("The request body must be sent without Content-Encoding; compressed bodies are not accepted.")
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

// A scratch keeps the whole body so a refused document can be walked
// again for every problem in it. Scratches are pooled so the success path
// costs no more than the decoder's own buffering; oversized ones are
// dropped rather than held.
type scratch struct {
	buf   bytes.Buffer
	limit io.LimitedReader
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
		return nil, toolarge.Problem(limit, nil)
	}
	return s.buf.Bytes(), nil
}

func readProblem(err error) *problem.Problem {
	var limited *http.MaxBytesError
	switch {
	case errors.As(err, &limited):
		// A limit set upstream, by faultline's BodyLimit middleware or
		// http.MaxBytesReader, is the one the client ran into.
		return toolarge.Problem(limited.Limit, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(problem.InvalidJSON).WithDetail(truncatedDetail).Wrap(err)
	}
	return problem.New(problem.BadRequest).WithDetail("The request body could not be read.").Wrap(err)
}

const truncatedDetail = "The request body ended before the JSON value was complete."

// rejectUnknown is built once: options are interfaces, and building them
// per request would allocate on the success path.
var rejectUnknown = jsonv2.RejectUnknownMembers(true)

// mistyped is a document whose only problems are values of the wrong type
// (or out of range, or refused by their type): those are validation
// failures, reported with the document's other broken rules.
type mistyped struct {
	issues []problem.FieldError
	err    error
}

func unmarshal(body []byte, dst any, t reflect.Type, allowUnknown bool) (*mistyped, *problem.Problem) {
	first := bytes.TrimLeft(body, " \t\r\n")
	if len(first) == 0 {
		return nil, problem.New(problem.InvalidJSON).WithDetail("The request body is empty; a JSON value is required.")
	}
	var err error
	if allowUnknown {
		err = jsonv2.Unmarshal(body, dst)
	} else {
		err = jsonv2.Unmarshal(body, dst, rejectUnknown)
	}
	if err != nil {
		return decodeProblem(err, body, t, !allowUnknown)
	}
	// A type that keeps null as a value of its own (json.RawMessage,
	// jsontext.Value) was sent one; anything else was sent nothing.
	if first[0] == 'n' && indirect(t).Kind() != reflect.Interface && reflect.ValueOf(dst).Elem().IsZero() {
		return nil, problem.New(problem.InvalidJSON).WithDetail("The request body must be " + article(t) + ", not null.")
	}
	return nil, nil
}

// decodeProblem sorts what the decoder refused: malformed JSON and
// members that do not belong (unknown, repeated, wrongly cased, or a body
// of the wrong kind altogether) are invalid_json; values of the wrong type
// in an otherwise fitting document are returned as mistyped.
func decodeProblem(err error, body []byte, t reflect.Type, strict bool) (*mistyped, *problem.Problem) {
	var syntax *jsontext.SyntacticError
	if errors.As(err, &syntax) && !errors.Is(err, jsontext.ErrDuplicateName) {
		return nil, syntaxProblem(err, body)
	}
	// The decoder stops at its first error, which may come before a syntax
	// error further on: a body that is not JSON is answered as such, never
	// with field errors guessed from its broken tail.
	if serr := checkSyntax(body); serr != nil {
		return nil, syntaxProblem(serr, body)
	}
	if unusable(err) {
		return nil, problem.New(problem.Internal).Wrap(err)
	}
	issues := locate(body, t, strict)
	// The walk follows the decoder's rules; where a custom type's rules
	// differ, the decoder's own pointer still places the error.
	if at := decoderIssue(err); !listsPointer(issues, at.Pointer) {
		issues = append(issues, at)
	}
	if !misfitsOnly(issues) {
		return nil, problem.New(problem.InvalidJSON).
			WithDetail(issueDetails[issues[0].Code]).
			WithErrors(issues...).
			Wrap(err)
	}
	return &mistyped{issues: issues, err: err}, nil
}

// unusable reports whether the decoder refused the target type itself
// rather than the document: a struct whose json tags it cannot read
// (`json:"name, omitempty"`, a trailing comma, a repeated option) or
// that has no field it could fill takes no object at all, so every request
// would be told to fix a body it cannot fix. Such a struct refuses even
// {}, which no plain struct does otherwise.
func unusable(err error) bool {
	var semantic *jsonv2.SemanticError
	if !errors.As(err, &semantic) || semantic.GoType == nil || semantic.GoType.Kind() != reflect.Struct {
		return false
	}
	t := semantic.GoType
	pt := reflect.PointerTo(t)
	if pt.Implements(unmarshalerType) || pt.Implements(unmarshalerFromType) || pt.Implements(textUnmarshalerType) {
		return false
	}
	return jsonv2.Unmarshal([]byte("{}"), reflect.New(t).Interface()) != nil
}

// misfitsOnly reports whether every issue is a value inside the document
// (not the document itself) that its field cannot take.
func misfitsOnly(issues []problem.FieldError) bool {
	for _, fe := range issues {
		if fe.Pointer == "" || fe.Code == codeUnknownField || fe.Code == codeDuplicateField {
			return false
		}
	}
	return true
}

// checkSyntax reads the whole body as one JSON value, repeated names
// allowed (the walk reports those), and returns the first syntax error or
// errTrailingData.
func checkSyntax(body []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true))
	if err := dec.SkipValue(); err != nil {
		return err
	}
	switch _, err := dec.ReadToken(); err {
	case io.EOF:
		return nil
	case nil:
		return errTrailingData
	default:
		return err
	}
}

var errTrailingData = errors.New("bind: data after the JSON value")

func listsPointer(issues []problem.FieldError, ptr string) bool {
	for _, fe := range issues {
		if fe.Pointer == ptr {
			return true
		}
	}
	return false
}

func decoderIssue(err error) problem.FieldError {
	var (
		syntax   *jsontext.SyntacticError
		semantic *jsonv2.SemanticError
	)
	switch {
	case errors.As(err, &syntax):
		return problem.FieldError{Detail: duplicateDetail, Pointer: string(syntax.JSONPointer), Code: codeDuplicateField}
	case errors.As(err, &semantic) && errors.Is(err, jsonv2.ErrUnknownName):
		return problem.FieldError{Detail: unknownDetail, Pointer: string(semantic.JSONPointer), Code: codeUnknownField}
	case errors.As(err, &semantic):
		return problem.FieldError{Detail: "is not valid", Pointer: string(semantic.JSONPointer), Code: codeInvalidValue}
	}
	return problem.FieldError{Detail: "is not valid", Code: codeInvalidValue}
}

// syntaxProblem tells apart a value cut short, data after a complete
// value, and a malformed one, by where the error is.
func syntaxProblem(err error, body []byte) *problem.Problem {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return problem.New(problem.InvalidJSON).WithDetail(truncatedDetail).Wrap(err)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true))
	if first := dec.SkipValue(); first == nil {
		rest := bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n")
		at := strconv.Itoa(len(body) - len(rest) + 1)
		return problem.New(problem.InvalidJSON).
			WithDetail("The request body has data after the JSON value (at byte " + at + ").").Wrap(err)
	}
	detail := "The request body is not valid JSON."
	if syntax := (*jsontext.SyntacticError)(nil); errors.As(err, &syntax) {
		detail = "The request body is not valid JSON (syntax error at byte " + strconv.FormatInt(syntax.ByteOffset+1, 10) + ")."
	}
	return problem.New(problem.InvalidJSON).WithDetail(detail).Wrap(err)
}

var issueDetails = map[string]string{
	codeWrongType:      "A value in the request body has the wrong type.",
	codeOutOfRange:     "A number in the request body is out of range.",
	codeUnknownField:   "The request body has a field that is not accepted.",
	codeDuplicateField: "The request body names a field more than once.",
	codeInvalidValue:   "A value in the request body is not valid.",
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// article names what the body must be, for the whole-body null, as the
// decoder reads t: a byte slice and a type with its own text form are
// strings.
func article(t reflect.Type) string {
	t = indirect(t)
	switch {
	case reflect.PointerTo(t).Implements(textUnmarshalerType), t.Kind() == reflect.String,
		t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "a JSON string"
	case t.Kind() == reflect.Bool:
		return "a JSON boolean"
	case intKind(t), uintKind(t), t.Kind() == reflect.Float32, t.Kind() == reflect.Float64:
		return "a JSON number"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a JSON object"
	case reflect.Slice, reflect.Array:
		return "a JSON array"
	}
	return "a JSON value"
}
