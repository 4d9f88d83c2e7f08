package middleware

import (
	"reflect"
	"testing"
	"time"
)

// Options that only Stack applies are not Options, so handing one to Guard,
// Recover, Timeout, BodyLimit, NotFound or MethodNotAllowed does not compile;
// every Option still fits Stack.
func TestOptionsOnlyFitWhereTheyApply(t *testing.T) {
	option := reflect.TypeFor[Option]()
	for name, o := range map[string]StackOption{
		"WithBodyLimit":      WithBodyLimit(1),
		"WithRequestTimeout": WithRequestTimeout(time.Second),
		"WithCorrelation":    WithCorrelation(),
	} {
		if reflect.TypeOf(o).AssignableTo(option) {
			t.Errorf("%s is accepted where only Option fits", name)
		}
	}
	if !option.Implements(reflect.TypeFor[StackOption]()) {
		t.Error("an Option does not fit Stack")
	}
	for name, ctor := range map[string]any{
		"Guard": Guard, "Recover": Recover, "Timeout": Timeout, "BodyLimit": BodyLimit,
		"NotFound": NotFound, "MethodNotAllowed": MethodNotAllowed,
	} {
		ft := reflect.TypeOf(ctor)
		if last := ft.In(ft.NumIn() - 1); !ft.IsVariadic() || last.Elem() != option {
			t.Errorf("%s takes %v, want ...Option", name, last)
		}
	}
}
