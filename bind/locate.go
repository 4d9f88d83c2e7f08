package bind

import (
	"encoding"
	"encoding/base64"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/problem"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Sub-codes of invalid_json field errors, stable for clients to branch on.
const (
	codeWrongType      = "wrong_type"
	codeOutOfRange     = "out_of_range"
	codeUnknownField   = "unknown_field"
	codeDuplicateField = "duplicate_field"
	codeInvalidValue   = "invalid_value"
)

const (
	unknownDetail   = "is not a known field"
	duplicateDetail = "appears more than once"
)

// maxFieldErrors bounds the errors array: a hostile body of a million
// mistyped values must not become a response a million entries long.
const maxFieldErrors = 100

var (
	unmarshalerType     = reflect.TypeFor[jsonv2.Unmarshaler]()
	unmarshalerFromType = reflect.TypeFor[jsonv2.UnmarshalerFrom]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// errMalformed stops the walk on input the scanner did not expect; the
// decoder accepted the syntax up to its error, so this only guards against
// a mismatch. errFull stops it once maxFieldErrors were found.
var (
	errMalformed = errors.New("bind: malformed document")
	errFull      = errors.New("bind: enough field errors")
)

// locator walks a document the decoder refused, following the target type
// by the decoder's rules, and lists every place that does not fit: the
// decoder stops at its first error, and a client fixing a request wants
// them all. Details are phrased for clients and never name Go types.
type locator struct {
	data   []byte
	pos    int
	strict bool
	path   []string
	found  []problem.FieldError
}

func locate(data []byte, t reflect.Type, strict bool) (found []problem.FieldError) {
	l := &locator{data: data, strict: strict}
	defer func() {
		if r := recover(); r != nil {
			if r != errMalformed && r != errFull {
				panic(r)
			}
			found = l.found
		}
	}()
	l.value(t, false)
	return l.found
}

func (l *locator) fail(detail, code string) {
	l.found = append(l.found, problem.FieldError{Detail: detail, Pointer: pointer(l.path), Code: code})
	if len(l.found) >= maxFieldErrors {
		panic(errFull)
	}
}

func (l *locator) ws() {
	for l.pos < len(l.data) {
		switch l.data[l.pos] {
		case ' ', '\t', '\n', '\r':
			l.pos++
		default:
			return
		}
	}
}

func (l *locator) peek() byte {
	l.ws()
	if l.pos >= len(l.data) {
		panic(errMalformed)
	}
	return l.data[l.pos]
}

func (l *locator) expect(c byte) {
	if l.peek() != c {
		panic(errMalformed)
	}
	l.pos++
}

// skip moves past one value and returns its raw bytes. The decoder
// refuses a repeated member name anywhere in the document, even inside a
// value no field takes or one of the wrong type, so skip lists those too.
func (l *locator) skip() []byte {
	start := l.pos
	switch l.peek() {
	case '{':
		l.members(func(string) { l.skip() })
	case '[':
		l.pos++
		for i := 0; l.peek() != ']'; i++ {
			if l.peek() == ',' {
				l.pos++
			}
			l.path = append(l.path, strconv.Itoa(i))
			l.skip()
			l.path = l.path[:len(l.path)-1]
		}
		l.pos++
	case '"':
		l.rawString()
	default:
		l.literal()
	}
	return l.data[start:l.pos]
}

func (l *locator) rawString() []byte {
	if l.peek() != '"' {
		panic(errMalformed)
	}
	start := l.pos
	l.pos++
	for l.pos < len(l.data) {
		switch l.data[l.pos] {
		case '\\':
			l.pos += 2
		case '"':
			l.pos++
			return l.data[start:l.pos]
		default:
			l.pos++
		}
	}
	panic(errMalformed)
}

func (l *locator) str() string {
	s, err := jsontext.AppendUnquote(nil, l.rawString())
	if err != nil {
		panic(errMalformed)
	}
	return string(s)
}

func (l *locator) literal() string {
	start := l.pos
	for l.pos < len(l.data) && strings.IndexByte("-+.0123456789eEtrufalsn", l.data[l.pos]) >= 0 {
		l.pos++
	}
	if l.pos == start {
		panic(errMalformed)
	}
	return string(l.data[start:l.pos])
}

func (l *locator) value(t reflect.Type, quoted bool) {
	c := l.peek()
	if c == 'n' {
		l.literal()
		return
	}
	for {
		pt := reflect.PointerTo(t)
		switch {
		case pt.Implements(unmarshalerFromType):
			// Reads from the decoder's stream, which a walk cannot
			// offer; the decoder's own pointer places its errors.
			l.skip()
			return
		case pt.Implements(unmarshalerType):
			raw := l.skip()
			if reflect.New(t).Interface().(jsonv2.Unmarshaler).UnmarshalJSON(raw) != nil {
				l.fail("is not valid", codeInvalidValue)
			}
			return
		case pt.Implements(textUnmarshalerType):
			if c != '"' {
				l.skip()
				l.fail("must be a string", codeWrongType)
				return
			}
			s := l.str()
			if reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)) != nil {
				l.fail("is not valid", codeInvalidValue)
			}
			return
		}
		if t.Kind() != reflect.Pointer {
			break
		}
		t = t.Elem()
	}
	if quoted {
		l.quoted(t)
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		l.skip()
		if t.NumMethod() != 0 {
			l.fail("has an unsupported type", codeWrongType)
		}
		return
	case reflect.Struct:
		l.object(t)
		return
	case reflect.Map:
		l.mapValue(t)
		return
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && c == '"' {
			if _, err := base64.StdEncoding.DecodeString(l.str()); err != nil {
				l.fail("must be base64-encoded", codeInvalidValue)
			}
			return
		}
		l.array(t)
		return
	case reflect.Array:
		l.array(t)
		return
	}
	if c == '{' || c == '[' {
		l.skip()
		l.fail(expectation(t), codeWrongType)
		return
	}
	if c == '"' {
		l.str()
		if t.Kind() != reflect.String {
			l.fail(expectation(t), codeWrongType)
		}
		return
	}
	l.scalar(t, l.literal(), codeWrongType)
}

// scalar checks a number or boolean literal against a scalar type; a
// mismatch is reported with code, which differs for a quoted number.
func (l *locator) scalar(t reflect.Type, lit, code string) {
	isBool := lit == "true" || lit == "false"
	switch t.Kind() {
	case reflect.Bool:
		if !isBool {
			l.fail(expectation(t), code)
		}
		return
	case reflect.String:
		l.fail(expectation(t), code)
		return
	}
	if isBool || !validNumber(lit) {
		l.fail(expectation(t), code)
		return
	}
	switch {
	case intKind(t):
		if strings.ContainsAny(lit, ".eE") {
			l.fail("must be an integer", code)
		} else if _, err := strconv.ParseInt(lit, 10, t.Bits()); err != nil {
			l.fail(rangeDetail(t), codeOutOfRange)
		}
	case uintKind(t):
		if strings.ContainsAny(lit, ".eE") {
			l.fail("must be an integer", code)
		} else if _, err := strconv.ParseUint(lit, 10, t.Bits()); err != nil {
			l.fail(rangeDetail(t), codeOutOfRange)
		}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		if _, err := strconv.ParseFloat(lit, t.Bits()); err != nil {
			l.fail("is out of range", codeOutOfRange)
		}
	default:
		l.fail("has an unsupported type", codeWrongType)
	}
}

// quoted checks a number field tagged ",string", whose value must be a
// JSON string holding a JSON number.
func (l *locator) quoted(t reflect.Type) {
	if l.peek() != '"' {
		l.skip()
		l.fail("must be a string holding a number", codeWrongType)
		return
	}
	l.scalar(t, l.str(), codeInvalidValue)
}

func (l *locator) object(t reflect.Type) {
	if l.peek() != '{' {
		l.skip()
		l.fail(expectation(t), codeWrongType)
		return
	}
	si := infoOf(t)
	l.members(func(key string) {
		switch f, ok := si.lookup(key); {
		case ok:
			l.value(f.typ, f.quoted)
		case l.strict:
			l.skip()
			l.fail(unknownMessage(si, key), codeUnknownField)
		default:
			l.skip()
		}
	})
}

// members walks the object at the cursor with each member's name on the
// path. A repeated name is listed and its value skipped (the decoder
// refuses one anywhere in the document); every other member is handed to
// each, which moves past its value.
func (l *locator) members(each func(key string)) {
	var seen map[string]struct{}
	l.pos++
	for l.peek() != '}' {
		if l.peek() == ',' {
			l.pos++
		}
		key := l.str()
		l.expect(':')
		l.path = append(l.path, key)
		if _, dup := seen[key]; dup {
			l.skip()
			l.fail(duplicateDetail, codeDuplicateField)
		} else {
			if seen == nil {
				seen = make(map[string]struct{})
			}
			seen[key] = struct{}{}
			each(key)
		}
		l.path = l.path[:len(l.path)-1]
	}
	l.pos++
}

// unknownMessage names the field a member differs from only in case:
// encoding/json used to accept "SKU" for "sku", so clients may send it.
func unknownMessage(si *structInfo, key string) string {
	if name, ok := si.foldedName(key); ok {
		return unknownDetail + "; names are case-sensitive: did you mean " + strconv.Quote(name) + "?"
	}
	return unknownDetail
}

func (l *locator) mapValue(t reflect.Type) {
	if l.peek() != '{' {
		l.skip()
		l.fail(expectation(t), codeWrongType)
		return
	}
	kt := t.Key()
	keyText := reflect.PointerTo(kt).Implements(textUnmarshalerType)
	l.members(func(key string) {
		if l.validKey(kt, keyText, key) {
			l.value(t.Elem(), false)
		} else {
			l.skip()
		}
	})
}

func (l *locator) validKey(kt reflect.Type, keyText bool, key string) bool {
	switch {
	case keyText:
		if reflect.New(kt).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(key)) != nil {
			l.fail("is not a valid key", codeInvalidValue)
			return false
		}
	case kt.Kind() == reflect.String:
	case intKind(kt):
		if _, err := strconv.ParseInt(key, 10, kt.Bits()); err != nil {
			l.fail("must have an integer key", codeInvalidValue)
			return false
		}
	case uintKind(kt):
		if _, err := strconv.ParseUint(key, 10, kt.Bits()); err != nil {
			l.fail("must have a non-negative integer key", codeInvalidValue)
			return false
		}
	default:
		l.fail("has an unsupported type", codeWrongType)
		return false
	}
	return true
}

// array walks the elements of a slice or a Go array; a Go array refuses
// more elements than its length, as the decoder does.
func (l *locator) array(t reflect.Type) {
	if l.peek() != '[' {
		l.skip()
		l.fail(expectation(t), codeWrongType)
		return
	}
	l.pos++
	for i := 0; l.peek() != ']'; i++ {
		if l.peek() == ',' {
			l.pos++
		}
		l.path = append(l.path, strconv.Itoa(i))
		if t.Kind() == reflect.Array && i >= t.Len() {
			l.skip()
			l.fail("must contain at most "+strconv.Itoa(t.Len())+plural(strconv.Itoa(t.Len()), " item", " items"), codeInvalidValue)
		} else {
			l.value(t.Elem(), false)
		}
		l.path = l.path[:len(l.path)-1]
	}
	l.pos++
}

// expectation names the JSON type a Go type accepts, without naming the Go
// type.
func expectation(t reflect.Type) string {
	switch {
	case intKind(t), uintKind(t):
		return "must be an integer"
	}
	switch t.Kind() {
	case reflect.String:
		return "must be a string"
	case reflect.Bool:
		return "must be a boolean"
	case reflect.Float32, reflect.Float64:
		return "must be a number"
	case reflect.Struct, reflect.Map:
		return "must be an object"
	case reflect.Slice, reflect.Array:
		return "must be an array"
	}
	return "has an unsupported type"
}

func rangeDetail(t reflect.Type) string {
	bits := t.Bits()
	if uintKind(t) {
		return "must be an integer between 0 and " + strconv.FormatUint(1<<bits-1, 10)
	}
	return "must be an integer between " + strconv.FormatInt(-1<<(bits-1), 10) + " and " + strconv.FormatInt(1<<(bits-1)-1, 10)
}

func intKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

func uintKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// validNumber reports whether s is a JSON number literal.
func validNumber(s string) bool {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return false
	}
	return jsontext.Value(s).IsValid()
}
