package bind

import (
	"bytes"
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// pointer renders path segments as an RFC 6901 JSON Pointer.
func pointer(segments []string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		escapeSegment(&b, s)
	}
	return b.String()
}

func escapeSegment(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteByte(s[i])
		}
	}
}

// namespacePointer turns validator's StructNamespace (Go field names, with
// "[i]" or "[key]" after slices and maps) into a JSON Pointer over the
// document. It walks the namespace along the value itself: Go names map to
// JSON names through the type, embedded structs drop out as the decoder
// promotes their fields, and map keys are matched against the real keys
// because validator prints them unescaped, so a key holding "]" or "." would
// make the text alone ambiguous. ok is false when the namespace does not
// fit the value, so no wrong pointer is ever reported.
func namespacePointer(root reflect.Value, ns string) (string, bool) {
	for root.Kind() == reflect.Pointer || root.Kind() == reflect.Interface {
		if root.IsNil() {
			return "", false
		}
		root = root.Elem()
	}
	// A struct's namespace opens with its type's name; a collection's,
	// validated by Var, opens with the first element's "[i]".
	isStruct := root.Kind() == reflect.Struct
	if name := root.Type().Name(); name != "" && isStruct {
		rest, ok := strings.CutPrefix(ns, name+".")
		if !ok {
			return "", false
		}
		ns = rest
	}
	segs, ok := walkNamespace(root, ns, nil, isStruct)
	if !ok {
		return "", false
	}
	return pointer(segs), true
}

// walkNamespace consumes ns from v. field is true where ns starts with a
// field name (right after a struct), false where it continues after one.
func walkNamespace(v reflect.Value, ns string, segs []string, field bool) ([]string, bool) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return segs, ns == ""
		}
		v = v.Elem()
	}
	if ns == "" {
		return segs, true
	}
	if field {
		if v.Kind() != reflect.Struct {
			return nil, false
		}
		end := strings.IndexAny(ns, ".[")
		if end < 0 {
			end = len(ns)
		}
		df, ok := infoOf(v.Type()).direct[ns[:end]]
		if !ok {
			return nil, false
		}
		if !df.promoted {
			segs = append(segs, df.segment)
		}
		return walkNamespace(v.FieldByName(ns[:end]), ns[end:], segs, false)
	}
	switch ns[0] {
	case '.':
		return walkNamespace(v, ns[1:], segs, true)
	case '[':
	default:
		return nil, false
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		end := strings.IndexByte(ns, ']')
		if end < 0 {
			return nil, false
		}
		i, err := strconv.Atoi(ns[1:end])
		if err != nil || i < 0 || i >= v.Len() {
			return nil, false
		}
		return walkNamespace(v.Index(i), ns[end+1:], append(segs, ns[1:end]), false)
	case reflect.Map:
		return walkMapKey(v, ns, segs)
	}
	return nil, false
}

// walkMapKey picks the key whose printed form opens ns and whose remainder
// still fits the value; the longest such key wins so "a]" beats "a".
func walkMapKey(v reflect.Value, ns string, segs []string) ([]string, bool) {
	if plainKey(v.Type().Key()) {
		return lookupMapKey(v, ns, segs)
	}
	var (
		best    []string
		bestLen = -1
	)
	iter := v.MapRange()
	for iter.Next() {
		printed := printKey(iter.Key())
		rest, ok := strings.CutPrefix(ns[1:], printed+"]")
		if !ok || len(printed) <= bestLen {
			continue
		}
		key, ok := jsonKey(iter.Key())
		if !ok {
			continue
		}
		out, ok := walkNamespace(iter.Value(), rest, append(segs[:len(segs):len(segs)], key), false)
		if ok {
			best, bestLen = out, len(printed)
		}
	}
	return best, bestLen >= 0
}

var (
	stringerType  = reflect.TypeFor[fmt.Stringer]()
	errorType     = reflect.TypeFor[error]()
	formatterType = reflect.TypeFor[fmt.Formatter]()
)

// plainKey reports whether validator prints keys of type kt as their text
// or decimal value, so a printed key can be parsed back and looked up.
func plainKey(kt reflect.Type) bool {
	if kt.Implements(stringerType) || kt.Implements(errorType) || kt.Implements(formatterType) {
		return false
	}
	return kt.Kind() == reflect.String || intKind(kt) || uintKind(kt)
}

// lookupMapKey is walkMapKey for plain keys: each ']' in ns may close the
// key, and the key it closes is looked up rather than every key printed,
// which cost a pass over the whole map per field error (seconds for one
// body of a few thousand failing entries).
func lookupMapKey(v reflect.Value, ns string, segs []string) ([]string, bool) {
	kt := v.Type().Key()
	for end := strings.LastIndexByte(ns, ']'); end > 0; end = strings.LastIndexByte(ns[:end], ']') {
		k, ok := parseKey(kt, ns[1:end])
		if !ok {
			continue
		}
		val := v.MapIndex(k)
		if !val.IsValid() {
			continue
		}
		key, ok := jsonKey(k)
		if !ok {
			continue
		}
		if out, ok := walkNamespace(val, ns[end+1:], append(segs[:len(segs):len(segs)], key), false); ok {
			return out, true
		}
	}
	return nil, false
}

// parseKey reads back a plain key as validator printed it.
func parseKey(kt reflect.Type, s string) (reflect.Value, bool) {
	k := reflect.New(kt).Elem()
	switch {
	case kt.Kind() == reflect.String:
		k.SetString(s)
	case intKind(kt):
		n, err := strconv.ParseInt(s, 10, kt.Bits())
		if err != nil || strconv.FormatInt(n, 10) != s {
			return reflect.Value{}, false
		}
		k.SetInt(n)
	default:
		n, err := strconv.ParseUint(s, 10, kt.Bits())
		if err != nil || strconv.FormatUint(n, 10) != s {
			return reflect.Value{}, false
		}
		k.SetUint(n)
	}
	return k, true
}

// printKey prints a key as validator does; a key reached through an
// unexported embedded struct cannot be turned back into an interface.
func printKey(k reflect.Value) string {
	if k.CanInterface() {
		return fmt.Sprint(k.Interface())
	}
	return fmt.Sprint(k)
}

// jsonKey is the member name the decoder uses for a map key.
func jsonKey(k reflect.Value) (string, bool) {
	if k.Kind() == reflect.String {
		return k.String(), true
	}
	if k.CanInterface() {
		if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
			b, err := tm.MarshalText()
			return string(b), err == nil
		}
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), true
	}
	return "", false
}

// member finds the value a JSON Pointer addresses in a document the
// decoder accepted, and reports whether the client sent it at all.
func member(data []byte, ptr string) (raw []byte, sent bool) {
	l := &locator{data: data}
	defer func() {
		if r := recover(); r != nil {
			if r != errMalformed {
				panic(r)
			}
			raw, sent = nil, false
		}
	}()
	for rest := ptr; rest != ""; {
		tok, _, _ := strings.Cut(rest[1:], "/")
		rest = rest[1+len(tok):]
		if !l.enter(unescapeToken(tok)) {
			return nil, false
		}
	}
	l.ws()
	return l.skip(), true
}

// enter moves into the member or element named tok of the value at the
// cursor.
func (l *locator) enter(tok string) bool {
	switch l.peek() {
	case '{':
		l.pos++
		for l.peek() != '}' {
			if l.peek() == ',' {
				l.pos++
			}
			named := l.names(tok)
			l.expect(':')
			if named {
				return true
			}
			l.skip()
		}
	case '[':
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 {
			return false
		}
		l.pos++
		for n := 0; l.peek() != ']'; n++ {
			if l.peek() == ',' {
				l.pos++
			}
			if n == i {
				return true
			}
			l.skip()
		}
	}
	return false
}

// names reports whether the member name at the cursor is name, unquoting
// it only when it holds an escape: member runs once per field error, over
// every name before the one it looks for.
func (l *locator) names(name string) bool {
	raw := l.rawString()
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	s, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		panic(errMalformed)
	}
	return string(s) == name
}
