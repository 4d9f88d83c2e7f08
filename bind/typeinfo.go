package bind

import (
	"reflect"
	"strings"
	"sync"
)

// jsonField is one member the decoder reads into a struct, after embedded
// structs were flattened.
type jsonField struct {
	name   string
	typ    reflect.Type
	quoted bool
	// nocase is set by the tag option "case:ignore" (or "nocase"), the one
	// way a field asks the decoder to match its name case-insensitively.
	nocase bool
}

// directField is how one of a struct's own fields (as validator names it
// in StructNamespace) appears in the JSON document.
type directField struct {
	typ reflect.Type
	// segment is the member name; promoted is true for an embedded struct
	// whose fields the decoder lifts into the parent, so it adds no
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
// to JSON names, and it must follow the decoder, not validator, because
// the pointer addresses the document the client sent.
func infoOf(t reflect.Type) *structInfo {
	if v, ok := structInfos.Load(t); ok {
		return v.(*structInfo)
	}
	si := &structInfo{direct: make(map[string]directField, t.NumField())}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _, tagged, skip := parseTag(f)
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

// lookup finds the field a member name decodes into: by its exact name,
// or case-insensitively for a field tagged to allow that.
func (si *structInfo) lookup(name string) (jsonField, bool) {
	if i, ok := si.byName[name]; ok {
		return si.fields[i], true
	}
	for _, f := range si.fields {
		if f.nocase && strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return jsonField{}, false
}

// foldedName finds the field name a member differs from only in case, to
// point a client at the name it meant.
func (si *structInfo) foldedName(name string) (string, bool) {
	for _, f := range si.fields {
		if strings.EqualFold(f.name, name) {
			return f.name, true
		}
	}
	return "", false
}

// parseTag reads a field's json tag: the member name (the Go name when the
// tag gives none or an invalid one), the "string" and "case:ignore"
// options, whether the tag named the field, and whether the field is
// excluded from JSON entirely.
func parseTag(f reflect.StructField) (name string, quoted, nocase, tagged, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false, false, true
	}
	if !f.IsExported() && !(f.Anonymous && embeddedStruct(f.Type)) {
		return "", false, false, false, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		switch opt {
		case "string":
			quoted = true
		case "case:ignore", "nocase":
			nocase = true
		}
	}
	if name != "" && validTagName(name) {
		return name, quoted, nocase, true, false
	}
	return f.Name, quoted, nocase, false, false
}

func embeddedStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// validTagName follows the decoder, which takes almost any name but
// reserves backslashes and quotes for quoted names bind does not read;
// such a tag leaves the Go name in use.
func validTagName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "\\'\"`")
}

type candidate struct {
	jsonField
	depth  int
	tagged bool
}

// flatten lists the members the decoder reads into t: fields of
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
			name, quoted, nocase, tagged, skip := parseTag(f)
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
			byName[name] = append(byName[name], candidate{jsonField{name, f.Type, quoted && numberKind(f.Type), nocase}, cur.depth, tagged})
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

// numberKind reports whether the "string" option applies to t: the
// decoder honours it only on types that encode as JSON numbers.
func numberKind(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
