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
	// A service fails with one code far more often than with any other (an
	// error storm writes one code thousands of times): the entry found
	// last is compared first, where the map hashes the code on every
	// problem. header holds the code the entry was made for.
	if e := wr.lastCode.Load(); e != nil && e.header[0] == code {
		return e
	}
	if v, ok := wr.codes.Load(code); ok {
		e := v.(*codeEntry)
		wr.lastCode.Store(e)
		return e
	}
	d, registered := wr.registry.Lookup(Kind(code))
	if !registered {
		return nil
	}
	v, _ := wr.codes.LoadOrStore(code, &codeEntry{
		def: d, header: []string{code}, typ: typeFor(wr.baseURI, code),
		code: logString("code", code),
	})
	e := v.(*codeEntry)
	wr.lastCode.Store(e)
	return e
}

func (wr *Writer) codeValue(code string) []string {
	if c := wr.cached(code); c != nil {
		return c.header
	}
	return []string{code}
}
