package bind

import (
	"reflect"
	"slices"
	"strings"

	"github.com/faultline-go/faultline/problem"
)

// orderKey names one step of a pointer: the member or element token
// under parent, or the end of the pointer at parent itself.
type orderKey struct {
	parent, token string
	end           bool
}

// orderByMapKey puts the field errors under a map in the order of its
// keys. validator visits a map's entries in Go's random map order, so the
// same request listed them differently each time; everything else keeps
// validator's order, which follows the struct and the slices, and a
// pointer to the map itself comes before its entries.
func orderByMapKey(t reflect.Type, fes []problem.FieldError) {
	if len(fes) < 2 {
		return
	}
	first := map[orderKey]int{}
	for i, fe := range fes {
		for _, k := range orderKeys(fe.Pointer) {
			if _, ok := first[k]; !ok {
				first[k] = i
			}
		}
	}
	maps := map[string]bool{}
	isMap := func(parent string) bool {
		m, ok := maps[parent]
		if !ok {
			m = addressesMap(t, parent)
			maps[parent] = m
		}
		return m
	}
	slices.SortStableFunc(fes, func(a, b problem.FieldError) int {
		ka, kb := orderKeys(a.Pointer), orderKeys(b.Pointer)
		for d := 0; d < len(ka) && d < len(kb); d++ {
			x, y := ka[d], kb[d]
			if x == y {
				continue
			}
			if !isMap(x.parent) {
				return first[x] - first[y]
			}
			switch {
			case x.end:
				return -1
			case y.end:
				return 1
			}
			return strings.Compare(x.token, y.token)
		}
		return 0
	})
}

// orderKeys lists the steps of ptr, its end last.
func orderKeys(ptr string) []orderKey {
	var keys []orderKey
	rest := ptr
	for rest != "" {
		tok, _, _ := strings.Cut(rest[1:], "/")
		parent := ptr[:len(ptr)-len(rest)]
		keys = append(keys, orderKey{parent: parent, token: tok})
		rest = rest[1+len(tok):]
	}
	return append(keys, orderKey{parent: ptr, end: true})
}

// addressesMap reports whether ptr, followed through t by the decoder's
// names, addresses a map.
func addressesMap(t reflect.Type, ptr string) bool {
	for rest := ptr; rest != ""; {
		tok, _, _ := strings.Cut(rest[1:], "/")
		rest = rest[1+len(tok):]
		switch t = indirect(t); t.Kind() {
		case reflect.Struct:
			f, ok := infoOf(t).lookup(unescapeToken(tok))
			if !ok {
				return false
			}
			t = f.typ
		case reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return false
		}
	}
	return indirect(t).Kind() == reflect.Map
}
