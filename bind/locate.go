package bind

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
)

// issue is the first place in a syntactically valid document that does not
// fit the target type.
type issue struct {
	path   []string
	detail string
	code   string
}

// Sub-codes of invalid_json field errors, stable for clients to branch on.
const (
	codeWrongType    = "wrong_type"
	codeOutOfRange   = "out_of_range"
	codeUnknownField = "unknown_field"
	codeInvalidValue = "invalid_value"
)

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// errMalformed stops the walk on input the scanner did not expect; the
// decoder accepted the syntax, so this only guards against a mismatch.
var errMalformed = errors.New("bind: malformed document")

// locator walks a document the decoder already found well-formed, following
// the target type by encoding/json's rules, to find where the decoder's
// error happened. encoding/json reports type errors with a dotted path that
// lacks array indices and unknown fields with no path at all; walking the
// document gives the exact pointer, and a detail phrased for clients.
type locator struct {
	data   []byte
	pos    int
	strict bool
	path   []string
}

func locate(data []byte, t reflect.Type, strict bool) (found *issue) {
	l := &locator{data: data, strict: strict}
	defer func() {
		if r := recover(); r != nil {
			if r != errMalformed {
				panic(r)
			}
			found = nil
		}
	}()
	return l.value(t, false)
}

func (l *locator) fail(detail, code string) *issue {
	return &issue{path: append([]string(nil), l.path...), detail: detail, code: code}
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

// skip moves past one value and returns its raw bytes.
func (l *locator) skip() []byte {
	start := l.pos
	depth := 0
	for {
		c := l.peek()
		switch c {
		case '{', '[':
			depth++
			l.pos++
		case '}', ']':
			depth--
			l.pos++
		case '"':
			l.rawString()
		case ',', ':':
			l.pos++
		default:
			l.literal()
		}
		if depth == 0 {
			return l.data[start:l.pos]
		}
		if depth < 0 {
			panic(errMalformed)
		}
	}
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
	var s string
	if err := json.Unmarshal(l.rawString(), &s); err != nil {
		panic(errMalformed)
	}
	return s
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

func (l *locator) value(t reflect.Type, quoted bool) *issue {
	c := l.peek()
	if c == 'n' {
		l.literal()
		return nil
	}
	for {
		if reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
			raw := l.skip()
			u := reflect.New(t).Interface().(json.Unmarshaler)
			if u.UnmarshalJSON(raw) != nil {
				return l.fail("is not valid", codeInvalidValue)
			}
			return nil
		}
		if reflect.PointerTo(t).Implements(textUnmarshalerType) {
			if c != '"' {
				l.skip()
				return l.fail("must be a string", codeWrongType)
			}
			s := l.str()
			u := reflect.New(t).Interface().(encoding.TextUnmarshaler)
			if u.UnmarshalText([]byte(s)) != nil {
				return l.fail("is not valid", codeInvalidValue)
			}
			return nil
		}
		if t.Kind() != reflect.Pointer {
			break
		}
		t = t.Elem()
	}
	if quoted {
		return l.quoted(t)
	}
	switch t.Kind() {
	case reflect.Interface:
		l.skip()
		if t.NumMethod() != 0 {
			return l.fail("has an unsupported type", codeWrongType)
		}
		return nil
	case reflect.Struct:
		return l.object(t)
	case reflect.Map:
		return l.mapValue(t)
	case reflect.Slice:
		if c == '"' && t.Elem().Kind() == reflect.Uint8 {
			if _, err := base64.StdEncoding.DecodeString(l.str()); err != nil {
				return l.fail("must be base64-encoded", codeInvalidValue)
			}
			return nil
		}
		return l.array(t, -1)
	case reflect.Array:
		return l.array(t, t.Len())
	}
	if c == '{' || c == '[' {
		l.skip()
		return l.fail(expectation(t), codeWrongType)
	}
	if c == '"' {
		s := l.str()
		if t.Kind() != reflect.String {
			return l.fail(expectation(t), codeWrongType)
		}
		if t == numberType && !validNumber(s) {
			return l.fail("must be a number", codeWrongType)
		}
		return nil
	}
	return l.scalar(t, l.literal())
}

// scalar checks a number or boolean literal against a scalar type.
func (l *locator) scalar(t reflect.Type, lit string) *issue {
	isBool := lit == "true" || lit == "false"
	switch t.Kind() {
	case reflect.Bool:
		if !isBool {
			return l.fail(expectation(t), codeWrongType)
		}
		return nil
	case reflect.String:
		if t == numberType && !isBool {
			return nil
		}
		return l.fail(expectation(t), codeWrongType)
	}
	if isBool || !validNumber(lit) {
		return l.fail(expectation(t), codeWrongType)
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if strings.ContainsAny(lit, ".eE") {
			return l.fail("must be an integer", codeWrongType)
		}
		if _, err := strconv.ParseInt(lit, 10, t.Bits()); err != nil {
			return l.fail(rangeDetail(t), codeOutOfRange)
		}
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if strings.ContainsAny(lit, ".eE") {
			return l.fail("must be an integer", codeWrongType)
		}
		if _, err := strconv.ParseUint(lit, 10, t.Bits()); err != nil {
			return l.fail(rangeDetail(t), codeOutOfRange)
		}
		return nil
	case reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(lit, t.Bits()); err != nil {
			return l.fail("is out of range", codeOutOfRange)
		}
		return nil
	}
	return l.fail("has an unsupported type", codeWrongType)
}

// quoted checks a field tagged ",string", which must carry its value inside
// a JSON string.
func (l *locator) quoted(t reflect.Type) *issue {
	if l.peek() != '"' {
		l.skip()
		return l.fail("must be a string", codeWrongType)
	}
	inner := l.str()
	if t.Kind() == reflect.String {
		var s string
		if json.Unmarshal([]byte(inner), &s) != nil {
			return l.fail("is not valid", codeInvalidValue)
		}
		return nil
	}
	if issue := l.scalar(t, inner); issue != nil {
		issue.code = codeInvalidValue
		return issue
	}
	return nil
}

func (l *locator) object(t reflect.Type) *issue {
	if l.peek() != '{' {
		l.skip()
		return l.fail(expectation(t), codeWrongType)
	}
	si := infoOf(t)
	l.pos++
	for l.peek() != '}' {
		if l.peek() == ',' {
			l.pos++
		}
		key := l.str()
		l.expect(':')
		l.path = append(l.path, key)
		f, ok := si.lookup(key)
		switch {
		case ok:
			if issue := l.value(f.typ, f.quoted); issue != nil {
				return issue
			}
		case l.strict:
			return l.fail("is not a known field", codeUnknownField)
		default:
			l.skip()
		}
		l.path = l.path[:len(l.path)-1]
	}
	l.pos++
	return nil
}

func (l *locator) mapValue(t reflect.Type) *issue {
	if l.peek() != '{' {
		l.skip()
		return l.fail(expectation(t), codeWrongType)
	}
	kt := t.Key()
	keyText := reflect.PointerTo(kt).Implements(textUnmarshalerType)
	switch {
	case keyText, kt.Kind() == reflect.String:
	case intKind(kt) || uintKind(kt):
	default:
		l.skip()
		return l.fail("has an unsupported type", codeWrongType)
	}
	l.pos++
	for l.peek() != '}' {
		if l.peek() == ',' {
			l.pos++
		}
		key := l.str()
		l.expect(':')
		l.path = append(l.path, key)
		switch {
		case keyText:
			if reflect.New(kt).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(key)) != nil {
				return l.fail("is not a valid key", codeInvalidValue)
			}
		case intKind(kt):
			if _, err := strconv.ParseInt(key, 10, kt.Bits()); err != nil {
				return l.fail("must have an integer key", codeInvalidValue)
			}
		case uintKind(kt):
			if _, err := strconv.ParseUint(key, 10, kt.Bits()); err != nil {
				return l.fail("must have a non-negative integer key", codeInvalidValue)
			}
		}
		if issue := l.value(t.Elem(), false); issue != nil {
			return issue
		}
		l.path = l.path[:len(l.path)-1]
	}
	l.pos++
	return nil
}

// array walks the elements; limit >= 0 is a Go array's length, beyond which
// encoding/json discards elements without looking at them.
func (l *locator) array(t reflect.Type, limit int) *issue {
	if l.peek() != '[' {
		l.skip()
		return l.fail(expectation(t), codeWrongType)
	}
	l.pos++
	for i := 0; l.peek() != ']'; i++ {
		if l.peek() == ',' {
			l.pos++
		}
		if limit >= 0 && i >= limit {
			l.skip()
			continue
		}
		l.path = append(l.path, strconv.Itoa(i))
		if issue := l.value(t.Elem(), false); issue != nil {
			return issue
		}
		l.path = l.path[:len(l.path)-1]
	}
	l.pos++
	return nil
}

// expectation names the JSON type a Go type accepts, without naming the Go
// type.
func expectation(t reflect.Type) string {
	switch {
	case t == numberType:
		return "must be a number"
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
	return json.Valid([]byte(s))
}
