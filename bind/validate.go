package bind

import (
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/faultline-go/faultline/problem"
	"github.com/go-playground/validator/v10"
)

// The default validator keeps Go field names: registering a JSON tag-name
// function makes validator build a name for every field on every call,
// about 7% more allocations on the valid path. Pointers come from
// StructNamespace walked through the value, and custom messages get the
// JSON name through jsonNamed, so clients never see Go names either way.
var defaultValidator = sync.OnceValue(func() *validator.Validate {
	return validator.New(validator.WithRequiredStructEnabled())
})

// jsonNamed presents a field error to a WithMessage function under the
// member name the client sent, whatever names the validator uses.
type jsonNamed struct {
	validator.FieldError
	name string
}

func (j jsonNamed) Field() string { return j.name }

// memberName is the client's name for the field a pointer ends at: the last
// member, or "items[2]" for an array element.
func memberName(ptr string) string {
	parent, last, _ := cutLast(ptr)
	if last != "" && strings.Trim(last, "0123456789") == "" {
		if _, prev, _ := cutLast(parent); prev != "" {
			return prev + "[" + last + "]"
		}
	}
	return last
}

func cutLast(ptr string) (parent, last string, ok bool) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", "", false
	}
	return ptr[:i], unescapeToken(ptr[i+1:]), true
}

// unescapeToken undoes RFC 6901's escaping of one reference token.
func unescapeToken(tok string) string {
	if strings.IndexByte(tok, '~') < 0 {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// validated reports whether a value of type t has rules to check: a
// struct, or slices, arrays and maps of structs.
func validated(t reflect.Type) bool {
	t = indirect(t)
	return t.Kind() == reflect.Struct || diveTag(t) != ""
}

// diveTag is the tag that makes validator check the structs inside a
// collection, one "dive" per level (a batch of orders, [][]Item, a map of
// structs): validator's Struct takes no collection, and a body of many
// items was accepted with every rule of every item broken. It is "" when
// t holds no structs.
func diveTag(t reflect.Type) string {
	depth := 0
	for t = indirect(t); t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map; t = indirect(t.Elem()) {
		depth++
	}
	if depth == 0 || t.Kind() != reflect.Struct {
		return ""
	}
	return strings.Repeat("dive,", depth-1) + "dive"
}

// Validate validates a struct (or pointer to one, or a slice, array or map
// of them) that did not come from a body, such as decoded query parameters, and reports every failing field
// as validation_failed, a *problem.Problem. Only WithValidator and
// WithMessage among the options apply.
func Validate(v any, opts ...Option) error {
	if p := validateValue(configure(opts), v, nil); p != nil {
		return p
	}
	return nil
}

// validateValue reports every broken rule of dst. body, when dst was
// decoded from one, lets a rule broken by a value the client did send say
// what is wrong with that value.
func validateValue(cfg *config, dst any, body []byte) *problem.Problem {
	root := reflect.ValueOf(dst)
	for root.Kind() == reflect.Pointer {
		if root.IsNil() {
			return nil
		}
		root = root.Elem()
	}
	// Hand validator a copy, not the addressable original: it boxes every
	// field it visits, and boxing a field of an addressable struct
	// allocates each time, while one copy of the struct costs one
	// allocation in all.
	var err error
	if root.Kind() == reflect.Struct {
		err = cfg.validator().Struct(root.Interface())
	} else if tag := diveTag(root.Type()); tag != "" {
		err = cfg.validator().Var(root.Interface(), tag)
	}
	if err == nil {
		return nil
	}
	var fes validator.ValidationErrors
	if !errors.As(err, &fes) {
		var invalid *validator.InvalidValidationError
		if errors.As(err, &invalid) {
			// Not a struct validator can walk (time.Time, for one): there
			// are no field rules to break.
			return nil
		}
		return problem.New(problem.Internal).Wrap(err)
	}
	out := make([]problem.FieldError, 0, min(len(fes), maxFieldErrors))
	for _, fe := range fes[:min(len(fes), maxFieldErrors)] {
		ptr, located := namespacePointer(root, fe.StructNamespace())
		if ptr != "" {
			fe = jsonNamed{FieldError: fe, name: memberName(ptr)}
		}
		detail := message(fe, root, cfg.messages)
		if detail == requiredMessage && located && body != nil {
			if raw, sent := member(body, ptr); sent {
				detail = presentZeroMessage(raw)
			}
		}
		out = append(out, problem.FieldError{Detail: detail, Pointer: ptr, Code: fe.Tag()})
	}
	orderByMapKey(root.Type(), out)
	return problem.New(problem.ValidationFailed).WithErrors(out...).Wrap(err)
}

// presentZeroMessage says what is wrong with a value the client sent for
// a required field: "is required" would tell a client who sent
// "quantity":0 to send something it already sent.
func presentZeroMessage(raw []byte) string {
	switch raw[0] {
	case 'n':
		return "must not be null"
	case 'f':
		return "must not be false"
	case '{', '[':
		return "must not be empty"
	case '"':
		if len(raw) == 2 {
			return "must not be empty"
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "must not be 0"
	}
	return "must not be a zero value"
}

// fieldLabel names, for a cross-field message, the field a tag's parameter
// refers to: by its JSON name, never its Go name. ok is false when it
// cannot be resolved.
func fieldLabel(fe validator.FieldError, root reflect.Value) (string, bool) {
	ns := fe.StructNamespace()
	var target string
	if strings.Contains(fe.ActualTag(), "csfield") {
		name := indirectValue(root).Type().Name()
		target = fe.Param()
		if name != "" {
			target = name + "." + target
		}
	} else {
		parent, ok := strings.CutSuffix(ns, fe.StructField())
		if !ok {
			return "", false
		}
		target = parent + fe.Param()
	}
	ptr, ok := namespacePointer(root, target)
	if !ok || ptr == "" {
		return "", false
	}
	_, last, _ := cutLast(ptr)
	return last, true
}

func indirectValue(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v
}
