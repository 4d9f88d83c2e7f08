package problem

import (
	"maps"
	"sync"
	"sync/atomic"
)

// template is what New knows of a code: its definition and the occurrence
// every New of it starts from.
type template struct {
	def Definition
	// occ is nil when registries define the code differently: which
	// definition applies is then the serving Writer's to say.
	occ     *Problem
	builtin bool
}

// known holds the template of every code New can fill in by itself: the
// built-in catalog, and each code a registry holds, defined alike by every
// registry that holds it. It is copied on write: registering happens at
// start, while New reads it on every error route.
// It is set by its initializer, not an init function, because the
// default registry, made before any init function runs, registers into it.
var (
	known   = builtinTemplates()
	knownMu sync.Mutex
)

func builtinTemplates() *atomic.Pointer[map[Kind]*template] {
	m := make(map[Kind]*template, len(builtin))
	for i := range builtin {
		d := &builtin[i]
		occ := occurrenceOf(d)
		m[d.Code] = &template{def: *d, occ: &occ, builtin: true}
	}
	var p atomic.Pointer[map[Kind]*template]
	p.Store(&m)
	return &p
}

// remember makes d's code known to New once a registry holds it.
func remember(d *Definition) {
	knownMu.Lock()
	defer knownMu.Unlock()
	old := *known.Load()
	t, ok := old[d.Code]
	if ok && (t.builtin || t.def == *d) {
		// A built-in code means what the catalog says wherever New is
		// called; a registry that redefines it still decides what its
		// Writer sends.
		return
	}
	m := maps.Clone(old)
	if ok {
		m[d.Code] = &template{def: t.def}
	} else {
		occ := occurrenceOf(d)
		m[d.Code] = &template{def: *d, occ: &occ}
	}
	known.Store(&m)
}

// builtinDefinition returns the catalog's definition of a built-in kind.
func builtinDefinition(k Kind) *Definition { return &(*known.Load())[k].def }
