package bind

import (
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// jsonField is one member encoding/json decodes into a struct, after
// embedded structs were flattened.
type jsonField struct {
	name   string
	typ    reflect.Type
	quoted bool
}

// directField is how one of a struct's own fields (as validator names it
// in StructNamespace) appears in the JSON document.
type directField struct {
	typ reflect.Type
	// segment is the member name; promoted is true for an embedded struct
	// whose fields encoding/json lifts into the parent, so it adds no
	// segment to a pointer.
	segment  string
	promoted bool
}

type structInfo struct {
	fields []jsonField
	byName map[string]int
	direct map[string]directField
}

var structInfos sync.Map // reflect.Type -> *structInfo

// infoOf returns the cached JSON view of a struct type. Both the decode
// locator and the validation pointers need the same mapping from Go fields
// to JSON names, and it must follow encoding/json, not validator, because
// the pointer addresses the document the client sent.
func infoOf(t reflect.Type) *structInfo {
	if v, ok := structInfos.Load(t); ok {
		return v.(*structInfo)
	}
	si := &structInfo{direct: make(map[string]directField, t.NumField())}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, tagged, skip := parseTag(f)
		if skip {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		si.direct[f.Name] = directField{
			typ:      f.Type,
			segment:  name,
			promoted: f.Anonymous && !tagged && ft.Kind() == reflect.Struct,
		}
	}
	si.fields = flatten(t)
	si.byName = make(map[string]int, len(si.fields))
	for i, f := range si.fields {
		si.byName[f.name] = i
	}
	v, _ := structInfos.LoadOrStore(t, si)
	return v.(*structInfo)
}

// lookup finds the field a member name decodes into: an exact match first,
// then a case-insensitive one, as encoding/json does.
func (si *structInfo) lookup(name string) (jsonField, bool) {
	if i, ok := si.byName[name]; ok {
		return si.fields[i], true
	}
	for _, f := range si.fields {
		if strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return jsonField{}, false
}

// parseTag reads a field's json tag: the member name (the Go name when the
// tag gives none or an invalid one), the ",string" option, whether the tag
// named the field, and whether the field is excluded from JSON entirely.
func parseTag(f reflect.StructField) (name string, quoted, tagged, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false, true
	}
	if !f.IsExported() && !(f.Anonymous && embeddedStruct(f.Type)) {
		return "", false, false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		if opt == "string" {
			quoted = true
		}
	}
	if name != "" && validTagName(name) {
		return name, quoted, true, false
	}
	return f.Name, quoted, false, false
}

func embeddedStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// validTagName mirrors the characters encoding/json accepts in a tag name;
// with any other character it silently uses the Go name, and so must we.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

type candidate struct {
	jsonField
	depth  int
	tagged bool
}

// flatten lists the members encoding/json decodes into t: fields of
// untagged embedded structs are promoted, a shallower field hides a deeper
// one, and at equal depth a tagged field beats untagged ones while any
// other tie removes the name altogether.
func flatten(t reflect.Type) []jsonField {
	type level struct {
		typ   reflect.Type
		depth int
	}
	var (
		queue   = []level{{t, 0}}
		visited = map[reflect.Type]bool{}
		byName  = map[string][]candidate{}
		order   []string
	)
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if visited[cur.typ] {
			continue
		}
		visited[cur.typ] = true
		for i := 0; i < cur.typ.NumField(); i++ {
			f := cur.typ.Field(i)
			name, quoted, tagged, skip := parseTag(f)
			if skip {
				continue
			}
			if f.Anonymous && !tagged && embeddedStruct(f.Type) {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				queue = append(queue, level{ft, cur.depth + 1})
				continue
			}
			if !f.IsExported() {
				continue
			}
			if _, seen := byName[name]; !seen {
				order = append(order, name)
			}
			byName[name] = append(byName[name], candidate{jsonField{name, f.Type, quoted && scalarKind(f.Type)}, cur.depth, tagged})
		}
	}
	fields := make([]jsonField, 0, len(order))
	for _, name := range order {
		if f, ok := dominant(byName[name]); ok {
			fields = append(fields, f)
		}
	}
	return fields
}

func dominant(cs []candidate) (jsonField, bool) {
	minDepth := cs[0].depth
	for _, c := range cs {
		minDepth = min(minDepth, c.depth)
	}
	var found []candidate
	for _, c := range cs {
		if c.depth == minDepth {
			found = append(found, c)
		}
	}
	if len(found) == 1 {
		return found[0].jsonField, true
	}
	var tagged []candidate
	for _, c := range found {
		if c.tagged {
			tagged = append(tagged, c)
		}
	}
	if len(tagged) == 1 {
		return tagged[0].jsonField, true
	}
	return jsonField{}, false
}

// scalarKind reports whether the ",string" option applies to t; encoding/json
// ignores it on other kinds.
func scalarKind(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
