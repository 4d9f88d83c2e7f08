package problem

import (
	"log/slog"
	"sync/atomic"
)

type codeEntry struct {
	def    Definition
	header []string // the code header's value
	typ    string   // the type URI
	// code is the record's attribute for the code, made once.
	code slog.Attr
	// prefix is the logger's handler with the code's attributes added
	// (see prefixed), routes the same with a route's added too.
	prefix atomic.Pointer[prefixedHandler]
	routes routePrefixes
	// json holds the runs of the code's problem+json bodies rendered once.
	json atomic.Pointer[jsonSegments]
}

// jsonSegments returns the runs of body every occurrence of e's code
// shares while it keeps its kind's members, made on first use; nil for a
// nil e.
func (e *codeEntry) jsonSegments() *jsonSegments {
	if e == nil {
		return nil
	}
	if s := e.json.Load(); s != nil {
		return s
	}
	s := newJSONSegments(&e.def, e.typ)
	e.json.Store(s)
	return s
}

// cached returns the kind and strings of a registered code, made on first
// use; nil for a code the registry does not know, which is not kept.
func (wr *Writer) cached(code string) *codeEntry {
	// The codes a service fails with are few and repeat (an error storm
	// writes one thousands of times): each takes a slot of its own, found
	// from its length and end bytes, where the map hashes the whole code
	// on every problem. A slot is filled once and never changed, so the
	// slots are only read once warm; a code that finds its slot taken
	// goes to the map. header holds the code an entry was made for.
	slot := &wr.recentCodes[codeSlot(code)]
	if e := slot.Load(); e != nil && e.header[0] == code {
		return e
	}
	e := wr.lookupCode(code)
	if e != nil {
		slot.CompareAndSwap(nil, e)
	}
	return e
}

// codeSlots is how many codes cached finds without the map.
const codeSlots = 16

func codeSlot(code string) int {
	if code == "" {
		return 0
	}
	return (len(code)*7 + int(code[0]) + int(code[len(code)-1])*3) % codeSlots
}

func (wr *Writer) lookupCode(code string) *codeEntry {
	if v, ok := wr.codes.Load(code); ok {
		return v.(*codeEntry)
	}
	d, registered := wr.registry.Lookup(Kind(code))
	if !registered {
		return nil
	}
	v, _ := wr.codes.LoadOrStore(code, &codeEntry{
		def: d, header: []string{code}, typ: typeFor(wr.baseURI, code),
		code: logString("code", code),
	})
	return v.(*codeEntry)
}

func (wr *Writer) codeValue(code string) []string {
	if c := wr.cached(code); c != nil {
		return c.header
	}
	return []string{code}
}
