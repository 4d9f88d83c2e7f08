package bind

import (
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/faultline-go/faultline/problem"
	"github.com/go-playground/validator/v10"
)

var defaultValidator = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(jsonTagName)
	return v
})

// Validator returns the validator Decode uses by default: created once,
// safe for concurrent use, naming fields by their JSON names. Register
// custom validations on it before serving requests; validator does not
// allow registration concurrently with validation.
func Validator() *validator.Validate { return defaultValidator() }

// jsonTagName gives validator the member name encoding/json uses, so
// FieldError.Field() in custom messages speaks the client's vocabulary.
func jsonTagName(f reflect.StructField) string {
	name, _, _, skip := parseTag(f)
	if skip {
		// Not a member of the document; validator then falls back to the
		// Go name, which is only ever shown to custom message functions.
		return ""
	}
	return name
}

// Validate validates a struct (or pointer to one) that did not come from a
// body, such as decoded query parameters, and reports every failing field
// as validation_failed. Only WithValidator among the options applies.
func Validate(v any, opts ...Option) *problem.Problem {
	cfg := newConfig(opts)
	return validateValue(cfg.validate, v)
}

func validateValue(v *validator.Validate, dst any) *problem.Problem {
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
	err := v.Struct(root.Interface())
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
	out := make([]problem.FieldError, 0, len(fes))
	for _, fe := range fes {
		ptr, _ := namespacePointer(root, fe.StructNamespace())
		out = append(out, problem.FieldError{
			Detail:  message(fe, root),
			Pointer: ptr,
			Code:    fe.Tag(),
		})
	}
	return problem.New(problem.ValidationFailed).WithErrors(out...).Wrap(err)
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
	last := ptr[strings.LastIndexByte(ptr, '/')+1:]
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(last), true
}

func indirectValue(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v
}
